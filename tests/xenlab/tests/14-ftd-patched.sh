#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 14-ftd-patched.sh - ftd with its xen backend on the hypervisor built
# from xen-patches (skipped without it, as 11): a primary that would
# record the idle guest (fit for FT: one vCPU, shadow paging, emulated
# TSC, RDRAND and RDSEED hidden, no PV devices) without a counter
# (--unsafe-no-counter) meets a secondary whose Xen replays by counting
# steps, as the lab's AMD CPU does: the handshake refuses the pair,
# naming both counts, before anything is copied or recorded; both ftds
# end, nothing is left on, no copy exists and the guest ticks on.  Then
# a pair that both ask for branches (--counter branches) agree, and Xen
# refuses to record on AMD, saying why; the guest runs on unprotected.
# Both ftds run in one dom0 over loopback.
. "$(dirname "$0")/../testlib.sh"

patched_image
lab_put bin/ftd guests/idle.bin tests/xlft-xen
lab --xen "$image" --timeout 400 -- '
. /xenft/dom0.sh
idle_start 100 fit
ticks 2
ft_setup
opts="$opts --timeout 600000"
# pair_try PREFIX PRIMARY-OPTION SECONDARY-OPTION...: a pair run to its
# end, both statuses and logs and the FT status of idle printed after
# PREFIX.
pair_try() {
    pt_pre=$1 pt_opt=$2
    shift 2
    ft_secondary 300 "$@"
    timeout -k 5 300 /xenft/ftd primary $opts --host-name hostA \
        --guest idle $pt_opt --peer 127.0.0.1:7801 > /tmp/p.log 2>&1
    echo "${pt_pre}primary: status $?"
    wait $sec
    echo "${pt_pre}secondary: status $?"
    sed "s/^/${pt_pre}primary: /" /tmp/p.log | head -n 20
    sed "s/^/${pt_pre}secondary: /" /tmp/s.log | head -n 20
    /xenft/xlft-xen ft-status 1 | sed "s/^/$pt_pre/"
}
pair_try "" --unsafe-no-counter
echo "state=$(xenstore-read /libxl/1/ft/state)"
pair_try "branches " "--counter branches" --counter branches
xl list | awk "NR > 1 { print \"domain \" \$1 \" \" \$5 }"
lines=$(idle_ticked)
ticks $((lines + 2))
xl destroy idle
'
expect_status 0
expect_lines '^ticking: 2 lines$' \
    '^primary: ftd: primary idle \(peer 127\.0\.0\.1:7801\): no handshake: '\
'the peer ended the connection \(configuration error\): "the primary.s log '\
'counts none on AMD, the secondary.s replay steps on AMD: ' \
    '^secondary: ftd: secondary idle \(peer 127\.0\.0\.1:[0-9]+\): no '\
'handshake: the primary.s log counts none on AMD, the secondary.s replay '\
'steps on AMD: a log replays only where the same is counted' \
    '^primary: status 1$' '^secondary: status 1$' \
    '^state off frames 0 port 0 ' '^state=error$' '^domain idle [-rb]+$' \
    '^branches primary: ftd: .*domain 1: this host cannot record exactly: '\
'its CPU has no usable branch counter \(AMD' \
    '^branches primary: status 1$' '^branches state off frames 0 port 0 ' \
    '^ticking: [0-9]+ lines$'
grep -q 'recording into' "$out" && fail "recording started"
grep -q '^domain idle--secondary ' "$out" && fail "the copy was left"
[ "$(grep -c '^domain idle ' "$out")" = 1 ] || fail "not one idle domain"
exit 0
