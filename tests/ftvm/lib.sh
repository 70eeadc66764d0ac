# SPDX-License-Identifier: GPL-2.0-only
# lib.sh - what the ftvm test scripts share; sourced after 'build' is set.
#   NAME=... . tests/ftvm/lib.sh    a scratch dir in $work, ok/bad, and
#   finish                          the closing "N passed, N failed" line
ftvm=$build/bin/ftvm
ftlog=$build/bin/ftlog
work=$(mktemp -d "${TMPDIR:-/tmp}/xenft-$NAME.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAIL: $1"; }

finish() {
    echo "$NAME: $passed passed, $failed failed"
    [ "$failed" = 0 ]
}

# udp_bound PORT: wait (10 s at most) until something listens on the UDP
# port of 127.0.0.1, as /proc/net/udp shows it.
udp_bound() {
    hex=$(printf ':%04X ' "$1")
    i=0
    until grep -q "0100007F$hex" /proc/net/udp 2>/dev/null; do
        i=$((i + 1))
        [ $i -ge 200 ] && return 1
        sleep 0.05      # polling the kernel's table, bounded
    done
}

