#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 15-records.sh - on the hypervisor built from xen-patches (skipped
# without it, as in CI), records flow: the project's idle guest runs as
# a shadow-paging HVM guest with its TSC emulated and RDRAND/RDSEED
# hidden; libxlft's xen backend enables recording, maps the ring, binds
# its event channel and reads records as Xen wakes it (the PIT's ticks
# marked as a timer's, for a copy to do what the timer did).  The lab's
# emulated AMD CPU has no branch counter: Xen refuses to record until
# asked for points without a count (--unsafe-no-counter), and says so in
# its log.  Then the ring, of the least size, is left unread: Xen holds
# the guest until it is drained, loses nothing, and recording goes on.
# DMA as a device model does it (XEN_DMOP_ft_write): while the ring is
# full, refused (-EBUSY) once libxlft has tried for 5 s, nothing
# written; once it is read, the bytes land in the guest and come out of
# the ring as a DMA record.  Replay needs VT-x: Xen refuses it on a
# running domain, and on the lab's AMD CPU.  The guest keeps ticking
# once recording is off.
. "$(dirname "$0")/../testlib.sh"

patched_image
lab_put tests/xlft-xen guests/idle.bin
lab --xen "$image" -- '
. /xenft/dom0.sh
idle_start 1000 fit
ticks 1
/xenft/xlft-xen records 1 1000 30
echo "safe=$?"
/xenft/xlft-xen --unsafe-no-counter records 1 3000 60
echo "unsafe=$?"
/xenft/xlft-xen --unsafe-no-counter records 1 40000 120 90 > /tmp/stall.txt
echo "stall=$?"
sed -n "s/^\(stalled\|records\|status\): /stall &/p" /tmp/stall.txt
xl dmesg | grep -o "FT: .*recorded without a branch counter.*" | head -n 1
/xenft/xlft-xen --unsafe-no-counter dma 1 0x1000000
echo "dma=$?"
/xenft/xlft-xen replay 1
echo "replay-running=$?"
xl pause idle
/xenft/xlft-xen replay 1
echo "replay-paused=$?"
xl unpause idle
ticks $(($(idle_ticked) + 2))
echo "guest ticks on"
xl destroy idle
'
expect_status 0
pt='at count 0 rip 0x[0-9a-f]+ rcx 0x[0-9a-f]+'
expect_lines '^xlft-xen: domain 1: this host cannot record exactly: its CPU' \
    '^safe=1$' '^enabled: counter none$' \
    "^record external interrupt $pt: vector 0x20 from the PIC, a timer's \
tick\$" \
    "^record TSC read $pt: 0x[0-9a-f]+\$" \
    "^record port read $pt: port 0x3fd size 1 = 0x" \
    '^records: [3-9][0-9]{3} \([0-9]+ bytes\) in [0-9]+ ms:' \
    '^records: .* external interrupt [1-9]' '^records: .* TSC read [1-9]' \
    '^records: .* port read [1-9]' '^status: seq [0-9]+ stopped 0$' \
    '^disabled$' '^unsafe=0$' 'recorded without a branch counter' \
    '^stall stalled: after [0-9]+ ms, [0-9]+ of 131072 bytes in the ring$' \
    '^stall records: [4-9][0-9]{4} ' '^stall status: seq [0-9]+ stopped 0$' \
    '^stall=0$' '^guest ticks on$' \
    '^xlft-xen: domain 1: replay needs the copy paused before it ever ran' \
    '^replay-running=1$' '^replay-paused=1$' '^dma=0$' \
    '^dma: ring full: domain 1: DMA write of 256 bytes at 0x1000000: the '\
'FT record ring stayed full for 5 s \(is ftd draining it\?\); nothing '\
'written$' '^dma: nothing written$' \
    '^dma: record [0-9]+, 256 bytes at 0x1000000, as written$' \
    '^dma: in the guest.s memory$' '^dma: FT off, written at once$' \
    '^xlft-xen: domain 1: this host cannot replay: replay needs Intel VT-x'
