#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# nemesis.sh BUILD SCHEDULES SEED - the kvstore guest protected by ftd on
# two hosts, a client writing and reading it, and random faults; each
# schedule's history judged by check.awk (README: "The nemesis suite").
#
# Schedule i runs with seed SEED+i: the seed alone decides the arbiter
# (even: file:, odd: etcd:), the faults, their targets and durations and
# the client's requests, so SEED=S SCHEDULES=1 runs schedule S again
# (the same faults, in the same order; how they fall between the
# requests depends on timing).
# KINDS=kill,isolate,... draws the faults from those kinds only (also
# part of what reruns a schedule); FAULTS_PER_SCHEDULE (3) how many.
#
# Namespaces, made per schedule and removed with everything in them:
#
#   +------ A ($A) -------+    ft (FT link)     +------ B ($B) -------+
#   | ftd, ftvm kv.sock   +---------------------+ ftd, the copy       |
#   | kv0 (tap) -+- br0   | 10.77.0.1 10.77.0.2 |   br0 -+- kv0 (tap) |
#   |            +- lan   |                     |   lan -+            |
#   +---arb--------+------+                     +----+-------arb------+
#    10.76.1.2     |            +---- C ($C) ---+    |     10.76.2.2
#       |          +------ lanA + br0 10.78.0.9 + lanB
#       |                       | faultclient   |           |
#       |                       +---------------+           |
#       |  10.76.1.1 +------- E ($E) --------+ 10.76.2.1    |
#       +------------+ eA   etcd :2379   eB  +--------------+
#                    +-----------------------+
#   (the guest answers as 10.78.0.2 from whichever host is live)
#   A, B   the hosts: ftd as a service, the guest's ftvm, a bridge br0
#          joining the guest's tap kv0 to the host's LAN veth 'lan';
#          the FT link 'ft' between them (10.77.0.1, 10.77.0.2)
#   C      the client, 10.78.0.9 on a bridge of lanA and lanB (the other
#          ends of A's and B's 'lan'); the bridge floods every frame
#          (ageing 0), so requests reach both hosts and whichever copy is
#          live answers as 10.78.0.2; replies are captured per veth
#   E      etcd (etcd: schedules), 10.76.1.1 towards A, 10.76.2.1
#          towards B; file: schedules share a directory instead
# The guest's disk is one file on a small tmpfs the test mounts, shared
# by both hosts as the demo shares it (the secondary never writes it
# before it goes live).
#
# Figures (nemesis_*) go to BUILD/bench/faults.kv and results.json.
# Without root or ip netns: said, exit 77.
set -u

build=${1:?usage: nemesis.sh BUILD SCHEDULES SEED}
schedules=${2:?usage: nemesis.sh BUILD SCHEDULES SEED}
seed0=${3:?usage: nemesis.sh BUILD SCHEDULES SEED}
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$build" && pwd)
NAME=nemesis
. "$here/../lib/hosts.sh"

ftd=$build/bin/ftd
ftvm=$build/bin/ftvm
xlft=$build/bin/xl-ft
dom0=$build/tests/ftvm-dom0
fc=$build/tests/faultclient
FAULTS_PER_SCHEDULE=${FAULTS_PER_SCHEDULE:-3}
BUDGET=200              # seconds: every process of a schedule ends by then
NSRUN_SECONDS=$BUDGET   # nsrun's bound (tests/lib/hosts.sh)
keep=$build/faults      # the files of failed schedules

case "$schedules$seed0" in
*[!0-9]*) echo "nemesis: SCHEDULES and SEED must be numbers" >&2; exit 2 ;;
esac
if [ "$(id -u)" != 0 ] || ! ip netns add xf-probe-$$ 2>/dev/null; then
    skip "needs root and ip netns"
fi
ip netns del xf-probe-$$
for t in etcd nft; do
    command -v $t >/dev/null 2>&1 ||
        { echo "nemesis: $t missing (sh tools/deps.sh check)"; exit 1; }
done

now() { "$fc" now; }
log() { echo "$*" >>"$work/nemesis"; }

# --- topology ----------------------------------------------------------

down() {
    for ns in $A $B $C $E; do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -CONT 2>/dev/null
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
    done
    wait
    for ns in $A $B $C $E; do
        ip netns del "$ns" 2>/dev/null
    done
    mountpoint -q "$work/disk" 2>/dev/null && umount "$work/disk"
    rm -rf "$work"
}

up() {
    A=xfA-$$ B=xfB-$$ C=xfC-$$ E=xfE-$$
    work=$(mktemp -d "${TMPDIR:-/tmp}/xenft-faults.XXXXXX") || exit 1
    for ns in $A $B $C $E; do
        ip netns add "$ns" && ip -n "$ns" link set lo up || return 1
    done
    ip link add ft netns $A type veth peer name ft netns $B
    ip -n $A addr add 10.77.0.1/24 dev ft
    ip -n $B addr add 10.77.0.2/24 dev ft
    ip -n $C link add br0 type bridge ageing_time 0
    ip -n $C addr add 10.78.0.9/24 dev br0
    for h in A B; do
        eval ns=\$$h
        ip link add lan netns "$ns" type veth peer name lan$h netns $C
        ip -n $C link set lan$h master br0 up
        ip -n "$ns" link set ft up
        ip -n "$ns" tuntap add dev kv0 mode tap
        ip -n "$ns" link add br0 type bridge
        ip -n "$ns" link set kv0 master br0 up
        ip -n "$ns" link set lan master br0 up
        ip -n "$ns" link set br0 up
    done
    ip -n $C link set br0 up
    i=1
    for h in A B; do
        eval ns=\$$h
        ip link add arb netns "$ns" type veth peer name e$h netns $E
        ip -n "$ns" addr add 10.76.$i.2/24 dev arb
        ip -n $E addr add 10.76.$i.1/24 dev e$h
        ip -n "$ns" link set arb up
        ip -n $E link set e$h up
        i=$((i + 1))
    done
    mkdir "$work/disk" "$work/arb"
    mkdir -m 0700 "$work/runA" "$work/runB"
    mount -t tmpfs -o size=2m xenft-faults "$work/disk" || return 1
    truncate -s 1M "$work/disk/kv.img"
    newkey "$work/key"
}

etcd_start() {
    nsrun $E etcd --name e --data-dir "$work/etcd" \
        --listen-client-urls http://10.76.1.1:2379,http://10.76.2.1:2379 \
        --advertise-client-urls http://10.76.1.1:2379 \
        --listen-peer-urls http://127.0.0.1:2380 \
        --initial-advertise-peer-urls http://127.0.0.1:2380 \
        --initial-cluster e=http://127.0.0.1:2380 \
        >>"$work/etcd.log" 2>&1 &
    until_true 400 sh -c "[ \$(grep -c 'ready to serve client requests' \
        '$work/etcd.log') -gt $etcd_ready ]" ||
        echo "nemesis: etcd did not come up: $(tail -n 3 "$work/etcd.log")"
    etcd_ready=$(grep -c 'ready to serve client requests' "$work/etcd.log")
}

conf() {
    h=$1 ip=$2 i=$3
    if [ "$arbiter" = etcd ]; then
        spec="etcd:http://10.76.$i.1:2379?ttl=2&timeout=500"
    else
        spec="file:$work/arb"
    fi
    cat >"$work/$h.conf" <<EOF
host-name = host$h
listen = $ip:7800
# Small, so that a secondary behind (the behind fault) fills it.
buffer-mib = 4
key = $work/key
arbiter = $spec
run-dir = $work/run$h
ftvm = $ftvm

[guest kv]
peers = host$( [ "$h" = A ] && echo B || echo A )
disk = $work/disk/kv.img
net = tap:kv0
EOF
}

ftd_start() {
    eval ns=\$$1
    nsrun "$ns" "$ftd" --config "$work/$1.conf" 2>>"$work/ftd$1.err" &
    until_true 200 xl $1 ft-status
}

xl() {
    h=$1
    shift
    eval ns=\$$h
    ip netns exec "$ns" timeout -k 2 10 "$xlft" --socket \
        "$work/run$h/ftd.sock" "$@"
}

# The pids of the processes named $2 in host $1's namespace.
pids() {
    eval ns=\$$1
    for p in $(ip netns pids "$ns" 2>/dev/null); do
        [ "$(cat /proc/$p/comm 2>/dev/null)" = "$2" ] && echo "$p"
    done
}

# The host whose ftd shows kv protected as primary, or nothing.
protected_on() {
    for h in A B; do
        xl $h ft-status kv 2>/dev/null |
            grep -v "ended" | grep -q "role=primary state=protected" &&
            { echo $h; return 0; }
    done
    return 1
}

role_host() {
    for h in A B; do
        xl $h ft-status kv 2>/dev/null | grep -v ended |
            grep -q "role=$1" && { echo $h; return 0; }
    done
    echo none
}

other() { [ "$1" = A ] && echo B || echo A; }

# A host with no ftd (killed, stopped) gets it back: the service as its
# init would restart it.
ftds_up() {
    for h in A B; do
        [ -n "$(pids $h ftd)" ] || ftd_start $h
    done
}

# Until kv is protected again (30 s).  After 6 s the operator steps in,
# as ftd(8) would have one do: a copy that no pair holds and that is not
# running live is destroyed, and a live copy nobody protects is given
# ft-enable.  Each such step is logged ("operator"), and the checker
# counts it against liveness: ftd alone should have protected it.
reprotected() {
    t0=$(now)
    n=0
    while [ $n -lt 150 ]; do
        h=$(protected_on) && { log "protected $(now) $h"; return 0; }
        if [ $n = 30 ]; then
            for h in A B; do
                st=$("$dom0" "$work/run$h/kv.sock" status 2>/dev/null)
                log "status $(now) $h guest: ${st:-none}; ftd:" \
                    "$(xl $h ft-status kv 2>&1 | tr '\n' ';')"
                if [ -n "$st" ] &&
                   ! echo "$st" | grep -q "state=running mode=live" &&
                   ! xl $h ft-status kv 2>/dev/null | grep -v ended |
                       grep -q "pair=kv"; then
                    # A copy stopped for good, that no pair holds: the
                    # operator destroys it, as xl destroy would.
                    log "operator $(now) $h destroy: $st"
                    for p in $(pids $h ftvm); do
                        tr '\0' ' ' </proc/$p/cmdline |
                            grep -q -- "--control $work/run$h/kv.sock" &&
                            kill -KILL $p
                    done
                    operator=$((operator + 1))
                fi
                if "$dom0" "$work/run$h/kv.sock" status 2>/dev/null |
                       grep -q "mode=live" &&
                   ! xl $h ft-status kv 2>/dev/null |
                       grep -q "protecting again\|state=protect"; then
                    o=$(other $h)
                    [ $o = A ] && pip=10.77.0.1 || pip=10.77.0.2
                    log "operator $(now) $h ft-enable kv $pip"
                    xl $h ft-enable kv $pip >>"$work/operator" 2>&1
                    operator=$((operator + 1))
                fi
            done
        fi
        n=$((n + 1))
        sleep 0.2       # polling ft-status, bounded (30 s)
    done
    log "unprotected $(now) since $t0"
    return 1
}

# --- faults ------------------------------------------------------------

nft_drop() {
    eval ns=\$$1
    ip netns exec "$ns" nft -f - <<EOF
table inet nemesis {
    chain out { type filter hook output priority 0; $3 }
    chain in { type filter hook input priority 0; $4 }
}
EOF
}

nft_heal() {
    eval ns=\$$1
    ip netns exec "$ns" nft delete table inet nemesis 2>/dev/null
}

hold() { sleep "$1"; }  # a fault's duration, not a synchronisation

fault() {
    kind=$1 h=$2 d=$3
    eval ns=\$$h
    t=$(now)
    case $kind in
    kill)
        ip netns pids "$ns" | xargs -r kill -KILL
        hold "$d"
        ;;
    kill-ftvm)
        # The guest's process (or its copy's) dies; ftd lives on.
        p=$(pids $h ftvm)
        [ -n "$p" ] || { log "fault $t $kind $h $d none-running"; return; }
        kill -KILL $p
        hold "$d"
        ;;
    pause-ftd|pause-ftvm)
        p=$(pids $h ${kind#pause-})
        [ -n "$p" ] || { log "fault $t $kind $h $d none-running"; return; }
        kill -STOP $p
        hold "$d"
        kill -CONT $p
        ;;
    cut-ft-out)
        nft_drop $h "" "oifname ft drop;" ""
        hold "$d"
        nft_heal $h
        ;;
    cut-ft-both)
        nft_drop $h "" "oifname ft drop;" "iifname ft drop;"
        hold "$d"
        nft_heal $h
        ;;
    cut-client)
        ip -n $C link set lan$h down
        hold "$d"
        ip -n $C link set lan$h up
        ;;
    cut-arbiter)
        nft_drop $h "" "oifname arb drop;" "iifname arb drop;"
        hold "$d"
        nft_heal $h
        ;;
    isolate)
        # Cut from the peer and from etcd at once: the loser of the
        # arbitration must not win it later, its claim lapsed or not.
        nft_drop $h "" "oifname { ft, arb } drop;" "iifname { ft, arb } drop;"
        hold "$d"
        nft_heal $h
        ;;
    etcd-restart)
        ip netns pids $E | xargs -r kill -KILL
        hold "$d"
        etcd_start
        ;;
    term-ftd)
        p=$(pids $h ftd)
        [ -n "$p" ] && kill -TERM $p
        until_true 200 sh -c "[ -z \"\$(ip netns pids $ns | xargs -r -n1 \
            sh -c 'grep -qx ftd /proc/\$0/comm && echo \$0')\" ]"
        hold "$d"
        ;;
    disk-full)
        fallocate -l 2m "$work/disk/filler" 2>/dev/null ||
            head -c 2m /dev/zero >"$work/disk/filler" 2>/dev/null
        hold "$d"
        rm -f "$work/disk/filler"
        ;;
    behind)
        # The secondary falls behind: its ftvm stopped while the guest's
        # log grows fast (a flood of frames), so its buffer fills.
        p=$(pids $h ftvm)
        [ -n "$p" ] || { log "fault $t $kind $h $d none-running"; return; }
        ip netns exec $C "$fc" flood 10.78.0.2 "$d" >/dev/null 2>&1 &
        p1=$!
        kill -STOP $p
        hold "$d"
        kill -CONT $p
        wait $p1
        ;;
    starve)
        # The secondary's ftvm gets 20% of a CPU: stopped 80 ms of 100.
        p=$(pids $h ftvm)
        [ -n "$p" ] || { log "fault $t $kind $h $d none-running"; return; }
        n=$(awk -v d="$d" 'BEGIN { n = int(d * 10); print n ? n : 1 }')
        while [ $n -gt 0 ]; do
            kill -STOP $p 2>/dev/null
            sleep 0.08
            kill -CONT $p 2>/dev/null
            sleep 0.02
            n=$((n - 1))
        done
        ;;
    busy-ftd)
        # A blocking connect to a silent host and an idle control client.
        xl $h ft-enable ghost 10.77.0.99 >/dev/null 2>&1 &
        p1=$!
        ip netns exec "$ns" "$fc" hold "$work/run$h/ftd.sock" "$d" \
            2>/dev/null &
        p2=$!
        hold "$d"
        wait $p1 $p2
        ;;
    esac
    log "fault $t $kind $h $d"
    kinds="$kinds $kind"
}

# The schedule: FAULTS_PER_SCHEDULE faults, each "kind host duration
# gap", from the seed only.  Targets that depend on roles (starve: the
# secondary) are named by role and found when the fault starts.
plan() {
    awk -v seed="$1" -v arb="$arbiter" -v n="$FAULTS_PER_SCHEDULE" \
        -v only="${KINDS:-}" 'BEGIN {
        srand(seed)
        k = split("kill pause-ftd pause-ftvm cut-ft-out cut-ft-both " \
                  "cut-client term-ftd disk-full starve busy-ftd " \
                  "behind kill-ftvm", kind)
        if (arb == "etcd")
            kind[++k] = "cut-arbiter"
        if (arb == "etcd")
            kind[++k] = "etcd-restart"
        if (arb == "etcd")
            kind[++k] = "isolate"
        if (only != "") {
            m = 0
            for (i = 1; i <= k; i++)
                if (index("," only ",", "," kind[i] ","))
                    keep[++m] = kind[i]
            for (i = 1; i <= m; i++)
                kind[i] = keep[i]
            k = m
        }
        if (!k) {
            print "nemesis: KINDS=" only ": no such fault here" \
                > "/dev/stderr"
            exit 1
        }
        for (i = 0; i < n; i++) {
            f = kind[1 + int(rand() * k)]
            h = rand() < 0.5 ? "A" : "B"
            d = 0.05 + rand() * 2.95
            if (f == "starve" || f == "behind")
                h = "secondary"
            if (f == "disk-full" || f == "etcd-restart")
                h = "-"
            printf "%s %s %.2f %.2f\n", f, h, d, 1.5 + rand()
        }
    }'
}

schedule() {
    s=$1
    [ $((s % 2)) = 0 ] && arbiter=file || arbiter=etcd
    echo "--- schedule seed $s: arbiter $arbiter$( [ $arbiter = file ] &&
        echo ' (cut-arbiter, isolate and etcd-restart do not apply:'\
             'file: is a directory both hosts see)')"
    etcd_ready=0
    kinds=""
    operator=0
    t_start=$(now)
    up || { echo "nemesis: cannot make the namespaces"; down; return 2; }
    : >"$work/nemesis"
    [ $arbiter = etcd ] && etcd_start
    conf A 10.77.0.1 1
    conf B 10.77.0.2 2
    ftd_start A && ftd_start B ||
        { echo "nemesis: ftd did not start: $(cat "$work"/ftd*.err)"
          down; return 2; }
    nsrun $A "$ftvm" serve --control "$work/runA/kv.sock" \
        --guest "$build/guests/kvstore.bin" --cmdline ip=10.78.0.2 \
        --net tap:kv0 --disk "$work/disk/kv.img" \
        --console "$work/kvA.console" >/dev/null 2>"$work/ftvmA.err" &
    until_true 200 "$dom0" "$work/runA/kv.sock" status &&
    xl A ft-enable kv 10.77.0.2 >/dev/null &&
    reprotected ||
        { echo "nemesis: kv not protected at the start:" \
               "$(tail -n 3 "$work"/ftd*.err)"; down; return 2; }
    ip netns exec $C timeout -k 5 $BUDGET "$fc" run 10.78.0.2 150 "s$s" "$s" \
        "$work/stop" lanA=A lanB=B >"$work/history" 2>"$work/client.err" &
    client=$!
    until_true 100 grep -q "^ok" "$work/history" ||
        { echo "nemesis: the client got no answer at the start"
          down; return 2; }
    plan "$s" >"$work/plan" || { down; return 2; }
    sed 's/^/  fault: /' "$work/plan"
    left=$(wc -l <"$work/plan")
    while read -r kind h d gap; do
        if [ "$(awk -v a="$t_start" -v b="$(now)" \
                'BEGIN { print (b - a > 100) }')" = 1 ]; then
            log "budget $(now) faults left: $left"
            echo "  (time budget spent: $left faults not run)"
            break
        fi
        case $h in
        secondary) h=$(role_host secondary)
                   [ $h = none ] && h=$(other "$(role_host primary)") ;;
        -) h=A ;;
        esac
        [ $h = none ] && h=A
        fault "$kind" "$h" "$d"
        ftds_up
        log "heal $(now)"
        left=$((left - 1))
        [ $left = 0 ] && break
        reprotected || break
        hold "$gap"
    done <"$work/plan"
    # The final reads start as the last fault heals (the 5 s rule), then
    # the 30 s for protection again.
    touch "$work/stop"
    wait $client
    log "heal $(now)"
    ip netns exec $C timeout -k 5 60 "$fc" read 10.78.0.2 20 \
        "$work/history" lanA=A lanB=B >"$work/final" 2>>"$work/client.err"
    [ $left = 0 ] && reprotected
    cat "$work/history" "$work/final" "$work/nemesis" >"$work/all"
    awk -f "$here/check.awk" "$work/all" >"$work/verdict"
    rc=$?
    sed 's/^/  /' "$work/verdict"
    for k in $kinds; do
        eval "nk_$(echo $k | tr - _)=\$((\${nk_$(echo $k | tr - _):-0} + 1))"
    done
    for f in lost unexplained doublelive stuck failover; do
        v=$(awk -v f=$f '$1 == "figure" && $2 == f { print $3 }' \
            "$work/verdict")
        eval "tot_$f=\$((tot_$f + ${v:-0}))"
    done
    tot_operator=$((tot_operator + operator))
    if [ $rc != 0 ]; then
        mkdir -p "$keep/seed-$s"
        cp "$work"/history "$work"/final "$work"/nemesis "$work"/plan \
           "$work"/verdict "$work"/*.err "$work"/*.conf "$keep/seed-$s/" \
           2>/dev/null
        echo "  FAIL: schedule seed $s (files in $keep/seed-$s;" \
             "rerun: make check-faults SEED=$s SCHEDULES=1)"
    fi
    down
    return $rc
}

A= B= C= E= work=
trap 'down' EXIT
trap 'exit 1' INT TERM
echo "nemesis: $schedules schedules from seed $seed0" \
     "(SEED=$seed0${KINDS:+ KINDS=$KINDS})"
tot_lost=0 tot_unexplained=0 tot_doublelive=0 tot_stuck=0 tot_operator=0
tot_failover=0
failed=0 ran=0 broken=0
run=0
while [ $run -lt "$schedules" ]; do
    sd=$((seed0 + run))
    started=$(now)
    schedule $sd
    case $? in
    0) ;;
    2) broken=$((broken + 1)) ;;
    *) failed=$((failed + 1)) ;;
    esac
    ran=$((ran + 1))
    echo "  schedule seed $sd took $(awk -v a="$started" -v b="$(now)" \
        'BEGIN { printf "%.1f", b - a }') s"
    run=$((run + 1))
done

mkdir -p "$build/bench"
{
    echo "nemesis_runs $ran"
    echo "nemesis_failed_runs $failed"
    echo "nemesis_broken_runs $broken"
    for k in kill pause_ftd pause_ftvm cut_ft_out cut_ft_both cut_client \
             term_ftd disk_full starve busy_ftd cut_arbiter etcd_restart \
             isolate behind; do
        eval echo "nemesis_faults_$k \${nk_$k:-0}"
    done
    echo "nemesis_lost_writes $tot_lost"
    echo "nemesis_unexplained_replies $tot_unexplained"
    echo "nemesis_double_live $tot_doublelive"
    echo "nemesis_stuck_runs $tot_stuck"
    echo "nemesis_healthy_failovers $tot_failover"
    echo "nemesis_operator_reprotects $tot_operator"
} >"$build/bench/faults.kv"
sh "$here/../bench/kv-to-json.sh" "$build/bench"
echo "nemesis: $ran schedules from seed $seed0: $failed failed," \
     "$broken could not run; lost writes $tot_lost, unexplained replies" \
     "$tot_unexplained, double-live $tot_doublelive, stuck $tot_stuck," \
     "failovers of a healthy guest $tot_failover"
[ $failed = 0 ] && [ $broken = 0 ]
