# SPDX-License-Identifier: GPL-2.0-only
# test.sh - what every test script shares; sourced, with NAME set.
#   ok TEXT, bad TEXT     a check passed ("ok: TEXT") or failed ("FAIL:")
#   finish                "NAME: N passed, N failed"; false if one failed
#   skip REASON           "SKIP: NAME: REASON" and exit 77 (make check
#                         shows the reason)
#   scratch               a scratch directory in $work, removed on exit
#   until_true TRIES CMD...
#                         CMD every 50 ms until it succeeds (TRIES)
#   udp_bound PORT        until something listens on UDP 127.0.0.1:PORT,
#                         10 s at most
#   expect WHAT STATUS PATTERN -- CMD...
#                         CMD exits with STATUS and says PATTERN (grep)
#                         on stdout or stderr: ok, else bad; its output
#                         in $work/expect.out and .err
#   newkey FILE           a fresh 32-byte key in hex, mode 0600
# Sourced again (through hosts.sh), the counts stand.
passed=${passed:-0}
failed=${failed:-0}

ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAIL: $1"; }

finish() {
    echo "$NAME: $passed passed, $failed failed"
    [ "$failed" = 0 ]
}

skip() {
    echo "SKIP: $NAME: $*"
    exit 77
}

scratch() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/xenft-$NAME.XXXXXX") || exit 1
    trap 'rm -rf "$work"' EXIT
    # A signal (a timeout, ^C) ends the script through its EXIT trap too.
    trap 'exit 1' INT TERM
}

until_true() {
    n=$1
    shift
    while ! "$@" >/dev/null 2>&1; do
        n=$((n - 1))
        [ "$n" -gt 0 ] || return 1
        sleep 0.05      # polling for a condition, bounded
    done
}

udp_bound() {
    hex=$(printf ':%04X ' "$1")
    until_true 200 grep -q "0100007F$hex" /proc/net/udp
}

expect() {
    what=$1 want=$2 pattern=$3
    shift 4
    "$@" >"$work/expect.out" 2>"$work/expect.err"
    got=$?
    said=$work/expect.err
    [ -s "$said" ] || said=$work/expect.out
    if [ "$got" != "$want" ]; then
        bad "$what: exit status $got, want $want ($(cat "$said"))"
    elif ! grep -q -- "$pattern" "$work/expect.err" "$work/expect.out"; then
        bad "$what: no '$pattern' in: $(cat "$work/expect.err" \
            "$work/expect.out")"
    else
        ok "$what ($(cut -c1-150 "$said" | head -n 1))"
    fi
}

newkey() {
    (umask 077
     head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$1")
}
