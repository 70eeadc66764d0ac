#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run-core.sh - the hvm/core benchmark: run bench-core, count the
# instructions of one append under callgrind, write the figures into
# DIR/core.kv and merge every DIR/*.kv into DIR/results.json.
#   sh tests/bench/run-core.sh DIR      (DIR holds bench-core: build/bench)
#
# Exits non-zero if any measurement could not be made.  core.kv is then
# removed rather than left stale, so results.json never shows figures
# from an older run as if they were this one's.
set -u

dir=${1:?usage: run-core.sh BENCH_DIR}
here=$(dirname "$0")
bench=$dir/bench-core
kv=$dir/core.kv
# Enough appends that start-up noise vanishes, few enough for ~2 s of
# callgrind.
appends=1000000
cgout=$dir/callgrind.out.core
cglog=$dir/callgrind.log

fail() {
    echo "run-core: FAILED: $*" >&2
    rm -f "$kv.tmp"
    [ -d "$dir" ] && sh "$here/kv-to-json.sh" "$dir"
    exit 1
}

rm -f "$kv" "$cgout"
[ -x "$bench" ] || fail "$bench is not built (make $bench)"

"$bench" --kv "$kv.tmp" || fail "bench-core exited with status $?"

if ! command -v valgrind >/dev/null 2>&1; then
    fail "valgrind is not installed, so instructions per record cannot" \
         "be counted: apt-get install valgrind (make bench installs it as root)"
fi
# Count only inside the recorder's entry points, as a hypervisor hook
# calls them: the benchmark's own loop is not the recorder's cost.
valgrind --tool=callgrind --collect-atstart=no \
    --toggle-collect=ft_record_tsc --toggle-collect=ft_record_extint \
    --callgrind-out-file="$cgout" \
    "$bench" --callgrind "$appends" >"$cglog" 2>&1 ||
    fail "bench-core under callgrind exited with status $?; see $cglog"

# Zero means the symbols were not found (renamed or inlined).
ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$cgout")
case "$ir" in
""|*[!0-9]*|0) fail "callgrind counted no instructions in ft_record_*" \
                    "(summary '$ir' in $cgout)" ;;
esac
# The typical stream alternates the two kinds: half the appends each.
per_fn() {
    callgrind_annotate --inclusive=yes "$cgout" 2>/dev/null |
        awk -v fn="$1" -v n="$appends" '
            $0 ~ (":" fn " ") || $0 ~ (":" fn "$") {
                gsub(",", "", $1); printf "%.1f", $1 / (n / 2); exit }'
}
tsc=$(per_fn ft_record_tsc)
extint=$(per_fn ft_record_extint)
insns=$(awk -v ir="$ir" -v n="$appends" 'BEGIN { printf "%.1f", ir / n }')
verdict=$(awk -v x="$insns" 'BEGIN { print (x <= 100 ? "met" : "MISSED") }')
echo "   callgrind:  $insns instructions/record ($ir over $appends appends:" \
     "TSC read ${tsc:-?}, external interrupt ${extint:-?})"
echo
echo "   goal: <= 100 instructions per typical record: $verdict ($insns)"
[ -n "$tsc" ] && echo "core_insns_per_record_tsc $tsc" >>"$kv.tmp"
[ -n "$extint" ] && echo "core_insns_per_record_extint $extint" >>"$kv.tmp"
echo "core_insns_per_record $insns" >>"$kv.tmp"

mv "$kv.tmp" "$kv" || fail "cannot write $kv"
sh "$here/kv-to-json.sh" "$dir" || fail "cannot merge $dir/*.kv"
echo
echo "run-core: figures in $kv, all benchmarks in $dir/results.json"
