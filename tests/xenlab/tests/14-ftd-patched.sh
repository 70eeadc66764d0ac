#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 14-ftd-patched.sh - ftd with its xen backend on the hypervisor built
# from xen-patches (skipped without it, as 11): protecting the idle guest
# (fit for FT: one vCPU, shadow paging, emulated TSC, RDRAND and RDSEED
# hidden, no PV devices), the primary copies it through libxl, enables
# recording (--unsafe-no-counter: the lab's CPU has no branch counter),
# maps the ring and binds its event channel, and sends the records the
# secondary acknowledges; the secondary restores the copy and asks Xen
# to replay, which the lab's AMD CPU cannot: it says so and destroys the
# copy; the primary, alone, disables recording cleanly and the guest
# ticks on.  Both ftds run in one dom0 over
# loopback, with a long heartbeat timeout.
. "$(dirname "$0")/../testlib.sh"

image=$XL_OUT/xen-patched.gz
if [ ! -f "$image" ]; then
    echo "SKIP: no $image (xen-patches/verify.sh XEN-TREE builds it)"
    exit 77
fi
lab_put bin/ftd guests/idle.bin tests/xlft-xen
lab --xen "$image" --timeout 400 -- '
. /xenft/dom0.sh
idle_start 100 fit
ticks 2
ft_setup
opts="$opts --timeout 600000"
ft_secondary 300
timeout -k 5 300 /xenft/ftd primary $opts --host-name hostA --guest idle \
    --unsafe-no-counter --peer 127.0.0.1:7801 > /tmp/p.log 2>&1
echo "primary: status $?"
wait $sec
echo "secondary: status $?"
sed "s/^/primary: /" /tmp/p.log | head -n 20
sed "s/^/secondary: /" /tmp/s.log | head -n 20
/xenft/xlft-xen ft-status 1
echo "state=$(xenstore-read /libxl/1/ft/state)"
xl list | awk "NR > 1 { print \"domain \" \$1 \" \" \$5 }"
lines=$(idle_ticked)
ticks $((lines + 2))
xl destroy idle
'
expect_status 0
expect_lines '^ticking: 2 lines$' \
    '^primary: ftd: domain 1: recording into a ring of [0-9]+ frames '\
'\(no branch counter: unsafe\), event channel [1-9][0-9]* bound to dom0 '\
'port [0-9]+$' \
    '^primary: ftd: primary idle \(peer 127\.0\.0\.1:7801\): secondary '\
'created \([0-9]+ bytes of state\), protected$' \
    '^secondary: ftd: the copy from 127\.0\.0\.1:[0-9]+ is domain [0-9]+, '\
'paused$' \
    '^secondary: ftd: secondary idle \(peer .*\): domain [0-9]+: this '\
'host cannot replay: replay needs Intel VT-x' \
    '^primary: ftd: primary idle \(peer .*\): secondary lost: running '\
'unprotected$' \
    '^primary: ftd: pair=idle role=primary state=live gen=[0-9]+ '\
'sent=[1-9][0-9]* acked=[1-9][0-9]* ' \
    '^primary: status 0$' '^secondary: status 1$' \
    '^state off frames 0 port 0 ' '^domain idle [-rb]+$' \
    '^ticking: [0-9]+ lines$'
grep -q '^domain idle--secondary ' "$out" && fail "the copy was left"
[ "$(grep -c '^domain idle ' "$out")" = 1 ] || fail "not one idle domain"
exit 0
