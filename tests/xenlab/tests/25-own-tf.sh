#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 25-own-tf.sh - on the hypervisor built from xen-patches (skipped
# without it), a guest recorded with the step counter that sets TF
# itself, as a debugger single-stepping does, stops FT with a reason and
# still gets its own trap where the CPU owes it.  The idle guest sets TF
# after 200 ticks, once by POPF (popftf=), once by an IRET whose frame
# holds it (iretf=), and prints where the trap is due; a third run arms
# an instruction breakpoint in DR0 and DR7 instead (drbp=).  Each time
# Xen stops recording (-EDOM, 33) naming what the guest did; once
# recording is off the guest runs on and takes exception 1 at that very
# address.  The step counter's own TF, replaced by the one IRET pops,
# used to be taken for FT's and cleared: the guest then said "no trap
# came".
. "$(dirname "$0")/../testlib.sh"

patched_image
lab_put tests/xlft-xen guests/idle.bin
lab --xen "$image" -- '
. /xenft/dom0.sh
for how in popftf iretf drbp; do
    fit_cfg idle idle.bin "hz=50 report=25 $how=200"
    xl create /tmp/idle.cfg || exit 1
    ticks 1
    /xenft/xlft-xen --steps records "$(xl domid idle)" 100000000 120 \
        > /tmp/rec.txt
    echo "$how: records=$?"
    sed -n "s/^status: seq [0-9]* /$how: /p" /tmp/rec.txt
    waiting 60 "trap" grep -q -e "^guest: exception" -e "no trap" \
        /tmp/idle.log
    due=$(sed -n "s/^idle: .*, its trap due at //p" /tmp/idle.log)
    took=$(sed -n "s/^guest: exception 1 at //p" /tmp/idle.log)
    grep "no trap came" /tmp/idle.log
    echo "$how: trap due at $due, taken at $took"
    [ -n "$due" ] && [ "$due" = "$took" ] && echo "$how: trap where due"
    xl dmesg | grep -o "FT: recording stopped at step [0-9]*: .*" |
        tail -n 1 | sed "s/^/$how: /"
    xl destroy idle
    xl dmesg -c > /dev/null
done
'
expect_status 0
for how in popftf iretf drbp; do
    expect_lines "^$how: records=0\$" "^$how: stopped -33\$" \
        "^$how: trap where due\$"
done
expect_lines \
    '^popftf: FT: recording stopped at step [0-9]+: the guest set TF itself \(POPF\)$' \
    '^iretf: FT: recording stopped at step [0-9]+: the guest set TF itself \(IRET\)$' \
    '^drbp: FT: recording stopped at step [0-9]+: the guest armed a debug register or set TF itself$'
exit 0
