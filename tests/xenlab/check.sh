#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# check.sh [TEST...] - run the lab's tests (tests/*.sh, or those named)
# with the runner of make check (tests/lib/run-check.sh): one PASS/FAIL/
# SKIP line each, then every skip and failure with its reason and the
# line "N passed, N failed, N skipped".  Each test's output is kept in
# build/xenlab/logs/NAME.log.  XENLAB_REPEAT=N runs each test N times
# (1 to 100), as NAME.1 to NAME.N, to count how often one passes.
# Exits 1 if any test failed.
set -u
. "$(dirname "$0")/lib.sh"

# One test: boots and its commands, bounded.
TEST_TIMEOUT=${XENLAB_TEST_TIMEOUT:-600}
runner=$XL_TOP/tests/lib/run-check.sh

repeat=${XENLAB_REPEAT:-1}
case $repeat in
''|*[!0-9]*|0*) repeat=0 ;;
esac
[ "$repeat" -ge 1 ] && [ "$repeat" -le 100 ] ||
    xl_die 2 "XENLAB_REPEAT=$XENLAB_REPEAT: not a count from 1 to 100"
[ $# -gt 0 ] || set -- "$XL_SRC"/tests/*.sh
mkdir -p "$XL_OUT/logs"
rm -f "$XL_OUT/logs"/*.result
start=$(date +%s)
for t in "$@"; do
    k=1
    while [ $k -le "$repeat" ]; do
        name=$(basename "$t" .sh)
        [ "$repeat" = 1 ] || name=$name.$k
        sh "$runner" run -q "$XL_OUT/logs" "$name" \
            timeout -k 5 "$TEST_TIMEOUT" sh "$t"
        k=$((k + 1))
    done
done
echo "xenlab: $(($# * repeat)) tests in $(($(date +%s) - start)) s"
exec sh "$runner" summary "$XL_OUT/logs"
