# SPDX-License-Identifier: GPL-2.0-only
# lib.sh - what the ftvm test scripts share; sourced after 'build' is set.
#   NAME=... . tests/ftvm/lib.sh    a scratch dir in $work, ok/bad, and
#   finish                          the closing "N passed, N failed" line
ftvm=$build/bin/ftvm
ftlog=$build/bin/ftlog
work=$(mktemp -d "${TMPDIR:-/tmp}/xenft-$NAME.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAIL: $1"; }

finish() {
    echo "$NAME: $passed passed, $failed failed"
    [ "$failed" = 0 ]
}
