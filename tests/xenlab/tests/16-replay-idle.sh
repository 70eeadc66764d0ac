#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 16-replay-idle.sh - on the hypervisor built from xen-patches (skipped
# without it), record/replay across two emulated hosts with the step
# counter: the idle guest (timer at 100 Hz) protected by ftd, recorded on
# host 1, its copy replayed on host 2.  Host 1 pauses its guest between
# two lines of console output (Xen logs the point where it stopped) and
# sends its sequence number and count; host 2 waits for its copy to have
# replayed that far.  Then, each in its own dom0: the same count, the
# same hash of the first 32 MiB of guest RAM and of the vCPU's registers,
# and the copy's console (its writes reach its device model as the
# primary's did) the same lines as the end of the primary's.  Measured:
# steps per second, and the copy's lag behind the paused primary.
#
#   +---- QEMU: Xen host 1 ----+  one network   +---- QEMU: Xen host 2 ----+
#   | idle, recorded (steps)   |                | its copy, replayed       |
#   | ftd primary ------------ +-- records -->  + ftd secondary :7801      |
#   | paused in HLT;           |                |                          |
#   | "SEQ COUNT" ------------ +--- :8002 ----> + copy caught up: hash     |
#   | hash, console            + <-- :8003 ---- + "hashed", console        |
#   +--------------------------+                +--------------------------+
. "$(dirname "$0")/../testlib.sh"

image=$XL_OUT/xen-patched.gz
if [ ! -f "$image" ]; then
    echo "SKIP: no $image (xen-patches/verify.sh XEN-TREE builds it)"
    exit 77
fi
lab_put bin/ftd guests/idle.bin tests/xlft-xen tests/xen-state-hash
# The pair's key, the same on both hosts.
(umask 077; od -An -tx1 -N32 /dev/urandom | tr -d " \n" > "$own_put/ft.key")
lab --hosts 2 --xen "$image" --timeout 600 -- '
. /xenft/dom0.sh
ft_setup
cp /xenft/ft.key /tmp/ft.key
opts="$opts --timeout 600000"
if [ "$XENLAB_HOST" = 2 ]; then
    idle_cfg 20 fit
    timeout -k 5 500 /xenft/ftd secondary $opts --host-name hostB \
        --listen $XENLAB_IP:7801 --xen-config /tmp/idle.cfg \
        > /tmp/s.log 2>&1 &
    sec=$!
    waiting 10 "secondary listening" grep -q "listening on" /tmp/s.log ||
        { cat /tmp/s.log; exit 1; }
    echo ready | socat -u - TCP-LISTEN:8001,reuseaddr
    caught_up() {
        /xenft/xlft-xen ft-status $copy > /tmp/st.txt &&
        grep -q " seq $seq count [0-9]* stopped 0\$" /tmp/st.txt
    }
    # Each point the primary stopped at ("SEQ COUNT"): where does the
    # copy stand once it has replayed that far?
    copy=
    while msg=$(timeout 300 socat -u TCP-LISTEN:8002,reuseaddr -) &&
        [ -n "$msg" ] && [ "$msg" != done ]; do
        set -- $msg
        seq=$1 count=$2
        # The primary runs protected once it has sent the copy, which
        # may still be restored here.
        waiting 120 "replay" grep -q "), replaying$" /tmp/s.log ||
            { cat /tmp/s.log; exit 1; }
        [ -n "$copy" ] || copy=$(sed -n "s/^ftd: the copy from .* is \
domain \([0-9]*\), paused$/\1/p" /tmp/s.log)
        t0=$(date +%s%N)
        at=$(/xenft/xlft-xen ft-status $copy |
            sed -n "s/.* count \([0-9]*\) .*/\1/p")
        echo "lag: $((count - at)) steps behind the paused primary"
        if ! (waiting 120 "copy at seq $seq" caught_up); then
            cat /tmp/st.txt /tmp/s.log; xl dmesg | grep FT; exit 1
        fi
        echo "replayed to seq $seq in" \
            "$((($(date +%s%N) - t0) / 1000000)) ms"
        at=$(sed -n "s/.* count \([0-9]*\) .*/\1/p" /tmp/st.txt)
        waiting 30 "the primary taking the count" sh -c \
            "echo $at | timeout 5 socat -u - TCP:$XENLAB_PEER:8004"
    done
    [ "$msg" = done ] || { echo "no end from the primary"; exit 1; }
    xl pause $copy
    /xenft/xlft-xen ft-status $copy
    /xenft/xen-state-hash $copy 32 | sed "s/^/copy /"
    sed -n "s/^\(idle: [0-9]* ticks.*\)$/copy console: \1/p" /tmp/idle.log
    xl dmesg | grep -o "FT: .*" | sed "s/^/copy xen: /"
    echo hashed | socat -u - TCP-LISTEN:8003,reuseaddr
    kill $sec
    wait $sec
    # ftd destroys its copy as it stops.
    ! xl list $copy > /dev/null 2>&1 || xl destroy $copy
    exit 0
fi
idle_start 20 fit
ticks 2
peer_ready
timeout -k 5 500 /xenft/ftd primary $opts --host-name hostA --guest idle \
    --peer $XENLAB_PEER:7801 > /tmp/p.log 2>&1 &
pri=$!
waiting 120 "protection" grep -q "protected$" /tmp/p.log ||
    { cat /tmp/p.log; xl dmesg | tail; exit 1; }
t0=$(date +%s%N)
ticks $(($(idle_ticked) + 2))
ms=$((($(date +%s%N) - t0) / 1000000))
# Paused half-way through an I/O that its device model has yet to
# complete, the guest stands past its last record (the point of a write
# is logged by the next input): paused again, until the copy, replayed
# to the last record, stands where it does (in HLT, or anywhere between
# two accesses to the console).
tries=0 match=
until [ -n "$match" ]; do
    [ $tries = 0 ] || { xl unpause idle; ticks $(($(idle_ticked) + 1)); }
    tries=$((tries + 1))
    [ $tries -le 10 ] ||
        { echo "the copy never stood where idle did"; exit 1; }
    xl pause idle
    /xenft/xlft-xen ft-status 1 > /tmp/st.txt
    seq=$(sed -n "s/.* seq \([0-9]*\) .*/\1/p" /tmp/st.txt)
    count=$(sed -n "s/.* count \([0-9]*\) .*/\1/p" /tmp/st.txt)
    waiting 30 "the peer taking the point" sh -c \
        "echo $seq $count | timeout 5 socat -u - TCP:$XENLAB_PEER:8002"
    at=$(timeout 200 socat -u TCP-LISTEN:8004,reuseaddr -)
    echo "paused at count $count, the copy at ${at:-nothing}"
    [ -n "$at" ] || exit 1
    [ "$at" != "$count" ] || match=1
done
waiting 30 "the peer taking the end" \
    sh -c "echo done | timeout 5 socat -u - TCP:$XENLAB_PEER:8002"
cat /tmp/st.txt
echo "steps: $count in about $ms ms of protection"
/xenft/xen-state-hash 1 32 | sed "s/^/primary /"
waiting 200 "hashed from the peer" sh -c \
    "timeout 5 socat -u TCP:$XENLAB_PEER:8003 - 2>/dev/null | grep -q hashed"
sed -n "s/^\(idle: [0-9]* ticks.*\)$/primary console: \1/p" /tmp/idle.log
# Alone once the secondary stops, the primary has ended itself, or not.
kill $pri 2> /dev/null
wait $pri
sed "s/^/primary: /" /tmp/p.log
xl destroy idle
'
expect_status 0
expect_lines '^primary: ftd: domain [0-9]+: recording into a ring of [0-9]+ '\
'frames \(counting steps\)' '^state record .* stopped 0$' \
    '^state replay .* stopped 0$' '^lag: [0-9]+ steps' \
    '^replayed to seq [0-9]+ in [0-9]+ ms$' '^paused at count [0-9]+, the copy at' \
    '^primary ram: 32 MiB' '^copy ram: 32 MiB' \
    '^copy console: idle: [0-9]+ ticks'
ram1=$(sed -n 's/^primary ram: //p' "$out")
ram2=$(sed -n 's/^copy ram: //p' "$out")
[ -n "$ram1" ] && [ "$ram1" = "$ram2" ] ||
    fail "guest RAM differs: primary '$ram1', copy '$ram2'"
cpu1=$(sed -n 's/^primary vcpu: //p' "$out")
cpu2=$(sed -n 's/^copy vcpu: //p' "$out")
[ -n "$cpu1" ] && [ "$cpu1" = "$cpu2" ] ||
    fail "vCPU registers differ: primary '$cpu1', copy '$cpu2'"
c1=$(sed -n 's/^state record .* count \([0-9]*\) .*/\1/p' "$out")
c2=$(sed -n 's/^state replay .* count \([0-9]*\) .*/\1/p' "$out" | tail -n 1)
[ -n "$c1" ] && [ "$c1" -gt 0 ] && [ "$c1" = "$c2" ] ||
    fail "counts differ: primary '$c1', copy '$c2'"
# The copy's console: the last lines of the primary's, the same.
n=$(grep -c '^copy console: ' "$out")
sed -n 's/^copy console: //p' "$out" > "$out.copy"
sed -n 's/^primary console: //p' "$out" | tail -n "$n" > "$out.pri"
cmp -s "$out.copy" "$out.pri" || {
    diff "$out.pri" "$out.copy"
    rm -f "$out.copy" "$out.pri"
    fail "the copy's console is not the end of the primary's"
}
rm -f "$out.copy" "$out.pri"
echo "replayed: count $c1, RAM and registers agree, $n console lines"
exit 0
