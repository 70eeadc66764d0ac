#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 12-backend-secondary.sh - libxlft's xen backend makes a secondary on
# Debian's stock hypervisor: host 1 runs the idle guest (its console
# ticks), host 2 takes copies on four ports.  A copy of an unknown
# domain, a copy to a port nobody listens on, a copy cut after 2 MB and
# one that stalls after 2 MB (the receiver gives up after 30 s without
# progress) fail with messages naming the domain and the peer, and leave
# nothing on host 2; the real copy arrives paused on host 2 while the
# guest on host 1 runs on and keeps ticking.  Both are destroyed at the
# end.
#
#   +---- QEMU: Xen host 1 ----+  one network   +---- QEMU: Xen host 2 ----+
#   | dom0 xenbr0 10.99.0.1    +----------------+ dom0 xenbr0 10.99.0.2    |
#   | guest idle (ticking)     |                | xlft-xen copy-recv on    |
#   | xlft-xen copy-send ->    |                |   :8003 .. :8006         |
#   |   :8003 .. :8006         |                | says ready on :8001      |
#   +--------------------------+                +--------------------------+
. "$(dirname "$0")/../testlib.sh"

[ -e "$XL_TOP/build/guests/idle.bin" ] || fail "build/guests/idle.bin is" \
    "missing: run make first"
lab_put tests/xlft-xen guests/idle.bin
lab --hosts 2 --timeout 400 -- '
x=/xenft/xlft-xen
if [ "$XENLAB_HOST" = 2 ]; then
    . /xenft/dom0.sh
    idle_cfg 100
    for port in 8003 8004 8005 8006; do
        $x copy-recv $port /tmp/idle.cfg > /tmp/recv$port.log 2>&1 &
        eval "pid$port=\$!"
    done
    n=0
    until [ "$(cat /tmp/recv800[3-6].log | grep -c ^listening)" = 4 ]; do
        n=$((n + 1))
        [ $n -le 100 ] || { echo "receivers not listening"; exit 1; }
        sleep 0.1
    done
    # Host 1 waits for this before it sends.
    echo ready | socat -u - TCP-LISTEN:8001,reuseaddr
    # In the order host 1 sends them.
    for port in 8003 8004 8006 8005; do
        eval "wait \$pid$port"
        echo "recv $port: status $?"
        sed "s/^/recv $port: /" /tmp/recv$port.log
        xl list | awk "NR > 1 { print \"recv $port: \" \$1 \" \" \$5 }"
    done
    xl destroy idle || exit 1
    if xl list idle > /dev/null 2>&1; then echo still-there; exit 1; fi
    echo "copy destroyed"
    exit 0
fi
. /xenft/dom0.sh
idle_start 100
ticks 2
peer_ready
$x copy-send 77 $XENLAB_PEER:8003 2>&1
echo "unknown: status $?"
$x copy-send 1 $XENLAB_PEER:8009 2>&1
echo "refused: status $?"
$x copy-send 1 $XENLAB_PEER:8004 2000000 2>&1
echo "cut: status $?"
xl list idle | awk "NR == 2 { print \"after cut: \" \$1 \" \" \$5 }"
$x copy-send 1 $XENLAB_PEER:8006 2000000 stall 2>&1
echo "stall: status $?"
xl list idle | awk "NR == 2 { print \"after stall: \" \$1 \" \" \$5 }"
$x copy-send 1 $XENLAB_PEER:8005 2>&1
echo "copy: status $?"
xl list idle | awk "NR == 2 { print \"after copy: \" \$1 \" \" \$5 }"
lines=$(idle_ticked)
ticks $((lines + 3))
# The last whole line: the guest may be half-way through the next.
head -n "$(wc -l < /tmp/idle.log)" /tmp/idle.log | tail -n 1
xl destroy idle || exit 1
if xl list idle > /dev/null 2>&1; then echo still-there; exit 1; fi
echo "primary destroyed"
'
expect_status 0
peer='10\.99\.0\.2:'
expect_lines '^ticking: 2 lines$' \
    "^xlft-xen: domain 77 does not exist: no copy for $peer"8003'$' \
    '^unknown: status 1$' \
    "^xlft-xen: domain 1: cannot connect to ${peer}8009: Connection refused" \
    '^refused: status 1$' \
    "^xlft-xen: domain 1: the live copy to ${peer}8004 failed " \
    "^xlft-xen: domain 1: $peer"'8004 made no copy' \
    '^cut: status 1$' '^after cut: idle [-rb]+$' \
    "^xlft-xen: domain 1: the live copy to ${peer}8006 failed " \
    '^stall: status 1$' '^after stall: idle [-rb]+$' \
    '^recv 8006: xlft-xen: copy of domain 1 from 10\.99\.0\.1:[0-9]+: '\
'restore failed \(the stream stalled; libxl error -?[0-9]+, its messages '\
'above\); nothing kept$' \
    '^recv 8006: status 1$' \
    '^copy: domain 1 suspended, the copy consistent$' \
    "^copy: domain 1 sent to ${peer}8005, running on$" \
    "^copy: domain 1 is domain [0-9]+ on ${peer}8005$" \
    '^copy: status 0$' '^after copy: idle [-rb]+$' \
    '^ticking: [0-9]+ lines$' '^primary destroyed$' \
    '^recv 8003: xlft-xen: no copy stream from 10\.99\.0\.1:[0-9]+: closed' \
    '^recv 8003: status 1$' \
    '^recv 8004: xlft-xen: copy of domain 1 from 10\.99\.0\.1:[0-9]+: '\
'restore failed \(libxl error -?[0-9]+, its messages above\); '\
'nothing kept$' \
    '^recv 8004: status 1$' \
    '^recv 8005: copy: domain [0-9]+ from 10\.99\.0\.1:[0-9]+, paused$' \
    '^recv 8005: status 0$' '^recv 8005: idle --p---$' \
    '^copy destroyed$'
# Nothing but the paused copy on host 2 after the failed ones.
grep -q '^recv 800[346]: idle ' "$out" && fail "a failed copy was left"
grep -q 'cannot be resumed' "$out" && fail "the primary was not resumed"
grep -q '^recv 8005: idle ' "$out" || fail "no copy on host 2"
exit 0
