#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# check.sh [TEST...] - run the lab's tests (tests/*.sh, or those named),
# one PASS/FAIL/SKIP line each, then a summary.  Each test's output is
# kept in build/xenlab/logs/NAME.log.  Exits 1 if any test failed.
set -u
. "$(dirname "$0")/lib.sh"

# One test: boots and its commands, bounded.
TEST_TIMEOUT=${XENLAB_TEST_TIMEOUT:-600}

[ $# -gt 0 ] || set -- "$XL_SRC"/tests/*.sh
mkdir -p "$XL_OUT/logs"
pass=0 failed=0 skip=0 start=$(date +%s)
for t in "$@"; do
    name=$(basename "$t" .sh)
    log=$XL_OUT/logs/$name.log
    t0=$(date +%s)
    timeout -k 5 "$TEST_TIMEOUT" sh "$t" > "$log" 2>&1
    st=$?
    secs=$(($(date +%s) - t0))
    case $st in
    0) echo "PASS $name (${secs} s)"; pass=$((pass + 1)) ;;
    "$XL_SKIP")
        echo "SKIP $name: $(tail -n 1 "$log")"
        skip=$((skip + 1)) ;;
    *)
        echo "FAIL $name (status $st, ${secs} s)"
        sed 's/^/    /' "$log" | tail -n 40
        failed=$((failed + 1)) ;;
    esac
done
echo "xenlab: $pass passed, $failed failed, $skip skipped" \
    "in $(($(date +%s) - start)) s"
[ $failed = 0 ]
