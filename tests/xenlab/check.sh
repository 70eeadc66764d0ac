#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# check.sh [TEST...] - run the lab's tests (tests/*.sh, or those named)
# with the runner of make check (tests/lib/run-check.sh): one PASS/FAIL/
# SKIP line each, then every skip and failure with its reason and the
# line "N passed, N failed, N skipped".  Each test's output is kept in
# build/xenlab/logs/NAME.log.  Exits 1 if any test failed.
set -u
. "$(dirname "$0")/lib.sh"

# One test: boots and its commands, bounded.
TEST_TIMEOUT=${XENLAB_TEST_TIMEOUT:-600}
runner=$XL_TOP/tests/lib/run-check.sh

[ $# -gt 0 ] || set -- "$XL_SRC"/tests/*.sh
mkdir -p "$XL_OUT/logs"
rm -f "$XL_OUT/logs"/*.result
start=$(date +%s)
for t in "$@"; do
    sh "$runner" run -q "$XL_OUT/logs" "$(basename "$t" .sh)" \
        timeout -k 5 "$TEST_TIMEOUT" sh "$t"
done
echo "xenlab: $# tests in $(($(date +%s) - start)) s"
exec sh "$runner" summary "$XL_OUT/logs"
