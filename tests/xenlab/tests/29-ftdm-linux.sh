#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 29-ftdm-linux.sh - on the hypervisor built from xen-patches (skipped
# without it), a Debian kernel runs as an FT guest on ftdm's devices:
# the lab's own kernel and initramfs, booted by xl-ft create with nopv,
# find ftdm's virtio-blk and mount their root from it (an ext4 image
# made here: static busybox, virtio_net and its modules, an init that
# brings up eth0), and ftdm's virtio-net on a tap in dom0.  The boot's
# length is printed.  Unprotected, dom0 pings the guest; recorded (Xen
# lab: no counter), with xlft-xen ack-hold acknowledging every record,
# the pings are answered through the output rule, and the guest's
# frames in are DMA records.
. "$(dirname "$0")/../testlib.sh"

patched_image
lab_put bin/ftdm bin/xl-ft tests/xlft-xen xenlab/vmlinuz xenlab/initrd.gz
command -v busybox > /dev/null || fail "no busybox here (busybox-static)"
# The lab's dom0 has no ping of its own: busybox's, static, is put there.
cp "$(command -v busybox)" "$own_put/busybox"
rootfs=$(mktemp -d)
trap 'rm -rf "$out" "$rootfs" "$own_put"' EXIT
mkdir -p "$rootfs/bin" "$rootfs/sbin" "$rootfs/lib" "$rootfs/proc" \
    "$rootfs/sys" "$rootfs/dev"
cp "$(command -v busybox)" "$rootfs/bin/busybox"
for m in net/core/failover drivers/net/net_failover drivers/net/virtio_net
do
    cp "$XL_OUT"/root/lib/modules/*/kernel/$m.ko "$rootfs/lib/" ||
        fail "no $m.ko in the lab's root file system"
done
cat > "$rootfs/sbin/xenlab-init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
up() { cut -d" " -f1 /proc/uptime; }
echo "linux guest: root $(grep " / " /proc/mounts | cut -d" " -f1-3)" \
    "at $(up) s"
for m in failover net_failover virtio_net; do
    insmod /lib/$m.ko || echo "linux guest: cannot load $m"
done
n=0
while ! ip link show eth0 > /dev/null 2>&1 && [ $n -lt 300 ]; do
    sleep 0.1
    n=$((n + 1))
done
echo "linux guest: clock $(cat \
    /sys/devices/system/clocksource/clocksource0/current_clocksource)"
ip link set eth0 up && ip addr add 10.77.0.2/24 dev eth0 &&
    echo "linux guest: eth0 10.77.0.2 at $(up) s"
while :; do
    sleep 3600
done
EOF
chmod 755 "$rootfs/sbin/xenlab-init"
truncate -s 32M "$own_put/lxroot.img"
mkfs.ext4 -q -F -d "$rootfs" "$own_put/lxroot.img" ||
    fail "cannot make the guest's root file system"

lab --xen "$image" --timeout 1500 -- '
. /xenft/dom0.sh
on_exit() {
    [ $? = 0 ] && return
    for f in /tmp/dm.log /tmp/ah.log /tmp/lx.log; do
        [ -f $f ] && tail -n 40 $f | sed "s|^|$f: |"
    done
    xl dmesg | tail -n 20 | sed "s/^/xen: /"
}
trap on_exit EXIT
cp /xenft/lxroot.img /tmp/lxroot.img
# noxsave: seen here, the init of the guest (static busybox) took #UD
# on an AVX instruction of the string code of glibc, and the kernel
# panicked; without XSAVE, glibc keeps to SSE2.
fit_cfg lx vmlinuz "console=ttyS0 noxsave"
sed -i "s/^memory = .*/memory = 256/" /tmp/lx.cfg
printf "%s\n" "ramdisk = \"/xenft/initrd.gz\"" "ftdm_tap = \"ftlx\"" \
    "ftdm_disk = \"/tmp/lxroot.img\"" >> /tmp/lx.cfg
t0=$(date +%s)
/xenft/xl-ft create /tmp/lx.cfg > /tmp/create.log || exit 1
cat /tmp/create.log
ln -sf "$(sed -n "s/.*, its log //p" /tmp/create.log)" /tmp/dm.log
ip addr add 10.77.0.1/24 dev ftlx
waiting 1200 "Linux up" grep -q "^linux guest: eth0" /tmp/lx.log
echo "linux boot: $(($(date +%s) - t0)) s from xl-ft create"
grep "^linux guest" /tmp/lx.log
/xenft/busybox ping -c 2 -W 60 10.77.0.2 > /tmp/ping0.txt &&
    echo "unprotected: answered"
dom=$(xl domid lx)
mkfifo /tmp/ah.in
timeout -k 5 600 /xenft/xlft-xen --unsafe-no-counter ack-hold $dom 590 \
    < /tmp/ah.in > /tmp/ah.log 2>&1 &
ah=$!
exec 3> /tmp/ah.in
waiting 30 "recording" grep -q "^ack-hold: recording" /tmp/ah.log
echo auto >&3
t0=$(date +%s)
/xenft/busybox ping -c 3 -W 120 10.77.0.2 > /tmp/ping1.txt
echo "recorded: $(grep -c "bytes from 10.77.0.2" /tmp/ping1.txt) answers" \
    "in $(($(date +%s) - t0)) s"
echo stats >&3
waiting 10 "stats" grep -q "DMA" /tmp/ah.log
echo end >&3
exec 3>&-
wait $ah
echo "ack-hold exit=$?"
sed "s/^/ah: /" /tmp/ah.log
xl dmesg | grep -o "FT: d[0-9]*: .*" | sort | uniq -c | sed "s/^/xen: /"
xl destroy lx
dm=$(pgrep -x ftdm)
[ -z "$dm" ] || waiting 30 "ftdm ending with the guest" \
    sh -c "! kill -0 $dm 2>/dev/null"
sed "s/^/dm: /" /tmp/dm.log
'
expect_status 0
expect_lines '^linux boot: [0-9]+ s from xl-ft create$' \
    '^linux guest: root /dev/vda / ext4 at ' \
    '^linux guest: eth0 10.77.0.2 at ' '^unprotected: answered$' \
    '^recorded: 3 answers in [0-9]+ s$' '^ack-hold exit=0$' \
    '^ah: ack-hold: [0-9]+ records, [1-9][0-9]* DMA' \
    '^dm: ftdm: domain [0-9]+: stopped \(the domain is gone\); '
grep -q "^dm: .*never leave" "$out" &&
    fail "ftdm took the log ended in order for a broken one"
# nopv: Linux keeps off Xen's clock.
grep -q '^linux guest: clock xen$' "$out" &&
    fail "the guest uses Xen's PV clock despite nopv"
exit 0
