#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
#
# initramfs-init.sh - /init of the lab's initramfs (static busybox): load
# the drivers for the virtio root disk, mount it, hand over to dom0's init.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
while read -r m; do
    insmod "$m" || echo "initramfs: cannot load $m"
done < /modules
# The disk appears once virtio-blk has probed it: wait at most 30 s.
n=0
while [ ! -b /dev/vda ] && [ $n -lt 300 ]; do
    sleep 0.1
    n=$((n + 1))
done
mkdir -p /newroot
if ! mount -t ext4 /dev/vda /newroot; then
    echo "initramfs: cannot mount /dev/vda; XENLAB-DONE 125"
    poweroff -f
fi
umount /proc /sys /dev
exec switch_root /newroot /sbin/xenlab-init
