#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run.sh [--hosts 1|2] [--xen debian|4.17.5|FILE] [--timeout S] -- CMD...
#
# Boots the lab's Xen host(s) under QEMU, runs CMD (joined by spaces, run
# by sh, as ssh does) in each dom0, prints its output and exits with its
# status; in two-host mode each output comes under a "== host N ==" line
# and the status is host 1's if not 0, else host 2's.  In dom0, CMD sees
# XENLAB_HOST (1 or 2), XENLAB_HOSTS, and with two hosts XENLAB_IP and
# XENLAB_PEER (addresses on bridge xenbr0).  The staging directory of
# put.sh is mounted at /xenft.  Lab failures have their own statuses
# (README.md).  The serial consoles of the last run are kept in
# build/xenlab/logs/hostN.serial.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
    echo "usage: run.sh [--hosts 1|2] [--xen debian|4.17.5|FILE]" \
        "[--timeout S] -- CMD..." >&2
    exit 2
}

hosts=1 xen=debian timeout=${XENLAB_TIMEOUT:-300}
boot_timeout=${XENLAB_BOOT_TIMEOUT:-180}
while [ $# -gt 0 ]; do
    case "$1" in
    --hosts) [ $# -ge 2 ] || usage; hosts=$2; shift 2 ;;
    --xen) [ $# -ge 2 ] || usage; xen=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] || usage; timeout=$2; shift 2 ;;
    --) shift; break ;;
    *) usage ;;
    esac
done
[ $# -gt 0 ] || usage
case "$hosts" in 1|2) ;; *) xl_die 2 "--hosts: 1 or 2, not '$hosts'" ;; esac
case "$timeout" in
''|*[!0-9]*) xl_die 2 "--timeout: seconds, not '$timeout'" ;;
esac

xl_need_root
xl_need_qemu
xl_need_tools mkfs.ext4 debugfs unshare
[ -f "$XL_OUT/image.stamp" ] ||
    xl_die $XL_EFAIL "the lab is not built: run lab.sh build first"

# Two hosts get a network namespace of their own: their UDP link on
# loopback meets nothing else on this machine.
if [ "$hosts" -gt 1 ] && [ -z "${XL_NET_NS:-}" ]; then
    XL_NET_NS=1 exec unshare -n sh "$0" --hosts "$hosts" --xen "$xen" \
        --timeout "$timeout" -- "$@"
fi
if [ -n "${XL_NET_NS:-}" ]; then
    ip link set lo up
fi

case "$xen" in
debian|4.17.5) image=$XL_OUT/xen-$xen ;;
*) [ -f "$xen" ] || xl_die 2 "--xen: no such file: $xen"; image=$xen ;;
esac

run=$(mktemp -d "$XL_OUT/run.XXXXXX")
pids=""
cleanup() {
    for p in $pids; do
        kill "$p" 2>/dev/null || true
    done
    for p in $pids; do
        wait "$p" 2>/dev/null || true
    done
    mkdir -p "$XL_OUT/logs"
    for i in $(seq "$hosts"); do
        cp "$run/h$i/serial" "$XL_OUT/logs/host$i.serial" 2>/dev/null || true
    done
    rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A gzipped Xen (xen.gz of a build) is unpacked for the multiboot loader.
if gzip -t "$image" 2>/dev/null; then
    gzip -dc "$image" > "$run/xen"
    image=$run/xen
fi

if [ -d "${XENLAB_PUT:-$XL_OUT/put}" ]; then
    sh "$XL_SRC/put.sh" --image "$run/put.img"
fi

# Two hosts share a disk, as hosts share storage.
[ "$hosts" = 1 ] || truncate -s 16M "$run/shared.img"

# One directory per host: the command disk, the serial log.
for i in $(seq "$hosts"); do
    d=$run/h$i
    mkdir -p "$d/lab"
    printf '%s\n' "$*" > "$d/lab/cmd"
    {
        echo "XENLAB_HOST=$i XENLAB_HOSTS=$hosts XENLAB_TIMEOUT=$timeout"
        if [ "$hosts" -gt 1 ]; then
            echo "XENLAB_IP=10.99.0.$i XENLAB_PEER=10.99.0.$((3 - i))"
            echo "XENLAB_HOLD=1"
        fi
        echo "export XENLAB_HOST XENLAB_HOSTS XENLAB_TIMEOUT XENLAB_IP" \
            "XENLAB_PEER"
    } > "$d/lab/env"
    truncate -s 64M "$d/cmd.img"
    mkfs.ext4 -q -F -L xenlab-cmd -d "$d/lab" "$d/cmd.img" ||
        xl_die $XL_EFAIL "cannot make the command disk"
    [ -f "$run/put.img" ] && ln "$run/put.img" "$d/put.img"
    : > "$d/serial"
done

# QEMU itself is bounded: boot, command, and a margin to power off.
limit=$((boot_timeout + timeout + 60))
for i in $(seq "$hosts"); do
    timeout -k 5 "$limit" sh "$XL_SRC/qemu.sh" "$image" "$run/h$i" "$i" \
        "$hosts" > "$run/h$i/qemu.log" 2>&1 &
    pids="$pids $!"
    eval "pid_$i=$!"
done

# Wait for every dom0 to say READY, then DONE, each within its time.
start=$(date +%s)
fail=""
while :; do
    now=$(date +%s)
    pending=0
    for i in $(seq "$hosts"); do
        s=$run/h$i/serial
        eval "p=\$pid_$i"
        grep -aq XENLAB-DONE "$s" && continue
        pending=1
        if ! kill -0 "$p" 2>/dev/null; then
            # It may have said DONE just before it stopped.
            grep -aq XENLAB-DONE "$s" && continue
            fail="$XL_EFAIL host $i: QEMU stopped before dom0 finished"
        elif ! grep -aq XENLAB-READY "$s"; then
            [ $((now - start)) -lt "$boot_timeout" ] ||
                fail="$XL_ETIMEOUT host $i: dom0 not up in $boot_timeout s"
        elif [ $((now - start)) -ge $((boot_timeout + timeout + 30)) ]; then
            fail="$XL_ETIMEOUT host $i: no result from dom0"
        fi
        [ -z "$fail" ] || break
    done
    [ -n "$fail" ] && break
    [ $pending = 0 ] && break
    sleep 0.5
done

if [ -n "$fail" ]; then
    xl_log "${fail#* }"
    for i in $(seq "$hosts"); do
        echo "--- host $i: end of serial console ---" >&2
        tail -n 25 "$run/h$i/serial" >&2
        tail -n 5 "$run/h$i/qemu.log" >&2
    done
    exit "${fail%% *}"
fi

# One host powers off by itself (Xen may stay in S5: QEMU is killed after
# 15 s); several hosts hold until all are done, then are stopped.
if [ "$hosts" = 1 ]; then
    n=0
    while kill -0 "$pid_1" 2>/dev/null && [ $n -lt 30 ]; do
        sleep 0.5
        n=$((n + 1))
    done
fi
for p in $pids; do
    kill "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
done
pids=""

status=0
for i in $(seq "$hosts"); do
    d=$run/h$i
    st=$(debugfs -R "cat /status" "$d/cmd.img" 2>/dev/null | tr -cd 0-9)
    if [ -z "$st" ]; then
        xl_log "host $i: no status on the command disk"
        grep -a XENLAB-DONE "$d/serial" | tail -n 1 >&2
        st=$XL_EFAIL
    fi
    [ "$hosts" = 1 ] || echo "== host $i =="
    debugfs -R "cat /out" "$d/cmd.img" 2>/dev/null
    [ "$st" = $XL_ETIMEOUT ] &&
        xl_log "host $i: the command did not finish within $timeout s"
    [ "$status" != 0 ] || status=$st
done
exit "$status"
