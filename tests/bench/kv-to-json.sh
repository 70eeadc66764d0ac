#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kv-to-json.sh - merge every DIR/*.kv file into DIR/results.json.
#   sh tests/bench/kv-to-json.sh DIR
#
# Each benchmark writes its figures as "key value" lines into its own
# DIR/<name>.kv and then calls this, so results.json always holds every
# figure measured so far as one flat JSON object of numbers.  Values are
# copied as written, never reformatted by awk, and must be plain decimals
# (no exponent, nan or inf) so that any JSON reader takes them.  A key
# that two files set is an error: one of them would be silently lost.
set -u

dir=${1:?usage: kv-to-json.sh DIR}
out=$dir/results.json

set -- "$dir"/*.kv
[ -e "$1" ] || set --    # no figures yet: an empty object

# </dev/null: with no file arguments awk would wait on the terminal.
if ! awk '
/^[ \t]*(#|$)/ { next }
NF != 2 || $1 !~ /^[a-z][a-z0-9_]*$/ ||
$2 !~ /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/ {
    printf "kv-to-json: %s:%d: not \"key plain-decimal\": %s\n",
        FILENAME, FNR, $0 > "/dev/stderr"
    bad = 1
    next
}
$1 in from {
    printf "kv-to-json: %s:%d: %s is already set by %s\n",
        FILENAME, FNR, $1, from[$1] > "/dev/stderr"
    bad = 1
    next
}
{
    from[$1] = FILENAME
    key[++n] = $1
    val[n] = $2
}
END {
    if (bad)
        exit 1
    printf "{"
    for (i = 1; i <= n; i++)
        printf "%s\n  \"%s\": %s", (i > 1 ? "," : ""), key[i], val[i]
    printf "%s}\n", (n ? "\n" : "")
}' "$@" </dev/null >"$out.tmp"; then
    rm -f "$out.tmp"
    echo "kv-to-json: $out not written" >&2
    exit 1
fi
mv "$out.tmp" "$out"
