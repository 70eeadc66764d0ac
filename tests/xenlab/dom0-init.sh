#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# dom0-init.sh - dom0's init in the lab (installed as /sbin/xenlab-init;
# minbase has no systemd).  Starts the Xen daemons, sets up the network,
# runs /lab/cmd from the second disk with its output in /lab/out and its
# status in /lab/status, prints the markers run.sh waits for on the
# serial console, and powers off.
PATH=/usr/lib/xen-4.17/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH HOME=/root LC_ALL=C

say() { echo "xenlab-init: $*"; }
finish() {
    say "XENLAB-DONE $1"
    # Several hosts are stopped together by run.sh once all are done.
    if [ "${XENLAB_HOLD:-0}" = 1 ]; then
        sleep "${XENLAB_TIMEOUT:-300}"
    fi
    busybox poweroff -f
}

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs run /run
mount -t tmpfs tmp /tmp
mount -o remount,rw /
for m in xenfs xen-evtchn xen-gntdev xen-gntalloc xen-privcmd \
        xen-blkback xen-netback loop tun bridge virtio_net; do
    modprobe "$m" || say "cannot load module $m"
done
mount -t xenfs xenfs /proc/xen
mkdir -p /run/xen /run/xenstored /var/log/xen /var/lib/xen \
    /var/lib/xenstored /run/lock

mount -t ext4 /dev/vdb /lab || finish 125
. /lab/env

xenstored --pid-file=/run/xenstored.pid
n=0
until xenstore-read / >/dev/null 2>&1; do
    n=$((n + 1))
    if [ $n -gt 100 ]; then
        say "xenstored did not start"
        umount /lab
        finish 125
    fi
    sleep 0.1
done
xen-init-dom0 || say "xen-init-dom0 failed"
xenconsoled --pid-file=/run/xenconsoled.pid || say "xenconsoled failed"

hostname "xenlab$XENLAB_HOST"
ip link set lo up
ip link add xenbr0 type bridge
ip link set xenbr0 up
if [ -n "${XENLAB_IP:-}" ]; then
    ip link set eth0 master xenbr0
    ip link set eth0 up
    ip addr add "$XENLAB_IP/24" dev xenbr0
fi
if [ -b /dev/vdc ]; then
    mkdir -p /xenft
    mount -t ext4 /dev/vdc /xenft || say "cannot mount /xenft"
fi

say "XENLAB-READY"
cd /lab || finish 125
timeout -k 5 "$XENLAB_TIMEOUT" sh /lab/cmd > /lab/out 2>&1 < /dev/null
st=$?
echo $st > /lab/status
cd /
sync
umount /lab || say "cannot unmount /lab"
finish $st
