#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# selftest.sh - run-check.sh on units that pass, fail and skip: each
# outcome and reason recorded, the summary counting them and failing
# while one failed, passing once none did.
set -u

NAME=run-check
. "$(dirname "$0")/test.sh"
scratch
runner="sh $(dirname "$0")/run-check.sh"

$runner run -q "$work/r" lib/good sh -c 'echo fine' >"$work/out"
$runner run -q "$work/r" lib/broken sh -c 'echo FAIL: it broke; exit 3' \
    >>"$work/out"
$runner run -q "$work/r" lib/away sh -c 'echo "SKIP: not here"; exit 77' \
    >>"$work/out"
$runner run "$work/r" silent sh -c 'exit 77' >>"$work/out"

if grep -q '^pass ' "$work/r/lib/good.result" &&
   grep -q '^fail [0-9]* exit 3: FAIL: it broke$' \
       "$work/r/lib/broken.result" &&
   grep -q '^skip [0-9]* not here$' "$work/r/lib/away.result" &&
   grep -q '^skip [0-9]* exit 77 without a SKIP: line' \
       "$work/r/silent.result"; then
    ok "each outcome recorded with its reason"
else
    bad "results: $(cat "$work/out" "$work/r"/*.result "$work/r"/*/*.result)"
fi

$runner summary "$work/r" >"$work/sum"
rc=$?
if [ $rc = 1 ] &&
   [ "$(tail -n 1 "$work/sum")" = "1 passed, 1 failed, 2 skipped" ] &&
   grep -q '^FAIL lib/broken: exit 3: FAIL: it broke' "$work/sum" &&
   grep -q '^SKIP lib/away: not here$' "$work/sum"; then
    ok "the summary names the failure and the skips and fails"
else
    bad "summary (exit $rc): $(cat "$work/sum")"
fi

# Only what ran under a directory: lib/ alone, then with the failure gone.
rm "$work/r/lib/broken.result"
$runner summary "$work/r" lib >"$work/sum"
rc=$?
if [ $rc = 0 ] &&
   [ "$(tail -n 1 "$work/sum")" = "1 passed, 0 failed, 1 skipped" ]; then
    ok "no failure: the summary passes ($(tail -n 1 "$work/sum"))"
else
    bad "summary without the failure (exit $rc): $(cat "$work/sum")"
fi

if $runner summary "$work/none" >"$work/sum" 2>&1; then
    bad "a summary of nothing passed"
else
    ok "a summary of nothing fails: $(tail -n 1 "$work/sum")"
fi

finish
