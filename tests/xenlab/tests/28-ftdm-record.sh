#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 28-ftdm-record.sh - on the hypervisor built from xen-patches (skipped
# without it), ftdm's outputs wait for the secondary while Xen records
# the guest.  xl-ft create refuses a configuration with a QEMU network
# device, making nothing; given the kvstore guest's (the binary ftvm
# runs), with ftdm's keys, it creates the guest paused, starts ftdm and
# unpauses it: the guest runs on ftdm's virtio-net, whose frames go
# through a tap in dom0, and virtio-blk, a file in dom0, and is recorded
# once it serves.  xlft-xen ack-hold reads the records as a
# secondary would and acknowledges them as the test says: first all at
# once (a PUT answered, its round trip printed), then only when told.
# A PUT's disk write then waits in ftdm, not on the disk, and no answer
# comes; acknowledged, the write lands, and the answer waits in turn;
# acknowledged again, the answer comes (the time from the
# acknowledgement printed).  The received frames are DMA records in the
# log.  Once recording ends, an answer leaves at once.  Then the disk
# guest, recorded, reads back what it wrote: its reads are DMA records
# of 4 KiB; then recording stops with its log unacknowledged (as after a
# halt): its disk request stays held, and the guest does no more rounds.
# Last, the kvstore guest again: a new log begins in place of one never
# ended (as a restarted ftd would), and its numbers pass the last one's
# before ftdm looks (nothing acknowledged meanwhile, as while ftd
# copies the guest): ftdm tells by Xen's log id when woken by the next
# acknowledgement, says why, and holds the next PUT's disk write for
# good.
#
#   dom0: client 10.77.0.1 -- tap ftkv -- ftdm -- kvstore 10.77.0.2
#                                     disk file --'   (ioreq, FT DMA op)
#         xlft-xen ack-hold: the ring read, acks when told
. "$(dirname "$0")/../testlib.sh"

patched_image
lab_put bin/ftdm bin/xl-ft tests/xlft-xen guests/kvstore.bin \
    guests/disk.bin
lab --xen "$image" -- '
. /xenft/dom0.sh
# A failed wait shows where each part stood.
on_exit() {
    [ $? = 0 ] && return
    for f in /tmp/dm.log /tmp/ah.log /tmp/kv.log /tmp/dk.log; do
        [ -f $f ] && tail -n 20 $f | sed "s|^|$f: |"
    done
    xl dmesg | tail -n 20 | sed "s/^/xen: /"
}
trap on_exit EXIT
# held N: ftdm (not its timeout), asked by SIGUSR1, says it holds N
# outputs, in a line written after the asking (within 5 s).
held() {
    h_n=$(grep -c "outputs held" /tmp/dm.log)
    pkill -USR1 -x ftdm || return 1
    h_i=0
    while [ $(grep -c "outputs held" /tmp/dm.log) -le $h_n ] &&
        [ $h_i -lt 50 ]; do
        sleep 0.1
        h_i=$((h_i + 1))
    done
    grep "outputs held" /tmp/dm.log | tail -n 1 | grep -q "held $1 "
}
# put KEY: a PUT of KEY sent, its answer to /tmp/r.KEY.
put() {
    : > /tmp/r.$1
    echo "PUT $1 v-$1" | timeout 100 socat -t 90 - UDP:10.77.0.2:7777 \
        > /tmp/r.$1 &
}
ms() { echo $(($(date +%s%N) / 1000000)); }
# start NAME KERNEL CMDLINE READY FTDM-OPTION...: the guest created
# paused, ftdm serving it (xl-ft create when there is no FTDM-OPTION:
# the ftdm keys are in the configuration), the guest run until its
# console says READY (firmware makes hypercalls, which Xen refuses to a
# recorded guest), then recording begun, its acks as the test says on
# fd 3.
start() {
    fit_cfg $1 $2 "$3"
    s_guest=$1 s_ready=$4
    shift 4
    if [ $# = 0 ]; then
        cat /tmp/$s_guest.ftdm >> /tmp/$s_guest.cfg
        /xenft/xl-ft create /tmp/$s_guest.cfg > /tmp/create.log || exit 1
        cat /tmp/create.log
        ln -sf "$(sed -n "s/.*, its log //p" /tmp/create.log)" /tmp/dm.log
        dom=$(xl domid $s_guest)
        dm=$(pgrep -x ftdm)
    else
        xl create -p /tmp/$s_guest.cfg || exit 1
        dom=$(xl domid $s_guest)
        timeout -k 5 300 /xenft/ftdm "$@" $dom > /tmp/dm.log 2>&1 &
        dm=$!
        waiting 30 "ftdm serving" grep -q "serving$" /tmp/dm.log
    fi
    [ "$s_guest" != kv ] || kv_net
    [ $# = 0 ] || xl unpause $s_guest
    waiting 180 "$s_ready from $s_guest" grep -q "$s_ready" /tmp/$s_guest.log
    rm -f /tmp/ah.in
    mkfifo /tmp/ah.in
    timeout -k 5 280 /xenft/xlft-xen --unsafe-no-counter ack-hold $dom 270 \
        < /tmp/ah.in > /tmp/ah.log 2>&1 &
    ah=$!
    exec 3> /tmp/ah.in
    waiting 30 "recording" grep -q "^ack-hold: recording" /tmp/ah.log
}
# rounds_past N: the disk guest has done N rounds.
rounds_past() {
    [ $(grep -c " ok$" /tmp/dk.log) -ge $1 ]
}
# kv_net: dom0 on the link of the guest.
kv_net() {
    ip addr add 10.77.0.1/24 dev ftkv
    ip neigh replace 10.77.0.2 lladdr 00:16:3e:46:54:01 dev ftkv \
        nud permanent
}
# finish NAME: recording ended, the guest destroyed, ftdm gone with it.
finish() {
    exec 3>&-
    wait $ah
    echo "ack-hold exit=$?"
    sed "s/^/ah: /" /tmp/ah.log
    xl destroy $1
    waiting 30 "ftdm ending with the guest" \
        sh -c "! kill -0 $dm 2>/dev/null"
    sed "s/^/dm: /" /tmp/dm.log
}

truncate -s 1M /tmp/kv.disk
printf "%s\n" "ftdm_tap = \"ftkv\"" "ftdm_disk = \"/tmp/kv.disk\"" \
    > /tmp/kv.ftdm
# Refused, nothing made: a configuration with a QEMU network device.
fit_cfg bad kvstore.bin "ip=10.77.0.3"
echo "vif = [ \"bridge=xenbr0\" ]" >> /tmp/bad.cfg
/xenft/xl-ft create /tmp/bad.cfg
echo "unfit=$? guests named bad: $(xl list | grep -c "^bad ")"
start kv kvstore.bin "ip=10.77.0.2" "^kv: serving"
echo auto >&3
t0=$(ms)
put a1
waiting 60 "an answer, acknowledged at once" grep -q "^OK a1" /tmp/r.a1
echo "protected round trip: $(($(ms) - t0)) ms"

echo manual >&3
waiting 10 "manual acks" grep -q "when told" /tmp/ah.log
put k1
waiting 60 "the disk write held" held 1
grep -aq v-k1 /tmp/kv.disk && { echo "k1 on disk before its ack"; exit 1; }
[ -s /tmp/r.k1 ] && { echo "an answer before the write"; exit 1; }
echo "write held: not on disk, no answer"
echo ack >&3
waiting 60 "the write on disk once acknowledged" grep -aq v-k1 /tmp/kv.disk
waiting 60 "the answer held" held 1
grep -q "^kv: put k1" /tmp/kv.log || { echo "no put on the console"; exit 1; }
[ -s /tmp/r.k1 ] && { echo "an answer before its ack"; exit 1; }
echo "answer held: on disk, no answer"
t0=$(ms)
echo ack >&3
waiting 60 "the answer once acknowledged" grep -q "^OK k1" /tmp/r.k1
echo "answer after its ack: $(($(ms) - t0)) ms"
echo stats >&3
waiting 10 "stats" grep -q "DMA" /tmp/ah.log
echo end >&3
waiting 30 "recording ended" grep -q "^ack-hold: disabled" /tmp/ah.log
t0=$(ms)
put u1
waiting 60 "an answer unprotected" grep -q "^OK u1" /tmp/r.u1
echo "unprotected round trip: $(($(ms) - t0)) ms"
waiting 10 "nothing held" held 0 && echo "nothing held"
finish kv

truncate -s 4M /tmp/dk.disk
start dk disk.bin "every=1" "round 1 ok" --disk /tmp/dk.disk
echo auto >&3
r0=$(grep -c " ok$" /tmp/dk.log)
waiting 240 "six rounds recorded" rounds_past $((r0 + 6))
echo stats >&3
waiting 10 "stats" grep -q "DMA" /tmp/ah.log
# Recording stopped with the log unacknowledged, as when ftd halted the
# guest and someone ended it after: what is held never leaves.
echo manual >&3
waiting 10 "manual acks" grep -q "when told" /tmp/ah.log
waiting 60 "a disk request held" held 1
echo abandon >&3
waiting 30 "recording abandoned" grep -q "^ack-hold: disabled, not" \
    /tmp/ah.log
waiting 30 "ftdm keeping it" grep -q "never leave" /tmp/dm.log
r1=$(grep -c " ok$" /tmp/dk.log)
held 1 && held 1 && [ $(grep -c " ok$" /tmp/dk.log) = $r1 ] &&
    echo "abandoned log: its request still held, no round since"
sed "s/^/guest: /" /tmp/dk.log
finish dk

# A new log in place of one never ended, as a restarted ftd makes: held
# for good, though its numbers pass the last log'"'"'s before ftdm looks
# (no ack, no wake-up, while ftd copies the guest): only Xen'"'"'s log id
# tells the two apart then.
rm -f /tmp/kv.log
start kv kvstore.bin "ip=10.77.0.2" "^kv: serving"
echo auto >&3
put n1
waiting 60 "an answer, acknowledged at once" grep -q "^OK n1" /tmp/r.n1
echo renew >&3
waiting 120 "the new log past the last" grep -q "^ack-hold: the new log" \
    /tmp/ah.log
waiting 60 "ftdm seeing a new log" grep -q "a new log began" /tmp/dm.log
put n2
waiting 60 "the write held" held 1
! grep -aq v-n2 /tmp/kv.disk && [ ! -s /tmp/r.n2 ] &&
    echo "renewed log: the write held, not on disk, no answer"
finish kv
'
expect_status 0
expect_lines '^protected round trip: [0-9]+ ms$' \
    '^write held: not on disk, no answer$' \
    '^answer held: on disk, no answer$' \
    '^answer after its ack: [0-9]+ ms$' \
    '^unprotected round trip: [0-9]+ ms$' '^nothing held$' \
    '^dm: ftdm: domain [0-9]+: outputs held 0 \(at most [1-9][0-9]*\), '\
'released once acknowledged [1-9][0-9]*, passed unprotected [1-9]' \
    '^dm: ftdm: domain [0-9]+: virtio-net at 00:05.0, MAC '\
'00:16:3e:46:54:01, tap ftkv; virtio-blk at 00:06.0, disk /tmp/kv.disk '\
'\(2048 sectors\); serving$' \
    '^dm: ftdm: domain [0-9]+: stopped \(the domain is gone\); the guest '\
'sent [1-9][0-9]* frames \([0-9]+ bytes\), 0 dropped; received [1-9][0-9]* '\
'frames, 0 dropped; [1-9][0-9]* disk requests; ' \
    '^ah: ack-hold: [0-9]+ records, [1-9][0-9]* DMA \([0-9]+ bytes\)' \
    '^ack-hold exit=0$' '^guest: disk: round 7 ok$' \
    '^abandoned log: its request still held, no round since$' \
    '^ah: ack-hold: renewed after record [1-9][0-9]*, not acknowledged$' \
    '^renewed log: the write held, not on disk, no answer$' \
    '^dm: ftdm: domain [0-9]+: a new log began without ftd ending the one '\
'before in order: its [0-9]+ held outputs, and all that follow, never '\
'leave$' \
    '^dm: ftdm: domain [0-9]+: recording ended without ftd ending the log '\
'in order .*: its 1 held outputs, and all that follow, never leave$' \
    '^unfit=1 guests named bad: 0$' \
    '^/tmp/bad.cfg:[0-9]+: 1 vif device\(s\): QEMU.s and PV network ' \
    '^xl-ft: guest kv is domain [0-9]+, running; ftdm \(pid [0-9]+\) '\
'serves its devices, its log /var/log[a-z/]*/ftdm-kv.log$' \
    '^dm: ftdm: domain [0-9]+: stopped \(the domain is gone\); the guest '\
'sent 0 frames \(0 bytes\), dropped: no network backend; [0-9]+ disk' \
    '^dm: ftdm: domain [0-9]+: virtio-net at 00:05.0, .*, no network '\
'backend; virtio-blk at 00:06.0, disk /tmp/dk.disk \(8192 sectors\); '\
'serving$'
# The disk guest's recorded rounds read 4 KiB each, as DMA records.
dma=$(sed -n 's/^ah: ack-hold: .* DMA (\([0-9]*\) bytes).*/\1/p' "$out" |
    tail -n 1)
[ "${dma:-0}" -ge 20480 ] ||
    fail "the disk guest's reads: ${dma:-no} DMA bytes, not 5 x 4096"
exit 0
