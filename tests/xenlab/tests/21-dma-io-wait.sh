#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 21-dma-io-wait.sh - on the hypervisor built from xen-patches (skipped
# without it), DMA written by a device model while the vCPU waits for it
# is all logged, however much: the idle guest's device model (QEMU) is
# stopped until the vCPU blocks on a port access to it; then 40 writes
# of 4 KiB to separate pages go through XEN_DMOP_ft_write, 160 KiB in a
# record ring of 128 KiB.  Once QEMU goes on, every write comes out of
# the ring whole, as a DMA record with its bytes, and recording does not
# stop.
. "$(dirname "$0")/../testlib.sh"

patched_image
lab_put tests/xlft-xen guests/idle.bin
lab --xen "$image" -- '
. /xenft/dom0.sh
idle_start 1000 fit
ticks 1
dm=$(xenstore-read /local/domain/1/image/device-model-pid)
echo "device model: ${dm:-none}"
/xenft/xlft-xen --unsafe-no-counter dma-wait 1 0x1000000 "$dm"
echo "dma-wait=$?"
ticks $(($(idle_ticked) + 2))
echo "guest ticks on"
xl destroy idle
'
expect_status 0
expect_lines '^device model: [0-9]+$' \
    '^dma-wait: no record for 1 s after [0-9]+$' \
    '^dma-wait: 40 DMA records, 163840 bytes, as written, in a ring of '\
'131072$' \
    '^dma-wait: status stopped 0$' '^dma-wait=0$' '^guest ticks on$'
