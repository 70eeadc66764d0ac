#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 26-level-refused.sh - on the hypervisor built from xen-patches (skipped
# without it), a level-triggered interrupt stops recording: it leaves
# state the copy's replay does not build (the local APIC's TMR bit, the
# I/O APIC's remote IRR), so the log stops before it rather than let a
# copy differ at go-live.  The idle guest, recorded with steps, takes one
# tick through the I/O APIC as a level-triggered interrupt after 200
# ticks (level=200), then goes back to its PIC; recording stops (-EDOM,
# 33), Xen's log names the reason, and the guest ticks on.
. "$(dirname "$0")/../testlib.sh"

patched_image
lab_put tests/xlft-xen guests/idle.bin
lab --xen "$image" -- '
. /xenft/dom0.sh
fit_cfg idle idle.bin "hz=50 report=25 level=200"
xl create /tmp/idle.cfg || exit 1
ticks 1
/xenft/xlft-xen --steps records 1 100000000 120 > /tmp/rec.txt
echo "records=$?"
sed -n "s/^status: seq [0-9]* //p" /tmp/rec.txt
waiting 60 "level interrupt" grep -q "level-triggered interrupt taken" \
    /tmp/idle.log
grep "^idle: a level" /tmp/idle.log
n=$(idle_ticked)
ticks $((n + 2))
echo "guest ticks on"
xl dmesg | grep -o "FT: recording stopped after record [0-9]*: .*" |
    tail -n 1
xl destroy idle
'
expect_status 0
expect_lines '^records=0$' '^stopped -33$' \
    '^idle: a level-triggered interrupt taken$' '^guest ticks on$' \
    '^FT: recording stopped after record [0-9]+: a level-triggered interrupt: its copy could not replay the controllers. state$'
exit 0
