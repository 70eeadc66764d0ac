#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 20-hlt-wake.sh - on the hypervisor built from xen-patches (skipped
# without it), a vCPU that goes on past HLT without an event is logged:
# dom0 sends the idle guest an MSI of vector 0x27, which it takes as its
# IRQ 7 and acknowledges to its PIC alone, so that the vector stays in
# service in its local APIC; then others of the same priority class,
# one of which wakes the vCPU from HLT with nothing to take (each wakes
# it once, if it is in HLT rather than busy or waiting for QEMU).  Xen's
# record ring then holds a HLT_WAKE record (without it, a copy halted
# there would wait for an event that never comes, and diverge).  None
# before: a wake-up by an interrupt is logged as the interrupt.
# The guest ticks at 10 Hz and reports every 5 s, so as to be in HLT
# most of the time.  Recording goes on, and so do its ticks, which come
# through the PIC.
. "$(dirname "$0")/../testlib.sh"

patched_image
lab_put tests/xlft-xen guests/idle.bin
lab --xen "$image" -- '
. /xenft/dom0.sh
idle_start "10 report=50" fit
ticks 1
/xenft/xlft-xen --unsafe-no-counter hlt-wake 1
echo "hlt-wake=$?"
ticks $(($(idle_ticked) + 2))
echo "guest ticks on"
xl destroy idle
'
expect_status 0
pt='at count 0 rip 0x[0-9a-f]+ rcx 0x[0-9a-f]+'
expect_lines '^hlt-wake: [0-9]+ records, 0 of them HLT_WAKE, before the MSI$' \
    '^hlt-wake: interrupt 0x27 taken, 0 HLT_WAKE$' \
    "^record halt wake-up $pt\$" \
    '^hlt-wake: after [0-9]+ MSIs of the class in service$' \
    '^hlt-wake: status stopped 0$' \
    '^hlt-wake=0$' '^guest ticks on$'
