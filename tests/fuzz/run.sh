#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run.sh TARGET_BINARY CORPUS_DIR SECONDS   (the targets, and which
# decoder of another host's bytes each reaches: README.md here)
#
# Run a libFuzzer target for SECONDS on a scratch copy of CORPUS_DIR (the
# committed seeds are never modified) and print one line with the target
# name and the number of executions.  Exits non-zero if the target
# crashes, times out, leaks or a sanitizer reports anything; the crashing
# input is then kept under $FUZZ_ARTIFACTS (default: an artifacts/
# directory next to the target binary) and shown in hex.
set -u

die() {
    echo "run.sh: $*" >&2
    exit 2
}

[ $# -eq 3 ] || die "usage: run.sh TARGET_BINARY CORPUS_DIR SECONDS"
target=$1
corpus=$2
secs=$3
name=$(basename "$target")

if [ ! -f "$target" ] || [ ! -x "$target" ]; then
    die "$name: '$target' is not an executable fuzz target"
fi
[ -d "$corpus" ] ||
    die "$name: seed corpus directory '$corpus' does not exist"
case $secs in
''|*[!0-9]*) die "$name: SECONDS must be a whole number, not '$secs'" ;;
esac
[ "$secs" -gt 0 ] || die "$name: SECONDS must be at least 1"

work=$(mktemp -d "${TMPDIR:-/tmp}/xenft-fuzz-$name.XXXXXX") ||
    die "$name: cannot create a scratch directory"
trap 'rm -rf "$work"' EXIT
# Make INT/TERM go through the EXIT trap so the scratch copy goes away.
trap 'exit 130' INT TERM

mkdir "$work/corpus" "$work/crash" || die "$name: cannot set up $work"
cp -R "$corpus/." "$work/corpus/" ||
    die "$name: cannot copy the seeds from '$corpus'"
seeds=$(find "$work/corpus" -type f | wc -l)

# libFuzzer stops by itself after SECONDS; timeout(1) is only a backstop
# for a target that wedges outside libFuzzer's own per-input timeout.
# stdin is /dev/null so that nothing can wait for a terminal.
log=$work/log
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(dirname "$0")/lsan.supp} \
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
timeout -k 10 $((secs + 120)) "$target" \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/crash/" \
    "$work/corpus" </dev/null >"$log" 2>&1
rc=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
[ -n "$execs" ] ||
    execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
inputs=$(find "$work/corpus" -type f | wc -l)

# A sanitizer report is a failure even if the exit status hides it.
pattern='^==[0-9]+==ERROR|runtime error:|ERROR: libFuzzer'
pattern="$pattern|^SUMMARY: (Address|Leak|Undefined)"
reports=$(grep -c -E "$pattern" "$log")

if [ "$rc" = 0 ] && [ "$reports" = 0 ] && [ -n "$execs" ]; then
    echo "fuzz $name: $execs executions in ${secs}s" \
         "(${rate:-?}/s), corpus $seeds -> $inputs inputs, no crash"
    exit 0
fi

case $rc in
0) if [ "$reports" != 0 ]; then why="sanitizer report"
   else why="no statistics in the libFuzzer log"; fi ;;
124|137) why="hung (killed after $((secs + 120))s)" ;;
*) why="exit status $rc" ;;
esac
echo "fuzz $name: FAILED ($why) after ${execs:-?} executions" >&2
echo "---- last lines of the libFuzzer log ----" >&2
tail -n 80 "$log" >&2
echo "----" >&2
keep=${FUZZ_ARTIFACTS:-$(dirname "$target")/artifacts}/$name
for f in "$work"/crash/*; do
    [ -f "$f" ] || continue
    mkdir -p "$keep" && cp "$f" "$keep/" &&
        echo "fuzz $name: input kept as $keep/$(basename "$f")" >&2
    echo "fuzz $name: input ($(wc -c <"$f") bytes, hex):" >&2
    od -An -v -tx1 "$f" | head -n 64 >&2
done
exit 1
