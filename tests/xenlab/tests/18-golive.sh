#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 18-golive.sh - on the hypervisor built from xen-patches (skipped
# without it), the promise itself: host 1 dies and host 2 goes on with
# nothing lost.  The idle guest (20 Hz, a line every 5 ticks) is
# recorded with the step counter on host 1 and replayed on host 2, the
# arbiter an etcd on host 2.  After 20000 steps and 4 lines protected,
# host 1 cuts its network without a word, kills ftd -KILL and destroys
# its guest (dom0.sh, golive_primary).  Host 2 must hear the silence,
# win the arbiter, replay what it holds and go live (golive_copy); the
# guest's ticks then go on there for 5 lines more.  Its console must
# repeat every line host 1 wrote since the copy, identically (same tick,
# same TSC), and continue them with no tick line lost, repeated or out
# of order, its TSC still rising (expect_golive).  Once protected, dom0
# sends the guest an MSI of vector 0x27, on which it arms its local
# APIC's timer once, one-shot, for 10 ms (oneshot=1): one interrupt on
# the primary.  The copy's timer, armed as it replays the guest's write,
# must end with that tick of the log, or it would fire a second time once
# live; so every line the copy writes live shows one.  Measured: how
# long from host 1's death to the copy live.
#
#   +---- QEMU: Xen host 1 ----+  one network   +---- QEMU: Xen host 2 ----+
#   | idle, recorded (steps)   |                | its copy, replayed       |
#   | ftd primary ------------ +-- records -->  + ftd secondary :7801      |
#   |        claims ---------- +--------------> + etcd :2379 (arbiter)     |
#   | "died at ..." ---------- +--- :8002 ----> + the silence, then live   |
#   | eth0 down, ftd killed    |                | ticks on: 5 lines        |
#   +--------------------------+                +--------------------------+
. "$(dirname "$0")/../testlib.sh"

patched_image
if ! etcd=$(command -v etcd); then
    echo "SKIP: no etcd here (Debian's etcd-server; make check-xen" \
        "installs it)"
    exit 77
fi
lab_put bin/ftd guests/idle.bin tests/xlft-xen
sh "$XL_SRC/put.sh" "$etcd" || fail "cannot put $etcd"
put_key
lab --hosts 2 --xen "$image" --timeout 540 -- '
. /xenft/dom0.sh
golive_opts
fit_cfg idle idle.bin "hz=20 report=5 oneshot=1"
if [ "$XENLAB_HOST" = 2 ]; then
    golive_copy idle 5
    exit 0
fi
xl create /tmp/idle.cfg || exit 1
ticks 2
peer_ready
golive_primary idle 20000 4 "/xenft/xlft-xen msi 1 39"
'
expect_status 0
expect_lines '^primary: ftd: domain [0-9]+: recording into a ring of [0-9]+ '\
'frames \(counting steps\)' \
    '^host 1: died at seq [0-9]+ count [0-9]+ after [0-9]+ lines$' \
    '^secondary: ftd: .*peer lost' '^secondary: ftd: .*live at record' \
    '^live [0-9]+ ms after host 1 died$' '^ticking live: 5 lines$'
expect_golive 5
# The one-shot: taken once on the primary before it died, and once on
# the copy, however long it lived.
awk '
/^primary console: idle: [0-9]+ one-shot timer interrupts$/ { p = $4 }
/^copy console: idle: [0-9]+ one-shot timer interrupts$/ { n++; c = $4 }
END {
    if (p != 1) {
        print "FAIL: the primary took " p + 0 " one-shot timer" \
            " interrupts before it died, not 1"
        exit 1
    }
    if (c != 1) {
        print "FAIL: the copy took " c + 0 " one-shot timer interrupts" \
            " by its last line, the primary 1"
        exit 1
    }
    print "one-shot: taken once on the primary, once on the copy (" n \
        " lines)"
}' "$out" || exit 1
exit 0
