#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# build-image.sh - from the root file system of build-root.sh, what QEMU
# boots: dom0.img (ext4 made with mkfs.ext4 -d, sparse, ~2 GB free for
# HVM save files), initrd.gz (static busybox, the virtio and ext4
# drivers), vmlinuz, and the hypervisors gunzipped (QEMU's multiboot
# loader takes Xen's 32-bit ELF): xen-debian, xen-4.17.5.  Rebuilt only
# when the root file system or these scripts change (image.stamp).
set -eu
. "$(dirname "$0")/lib.sh"

FREE_MB=2048
# Drivers the initramfs needs to reach the root disk.
INITRD_MODULES="virtio_pci virtio_blk ext4"

xl_need_root
xl_need_tools mkfs.ext4 cpio gzip chroot readelf
busybox=$(command -v busybox) ||
    xl_die $XL_SKIP "cannot run here: busybox (busybox-static) is missing"
# The initramfs has no libc: busybox must not need a program interpreter.
! readelf -l "$busybox" | grep -q INTERP ||
    xl_die $XL_SKIP "cannot run here: $busybox is not static" \
        "(install busybox-static)"
root=$XL_OUT/root
[ -f "$XL_OUT/root.stamp" ] ||
    xl_die $XL_EFAIL "no root file system: run build-root.sh first"
key=$(xl_key "$XL_OUT/root.stamp" "$0" "$XL_SRC/dom0-init.sh" \
    "$XL_SRC/initramfs-init.sh" "$busybox")
[ "$(cat "$XL_OUT/image.stamp" 2>/dev/null)" = "$key" ] && exit 0
rm -f "$XL_OUT/image.stamp"

set -- "$root"/lib/modules/*
[ $# = 1 ] || xl_die $XL_EFAIL "expected one kernel in $root, found: $*"
kver=${1##*/}

install -m 755 "$XL_SRC/dom0-init.sh" "$root/sbin/xenlab-init"
mkdir -p "$root/lab" "$root/xenft"
echo xenlab > "$root/etc/hostname"

work=$(mktemp -d "$XL_OUT/image.XXXXXX")
trap 'rm -rf "$work"' EXIT

# initramfs: busybox, /init, the modules in load order.
mkdir -p "$work/initrd/bin" "$work/initrd/proc" "$work/initrd/sys" \
    "$work/initrd/dev"
cp "$busybox" "$work/initrd/bin/busybox"
install -m 755 "$XL_SRC/initramfs-init.sh" "$work/initrd/init"
# shellcheck disable=SC2086
chroot "$root" /sbin/modprobe -a -S "$kver" --show-depends $INITRD_MODULES |
    awk '$1 == "insmod" { print $2 }' > "$work/mods"
: > "$work/initrd/modules"
while read -r rel; do
    mkdir -p "$work/initrd${rel%/*}"
    cp "$root$rel" "$work/initrd$rel"
    grep -qx "$rel" "$work/initrd/modules" ||
        echo "$rel" >> "$work/initrd/modules"
done < "$work/mods"
(cd "$work/initrd" && find . | cpio -o -H newc --quiet) | gzip -1 \
    > "$work/initrd.gz"

cp "$root/boot/vmlinuz-$kver" "$work/vmlinuz"
gzip -dc "$root/boot/xen-4.17-amd64.gz" > "$work/xen-debian"
gzip -dc "$XL_OUT/xen-4.17.5.gz" > "$work/xen-4.17.5"

mb=$(du -sm "$root" | cut -f1)
truncate -s "$((mb + FREE_MB))M" "$work/dom0.img"
mkfs.ext4 -q -F -L xenlab-dom0 -d "$root" "$work/dom0.img"

for f in dom0.img initrd.gz vmlinuz xen-debian xen-4.17.5; do
    mv "$work/$f" "$XL_OUT/$f"
done
echo "$key" > "$XL_OUT/image.stamp"
xl_log "dom0 image ready ($((mb + FREE_MB)) MB, kernel $kver)"
