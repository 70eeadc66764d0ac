#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# qemu.sh XEN HOSTDIR N HOSTS - one emulated Xen host: QEMU's software
# emulation (TCG) of an AMD CPU with SVM and nested paging, Xen booted by
# QEMU's multiboot loader with dom0's kernel and initramfs as modules.
# Disks: vda the dom0 image (writes kept apart: snapshot=on), vdb
# HOSTDIR/cmd.img (the command and its results), vdc HOSTDIR/put.img if
# present (mounted at /xenft).  With HOSTS=2, host N talks to the other
# over a UDP socket on loopback (run.sh gives them a network namespace),
# and both have HOSTDIR/../shared.img, the storage they share (serial
# xenlab-shared, in a slot after the others so that it comes last;
# dom0.sh's shared_disk names it).
# The serial console (Xen's and dom0's) goes to HOSTDIR/serial.
# Guests' debug output (hvmloader, SeaBIOS) shows in `xl dmesg`.
# XENLAB_MEM sets the host's RAM in MB (default 2048), XENLAB_XEN_ARGS
# adds to Xen's command line (e.g. guest_loglvl=all, hap=0).
set -eu
. "$(dirname "$0")/lib.sh"

xen=$1 dir=$2 n=$3 hosts=$4
mem=${XENLAB_MEM:-2048}

# Three CPU features off, each a TCG problem (xenlab-notes.md): SMAP
# kills the PV dom0 at its first exception, MONITOR/MWAIT takes #GP in
# Xen's idle loop, RDTSCP intercepts cannot be decoded by Xen.
cpu=EPYC,+svm,+npt,-smap,-monitor,-rdtscp
# One host gets both cores; two hosts share them.
smp=$((hosts > 1 ? 1 : 2))

set -- -accel tcg,thread=multi -machine q35 -cpu "$cpu" -smp "$smp" \
    -m "$mem" -nodefaults -display none -no-reboot -monitor none \
    -serial "file:$dir/serial" \
    -kernel "$xen" \
    -append "console=com1 com1=115200,8n1 dom0_mem=1024M,max:1024M \
dom0_max_vcpus=1 noreboot guest_loglvl=all ${XENLAB_XEN_ARGS:-}" \
    -initrd "$XL_OUT/vmlinuz root=/dev/vda console=hvc0 \
earlyprintk=xen,$XL_OUT/initrd.gz" \
    -drive "file=$XL_OUT/dom0.img,if=virtio,format=raw,snapshot=on" \
    -drive "file=$dir/cmd.img,if=virtio,format=raw"
if [ -f "$dir/put.img" ]; then
    set -- "$@" -drive "file=$dir/put.img,if=virtio,format=raw,snapshot=on"
fi
if [ "$hosts" -gt 1 ]; then
    set -- "$@" -drive "file=$dir/../shared.img,if=none,id=sh,format=raw,\
file.locking=off" \
        -device "virtio-blk-pci,drive=sh,serial=xenlab-shared,share-rw=on,\
addr=0x10" \
        -netdev "socket,id=n0,udp=127.0.0.1:$((10000 + 3 - n)),\
localaddr=127.0.0.1:$((10000 + n))" \
        -device "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:0$n"
else
    set -- "$@" -nic none
fi
# QEMU puts the snapshot overlays in TMPDIR.
TMPDIR=$dir exec qemu-system-x86_64 "$@"
