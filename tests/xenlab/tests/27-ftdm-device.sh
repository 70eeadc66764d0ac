#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 27-ftdm-device.sh - on the hypervisor built from xen-patches (skipped
# without it), ftdm serves a guest its virtio-net function from its own
# ioreq server: the nettx guest, created paused, finds the function where
# ftdm put it once unpaused (hvmloader placed its BAR, the guest's driver
# reads its capabilities and negotiates through the BAR), and sends 40
# frames of 100 bytes, more than its transmit ring holds: it waits for
# the device to give buffers back, which ftdm writes into its used ring
# through Xen's FT DMA op, and signals with MSI-X messages that Xen
# delivers.  When the guest is destroyed, ftdm sees it go and ends by
# itself, saying what the guest sent and how many MSIs it raised.
#
#   +---------------- QEMU: Xen host ----------------+
#   | nettx (HVM, paused)  <-- config, BAR, MSI-X -- |
#   |   QEMU: its platform   ftdm: virtio-net 00:05.0|
#   +-----------------------------------------------+
. "$(dirname "$0")/../testlib.sh"

patched_image
lab_put bin/ftdm guests/nettx.bin
lab --xen "$image" -- '
. /xenft/dom0.sh
fit_cfg nettx nettx.bin "count=40 size=100 every=10"
xl create -p /tmp/nettx.cfg || exit 1
dom=$(xl domid nettx)
timeout -k 5 300 /xenft/ftdm $dom > /tmp/dm.log 2>&1 &
dm=$!
waiting 30 "ftdm serving" grep -q "serving$" /tmp/dm.log ||
    { cat /tmp/dm.log; exit 1; }
xl unpause nettx
waiting 120 "the guest sending its frames" grep -q "^nettx: done" \
    /tmp/nettx.log
sed "s/^/guest: /" /tmp/nettx.log
xl destroy nettx
waiting 30 "ftdm ending with the guest" sh -c "! kill -0 $dm 2>/dev/null"
wait $dm
echo "ftdm exit=$?"
sed "s/^/dm: /" /tmp/dm.log
'
expect_status 0
expect_lines \
    '^dm: ftdm: domain [0-9]+: virtio-net at 00:05.0, MAC '\
'00:16:3e:46:54:01, no network backend; serving$' \
    '^guest: nettx: sending$' '^guest: nettx: 40 frames sent$' \
    '^guest: nettx: done$' '^ftdm exit=0$' \
    '^dm: ftdm: domain [0-9]+: stopped \(the domain is gone\); the guest '\
'sent 40 frames \(4000 bytes\), dropped: no network backend; '\
'[1-9][0-9]* MSIs raised; 0 accesses refused$'
exit 0
