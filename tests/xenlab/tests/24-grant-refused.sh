#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 24-grant-refused.sh - on the hypervisor built from xen-patches (skipped
# without it), a guest that mapped its grant table, as PV drivers do, is
# refused FT: other domains' grant operations would write that page
# behind its vCPU's back, unseen by the log.  The idle guest maps the
# first frame of its grant table at gfn 0x110000 (grantmap=, Xen answers
# 0); recording is refused, Xen's log and libxlft's message name the
# reason, nothing is recorded and the guest ticks on.
. "$(dirname "$0")/../testlib.sh"

patched_image
lab_put tests/xlft-xen guests/idle.bin
lab --xen "$image" -- '
. /xenft/dom0.sh
fit_cfg idle idle.bin "hz=50 report=25 grantmap=1114112"
xl create /tmp/idle.cfg || exit 1
ticks 1
grep "^idle: grant table" /tmp/idle.log
/xenft/xlft-xen --steps records 1 600 120
echo "records=$?"
xl dmesg | grep -o "FT: d1 refused: .*" | head -n 1
/xenft/xlft-xen ft-status 1
ticks $(($(idle_ticked) + 2))
echo "guest ticks on"
xl destroy idle
'
expect_status 0
expect_lines \
    '^idle: grant table mapped at 0x00110000, Xen answered 0x00000000$' \
    '^xlft-xen: domain 1 is unfit for recording: .*no PV interfaces in '\
'use.*Xen.s log \(xl dmesg\) says which$' '^records=1$' \
    '^FT: d1 refused: the guest mapped its grant table: it uses PV '\
'interfaces \(boot it with nopv, xen_platform_pci = 0\)$' \
    '^guest ticks on$'
exit 0
