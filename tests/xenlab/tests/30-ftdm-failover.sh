#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 30-ftdm-failover.sh - on the hypervisor built from xen-patches (skipped
# without it), the kvstore guest on ftdm's devices survives its host.
# Host 1 creates it with xl-ft (virtio-net on a tap in the hosts'
# bridge, virtio-blk on the storage both hosts share) and protects it
# with the step counter; ftd freezes ftdm while it copies the guest, and
# its devices' state goes with the copy to host 2, whose ftd starts ftdm
# for the copy from it.  A client on host 2 writes keys one at a time,
# each acknowledged only once on disk; after three, host 1 dies as a
# host does while the client writes (network cut, ftd killed, guest
# destroyed).  Host 2 must win the arbiter and go live; its ftdm then
# opens the tap and the disk, announces the guest's MAC, and the client
# goes on with the keys left.  Every key the client saw acknowledged
# must be in the live guest (GET) and on the shared disk.  Measured:
# how long from host 1's death to the copy live, and to the next key
# acknowledged.  The guest idles in `sti; hlt`, where host interrupts
# in STI's shadow once made the copy diverge (Xen series patch 14).
#
#   +---- QEMU: Xen host 1 ----+  one network   +---- QEMU: Xen host 2 ----+
#   | kvstore, recorded        |                | its copy, replayed       |
#   | ftdm: tap ftkv, disk ----+-- shared disk -+-- ftdm: the copy's       |
#   | ftd primary -------------+-- records ---> + ftd secondary, etcd      |
#   |      answers <-----------+-- xenbr0 ----- + client 10.77.0.1         |
#   +--------------------------+                +--------------------------+
. "$(dirname "$0")/../testlib.sh"

patched_image
if ! etcd=$(command -v etcd); then
    echo "SKIP: no etcd here (Debian's etcd-server; make check-xen" \
        "installs it)"
    exit 77
fi
lab_put bin/ftd bin/ftdm bin/xl-ft tests/xlft-xen guests/kvstore.bin
sh "$XL_SRC/put.sh" "$etcd" || fail "cannot put $etcd"
put_key
lab --hosts 2 --xen "$image" --timeout 540 -- '
. /xenft/dom0.sh
golive_opts
opts="--backend xen --pair kv --key /tmp/ft.key"
opts="$opts --arbiter etcd:$golive_arb --timeout 10000"
fit_cfg kv kvstore.bin "ip=10.77.0.2"
disk=$(shared_disk) || { echo "no shared disk"; exit 1; }
printf "%s\n" "ftdm_tap = \"ftkv\"" "ftdm_bridge = \"xenbr0\"" \
    "ftdm_disk = \"$disk\"" >> /tmp/kv.cfg
ms() { echo $(($(date +%s%N) / 1000000)); }

if [ "$XENLAB_HOST" = 1 ]; then
    /xenft/xl-ft create /tmp/kv.cfg > /tmp/create.log || exit 1
    ln -sf "$(sed -n "s/.*, its log //p" /tmp/create.log)" /tmp/dm.log
    waiting 180 "kv serving" grep -q "^kv: serving" /tmp/kv.log ||
        { cat /tmp/kv.log; exit 1; }
    peer_ready
    primary_protect kv
    echo "host 1: protected"
    word=$(timeout 400 socat -u TCP-LISTEN:8003,reuseaddr -)
    [ "$word" = die ] || { echo "no word to die: \"$word\""; exit 1; }
    ip link set eth0 down
    kill -KILL $pri
    xl destroy kv
    wait $pri
    echo "host 1: died"
    sed "s/^/primary: /" /tmp/p.log
    sed "s/^/primary ftdm: /" /tmp/dm.log
    grep "^kv: put" /tmp/kv.log | sed "s/^/primary console: /"
    exit 0
fi

# Host 2: the arbiter, the secondary, the client.
timeout -k 5 500 /xenft/etcd --name lab --data-dir /tmp/etcd \
    --listen-client-urls $golive_arb --advertise-client-urls $golive_arb \
    --listen-peer-urls http://127.0.0.1:2380 \
    --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster lab=http://127.0.0.1:2380 > /tmp/etcd.log 2>&1 &
waiting 60 "etcd serving" grep -q "ready to serve client requests" \
    /tmp/etcd.log || { tail /tmp/etcd.log; exit 1; }
ip addr add 10.77.0.1/24 dev xenbr0
ip neigh replace 10.77.0.2 lladdr 00:16:3e:46:54:01 dev xenbr0 \
    nud permanent
on_exit() {
    [ $? = 0 ] && return
    sed "s/^/secondary: /" /tmp/s.log
    [ -f /tmp/cdm.log ] && sed "s/^/copy ftdm: /" /tmp/cdm.log
    xl list
    xl dmesg | grep -o "FT: .*" | tail -n 20 | sed "s/^/copy xen: /"
}
trap on_exit EXIT
copy_listen kv
waiting 300 "replay" grep -q "), replaying$" /tmp/s.log
ln -sf "$(sed -n "s/.*serves the copy.s devices, its log //p" /tmp/s.log)" \
    /tmp/cdm.log
# put KEY: PUT until acknowledged (each try waits 15 s, 12 tries).
put() {
    p_n=0
    until echo "PUT $1 v-$1" | timeout 20 socat -t 15 - \
            UDP:10.77.0.2:7777 2>/dev/null | grep -q "^OK $1$"; do
        p_n=$((p_n + 1))
        [ $p_n -lt 12 ] || return 1
    done
}
: > /tmp/acked
client() {
    for k in k1 k2 k3 k4 k5 k6 k7 k8; do
        put $k || { echo "client: $k never acknowledged"; return 1; }
        echo "$k $(ms)" >> /tmp/acked
    done
    echo "client: done"
}
client > /tmp/client.log 2>&1 &
cl=$!
waiting 300 "3 keys acknowledged" sh -c "[ \$(wc -l < /tmp/acked) -ge 3 ]"
echo die | timeout 10 socat -u - TCP:$XENLAB_PEER:8003
t0=$(ms)
n0=$(wc -l < /tmp/acked)
echo "host 2: host 1 told to die after $n0 keys acknowledged"
waiting 120 "peer lost" grep -q "peer lost" /tmp/s.log
waiting 300 "copy live" grep -q "live at record" /tmp/s.log
echo "live $(($(ms) - t0)) ms after host 1 died"
waiting 300 "the client done" sh -c "! kill -0 $cl 2>/dev/null"
wait $cl
cat /tmp/client.log
n1=$(awk -v t=$t0 "\$2 > t { print \$2 - t; exit }" /tmp/acked)
echo "first key acknowledged by the live copy $n1 ms after host 1 died"
total=0 found=0 ondisk=0
dd if=$disk iflag=direct bs=64k count=256 2>/dev/null |
    tr -c "[:print:]" "\n" > /tmp/disk.txt
for k in $(cut -d" " -f1 /tmp/acked); do
    total=$((total + 1))
    echo "GET $k" | timeout 20 socat -t 15 - UDP:10.77.0.2:7777 \
        2>/dev/null | grep -q "^VAL v-$k$" && found=$((found + 1))
    grep -q "v-$k" /tmp/disk.txt && ondisk=$((ondisk + 1))
done
echo "acknowledged keys: $total; in the live guest $found, on the" \
    "shared disk $ondisk"
sed "s/^/secondary: /" /tmp/s.log
sed "s/^/copy ftdm: /" /tmp/cdm.log
grep "^kv: put" /tmp/kv.log | sed "s/^/copy console: /"
'
expect_status 0
expect_lines '^host 1: protected$' '^host 1: died$' \
    '^primary ftdm: ftdm: domain [0-9]+: frozen for its copy$' \
    '^primary ftdm: ftdm: domain [0-9]+: thawed$' \
    '^secondary: ftd: domain [0-9]+: ftdm \(pid [0-9]+\) serves the copy' \
    '^copy ftdm: ftdm: domain [0-9]+: .*serving a replaying copy$' \
    '^host 2: host 1 told to die after [0-9]+ keys acknowledged$' \
    '^secondary: ftd: .*peer lost' '^secondary: ftd: .*live at record' \
    '^copy ftdm: ftdm: domain [0-9]+: live: ' \
    '^live [0-9]+ ms after host 1 died$' '^client: done$' \
    '^first key acknowledged by the live copy [0-9]+ ms after host 1 died$'
grep -Eq '^acknowledged keys: 8; in the live guest 8, on the shared disk 8$' \
    "$out" || fail "an acknowledged key is missing (above)"
exit 0
