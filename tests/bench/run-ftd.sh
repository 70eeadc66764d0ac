#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run-ftd.sh BUILD - what protection by ftd costs and how fast it fails
# over, in one run:
#  - the logging channel against plain TCP over loopback (bench-channel):
#    throughput ratios, encrypted (goal >= 0.50) and in clear (>= 0.90);
#  - the output latency the gate adds: a client sends small UDP requests
#    to two kvstore guests in turn, one unprotected (ftvm serve alone) and
#    one protected by ftd, each on a host of its own (network namespaces,
#    client -> veth -> bridge -> tap -> guest); added latency = protected
#    minus unprotected, at p50 (goal <= RTT + 30 us) and p99 (<= RTT +
#    200 us), RTT being a bare UDP ping-pong on loopback; and where the
#    time goes, hop by hop (tests/bench/hops.sh, XLFT_TRACE);
#  - failover time, FAILOVER_ROUNDS times (20) for each kind of failure:
#    every process of the primary host killed (the channel resets), and
#    the primary host silent (its processes stopped, its link cut: only
#    the heartbeat timeout tells), with the CPU-bound guest; killed also
#    with the idle guest; from the failure to the secondary's guest
#    reported live by ftvm's control socket, polled;
#  - false failovers: a protected pair for LOADED_SECONDS (60) with both
#    cores kept busy by two spinning shells; every failover counts; then,
#    still loaded, 5 secondaries made one after another: how many lost
#    their peer (heartbeat timeout) while the copy was made, and how many
#    of all the copies made unloaded in this run did.
# Figures go to BUILD/bench/ftd.kv and BUILD/bench/results.json.  The
# last three parts need root (network namespaces, tap devices).
#
#   +------ A ------+  ftA 10.77.0.1   +------ B ------+
#   | ftvm pN.sock  +------------------+ ftvm sN.sock  |
#   | ftd primary   |  ftB 10.77.0.2   | ftd secondary |
#   | kv0-br0-lanA  |                  +---------------+
#   +-------+-------+
#           | lanC 10.78.0.9      +------ U ------+
#   +-------+------ C ------+     | ftvm u.sock   |
#   | udp-rtt kv            +-----+ kv0-br0-lanU  |
#   +-------------- lanD 10.79.0.9+---------------+
#   (guests: 10.78.0.2 protected on A, 10.79.0.2 alone on U)
set -u

build=${1:?usage: run-ftd.sh BUILD}
ftvm=$build/bin/ftvm
ftd=$build/bin/ftd
dom0=$build/tests/ftvm-dom0
rtt=$build/bench/udp-rtt
dir=$build/bench
here=$(dirname "$0")
rounds=${FAILOVER_ROUNDS:-20}
loaded=${LOADED_SECONDS:-60}
requests=2000
A=xenft-ba-$$ B=xenft-bb-$$ C=xenft-bc-$$ U=xenft-bu-$$
hosts=
hogs=
work=$(mktemp -d "${TMPDIR:-/tmp}/xenft-bench.XXXXXX") || exit 1

killhost() {        # every process of namespace $1, stopped ones too
    pids=$(ip netns pids "$1" 2>/dev/null)
    [ -n "$pids" ] || return 0
    kill -KILL $pids 2>/dev/null
}
cleanup() {
    [ -n "$hogs" ] && kill $hogs 2>/dev/null
    for h in $hosts; do
        killhost "$h"
    done
    wait
    for h in $hosts; do
        ip netns del "$h" 2>/dev/null
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
    echo "run-ftd: FAILED: $*" >&2
    rm -f "$dir/ftd.kv"
    sh "$here/kv-to-json.sh" "$dir"
    exit 1
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# p99 of the numbers on stdin, nearest rank (under 100 of them: the largest).
p99() {
    sort -n | awk '{ v[NR] = $1 } END { i = int(NR * 0.99 + 0.999999)
                                        print v[i < 1 ? 1 : i] }'
}
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }
now_ms() { date +%s%N | awk '{ printf "%.1f", $1 / 1e6 }'; }
verdict() { awk -v x="$1" -v g="$2" -v op="$3" 'BEGIN {
    print ((op == "le" ? x <= g : x >= g) ? "met" : "MISSED") }'; }

# The samples behind the figures, for tests/bench/plots.sh.
plot=$dir/plot
rm -rf "$plot"
mkdir -p "$dir" "$plot"
for f in "$ftvm" "$ftd" "$dom0" "$rtt" "$dir/bench-channel"; do
    [ -x "$f" ] || fail "$f is not built"
done

# ---- the channel ------------------------------------------------------

timeout -k 5 900 "$dir/bench-channel" --kv "$work/kv" \
    --rounds-out "$plot/channel.dat" ||
    fail "bench-channel failed"

if [ "$(id -u)" != 0 ] || ! ip netns add "$A" 2>/dev/null; then
    fail "output latency and failover need root and ip netns"
fi
hosts=$A
for h in "$B" "$C" "$U"; do
    ip netns add "$h" || fail "cannot create network namespace $h"
    hosts="$hosts $h"
done
for h in $hosts; do
    ip -n "$h" link set lo up
done
# The FT link between the hosts.
ip link add ftA netns "$A" type veth peer name ftB netns "$B"
ip -n "$A" addr add 10.77.0.1/24 dev ftA
ip -n "$B" addr add 10.77.0.2/24 dev ftB
# The client's links to host A (protected guest) and host U (not).
ip link add lanC netns "$C" type veth peer name lanA netns "$A"
ip link add lanD netns "$C" type veth peer name lanU netns "$U"
ip -n "$C" addr add 10.78.0.9/24 dev lanC
ip -n "$C" addr add 10.79.0.9/24 dev lanD
for l in "$A ftA" "$B ftB" "$C lanC" "$C lanD"; do
    ip -n ${l% *} link set ${l#* } up
done
for l in "$A lanA" "$U lanU"; do
    ip -n ${l% *} link add br0 type bridge
    ip -n ${l% *} link set ${l#* } master br0 up
    ip -n ${l% *} link set br0 up
done

# inns NS NAME CMD... (tests/lib/ftd.sh), bounded by 300 s here.
NSRUN_SECONDS=300
. "$here/../lib/hosts.sh"
. "$here/../lib/ftd.sh"
newkey "$work/key"
inns_pids=
# reap NS...: kill every process of those hosts and wait for them.
reap() {
    for h in "$@"; do
        killhost "$h"
    done
    [ -n "$inns_pids" ] && wait $inns_pids
    inns_pids=
}
has() { grep -q "$1" "$2" 2>/dev/null; }
# exited NAME: NAME (started by inns) has ended; not waiting for it.
exited() { [ -s "$work/$1.rc" ]; }

# guest_net NS: the tap of the guest just started there into its bridge.
guest_net() {
    until_true 200 ip -n "$1" link show kv0 ||
        fail "the guest's network in $1 did not come up"
    ip -n "$1" link set kv0 master br0 up
}

# pair R GUEST-ARGS...: a guest on A protected by ftd on B, round R;
# true once the secondary replays and the primary is protected.
pair() {
    r=$1
    shift
    mkdir -p "$work/arb.$r"
    inns "$A" gp$r "$ftvm" serve --control "$work/p$r.sock" --console none \
        "$@"
    inns "$B" gs$r "$ftvm" serve --control "$work/s$r.sock" --incoming \
        --console none
    until_true 200 "$dom0" "$work/p$r.sock" status &&
        until_true 200 "$dom0" "$work/s$r.sock" status || return 1
    case "$*" in *tap:*) guest_net "$A" ;; esac
    inns "$B" fs$r "$ftd" secondary --pair vm$r --guest "$work/s$r.sock" \
        --listen 10.77.0.2:$((7800 + r)) --key "$work/key" \
        --arbiter "file:$work/arb.$r" --host-name hostB
    until_true 200 has listening "$work/fs$r.out" || return 1
    inns "$A" fp$r "$ftd" primary --pair vm$r --guest "$work/p$r.sock" \
        --peer 10.77.0.2:$((7800 + r)) --key "$work/key" \
        --arbiter "file:$work/arb.$r" --host-name hostA
    until_true 400 has "replaying" "$work/fs$r.err" &&
        until_true 400 has "protected" "$work/fp$r.err"
}

# ---- output latency -----------------------------------------------------

echo
echo "ftd: output latency, $requests requests to each guest in turn"
timeout -k 5 120 "$rtt" loopback $requests >"$work/lo" ||
    fail "loopback ping-pong failed"
lo50=$(field p50_us <"$work/lo")
lo99=$(field p99_us <"$work/lo")

truncate -s 4M "$work/u.img" "$work/p.img"
inns "$U" gu "$ftvm" serve --control "$work/u.sock" --console none \
    --guest "$build/guests/kvstore.bin" --cmdline ip=10.79.0.2 \
    --net tap:kv0 --disk "$work/u.img"
until_true 200 "$dom0" "$work/u.sock" status ||
    fail "the unprotected guest did not start: $(cat "$work/gu.err")"
guest_net "$U"
# The protected pair notes when each hop of an output's way happened.
mkdir -p "$work/trace"
export XLFT_TRACE="$work/trace"
pair 0 --guest "$build/guests/kvstore.bin" --cmdline ip=10.78.0.2 \
    --net tap:kv0 --disk "$work/p.img" ||
    fail "protecting the kvstore guest: $(cat "$work"/*0.err)"
unset XLFT_TRACE
ip netns exec "$C" timeout -k 5 120 "$rtt" --samples "$work" kv $requests \
    10.79.0.2 10.78.0.2 >"$work/kvrtt" 2>&1 ||
    fail "the client: $(cat "$work/kvrtt")"
mv "$work/10.79.0.2.us" "$plot/reply-unprotected.us" &&
    mv "$work/10.78.0.2.us" "$plot/reply-protected.us" ||
    fail "the client wrote no samples"
has "protected" "$work/fp0.err" && ! has "peer lost" "$work/fp0.err" ||
    fail "the guest was not protected throughout: $(cat "$work/fp0.err")"
un50=$(grep '^10.79' "$work/kvrtt" | field p50_us)
un99=$(grep '^10.79' "$work/kvrtt" | field p99_us)
pr50=$(grep '^10.78' "$work/kvrtt" | field p50_us)
pr99=$(grep '^10.78' "$work/kvrtt" | field p99_us)
add50=$(awk -v a="$pr50" -v b="$un50" 'BEGIN { printf "%.1f", a - b }')
add99=$(awk -v a="$pr99" -v b="$un99" 'BEGIN { printf "%.1f", a - b }')
g50=$(awk -v r="$lo50" 'BEGIN { printf "%.1f", r + 30 }')
g99=$(awk -v r="$lo50" 'BEGIN { printf "%.1f", r + 200 }')
printf '   %-34s %10s %10s\n' "request -> reply, us" p50 p99
printf '   %-34s %10s %10s\n' "loopback UDP ping-pong" "$lo50" "$lo99"
printf '   %-34s %10s %10s\n' "kvstore guest, unprotected" "$un50" "$un99"
printf '   %-34s %10s %10s\n' "kvstore guest, protected by ftd" "$pr50" "$pr99"
printf '   %-34s %10s %10s\n' "added by protection" "$add50" "$add99"
echo "   goal p50 <= RTT + 30 us = $g50: $(verdict "$add50" "$g50" le)"
echo "   goal p99 <= RTT + 200 us = $g99: $(verdict "$add99" "$g99" le)"
echo "   where a held output's time goes (XLFT_TRACE):"
sh "$here/hops.sh" "$work/trace" "$work/kv" ||
    fail "no per-hop figures from $work/trace"
{
    echo "loopback_rtt_us $lo50"
    echo "loopback_rtt_p99_us $lo99"
    echo "kv_reply_unprotected_p50_us $un50"
    echo "kv_reply_unprotected_p99_us $un99"
    echo "kv_reply_protected_p50_us $pr50"
    echo "kv_reply_protected_p99_us $pr99"
    echo "gate_added_latency_p50_us $add50"
    echo "gate_added_latency_p99_us $add99"
} >>"$work/kv"
reap "$A" "$B" "$U"

# ---- failover -----------------------------------------------------------

# lost_in_copy R: the pair of round R did not come up because one side
# stopped hearing the other while the copy was made (counted, reported).
lost_in_copy() {
    if has "peer lost" "$work/fp$1.err" || has "peer lost" "$work/fs$1.err"
    then
        copy_lost=$((copy_lost + 1))
        echo "   round $1: the peer was lost while the copy was made:" \
             "$(grep -h "peer lost" "$work/fp$1.err" "$work/fs$1.err" |
                head -1)" >&2
        reap "$A" "$B"
        return 0
    fi
    return 1
}
copy_lost=0

# failover R KIND GUEST-ARGS...: protect a guest, fail the primary host
# (KIND kill or silent), print the ms from the failure to the
# secondary's guest live, and the ms ftd says it took from losing the
# primary to handing the guest the rest of the log.  Status 2 if the
# pair did not come up (lost_in_copy).
failover() {
    r=$1 kind=$2
    shift 2
    if ! pair "$r" "$@"; then
        lost_in_copy "$r" && return 2
        fail "round $r: protecting the guest: $(cat "$work"/*$r.err)"
    fi
    # The pair runs a moment, as one in service would (ftd holds the
    # guests' control sockets: there is nothing to poll).
    sleep 0.3
    pids=$(ip netns pids "$A")
    t0=$(now_ms)
    if [ "$kind" = kill ]; then
        kill -KILL $pids
    else
        kill -STOP $pids
        ip -n "$A" link set ftA down
    fi
    # Every 5 ms or so (ftd holds ftvm's control socket until it exits,
    # live), 10 s at most.
    n=0
    until "$dom0" "$work/s$r.sock" status 2>/dev/null | grep -q mode=live
    do
        n=$((n + 1))
        [ $n -lt 2000 ] ||
            fail "round $r ($kind): the secondary did not go live:" \
                 "$(cat "$work/fs$r.err" "$work/gs$r.err")"
        sleep 0.005     # polling for the failover, bounded
    done
    t1=$(now_ms)
    has "live at record" "$work/fs$r.err" ||
        fail "round $r ($kind): $(cat "$work/fs$r.err")"
    if [ "$kind" = kill ]; then
        has "connection\|closed" "$work/fs$r.err" ||
            fail "round $r: not detected by the channel:" \
                 "$(cat "$work/fs$r.err")"
    else
        has "heartbeat timeout" "$work/fs$r.err" ||
            fail "round $r: not detected by the heartbeat:" \
                 "$(cat "$work/fs$r.err")"
    fi
    ftdms=$(sed -n 's/.*live at record [0-9]*, \([0-9]*\) ms after.*/\1/p' \
        "$work/fs$r.err")
    echo "$t0 $t1 $ftdms" | awk '{ printf "%.1f %s\n", $2 - $1, $3 }'
    reap "$A" "$B"
    ip -n "$A" link set ftA up
}

# The cpu guest never idles, so its secondary replays as slowly as the
# primary ran and stays behind by the time the copy took: going live
# includes replaying that.  The idle guest's secondary is level with it.
r=0
for how in "kill cpu" "silent cpu" "kill idle"; do
    kind=${how% *} guest=${how#* }
    echo
    case $kind in
    kill) echo "ftd: failover, $guest guest, $rounds times: every process" \
               "of the primary host killed" ;;
    *)    echo "ftd: failover, $guest guest, $rounds times: the primary" \
               "host silent (stopped, link cut)" ;;
    esac
    : >"$work/fo"
    i=1 tries=0
    while [ $i -le "$rounds" ]; do
        r=$((r + 1)) tries=$((tries + 1))
        [ $tries -le $((rounds * 2)) ] ||
            fail "too many pairs lost while the copy was made"
        if [ "$guest" = cpu ]; then
            failover $r $kind --guest "$build/guests/cpu.bin" \
                --cmdline seed=$r >>"$work/fo"
        else
            failover $r $kind --guest "$build/guests/idle.bin" >>"$work/fo"
        fi && i=$((i + 1))
    done
    p50=$(cut -d' ' -f1 "$work/fo" | median)
    p99=$(cut -d' ' -f1 "$work/fo" | p99)
    max=$(cut -d' ' -f1 "$work/fo" | sort -n | tail -1)
    g50=$(cut -d' ' -f2 "$work/fo" | median)
    echo "   failure -> live: p50 $p50 ms, p99 $p99 ms, max $max ms" \
         "(ftd's own count from losing the primary, p50: $g50 ms)"
    case $how in
    "kill cpu")   key=failover_ms ;;
    "silent cpu") key=failover_silent_ms ;;
    *)            key=failover_idle_guest_ms ;;
    esac
    echo "${key}_p50 $p50" >>"$work/kv"
    echo "${key}_p99 $p99" >>"$work/kv"
    cut -d' ' -f1 "$work/fo" >"$plot/$key.ms"
done

# ---- false failovers under load -----------------------------------------

# A pair protected first, then both cores kept busy for $loaded s: every
# failover counts (after one, a new pair is made, under the load).  Then,
# still loaded, COPIES pairs made one after another: a pair whose peer
# is lost while its copy is made has failed over too.
copies=5
echo
echo "ftd: a protected pair for $loaded s with both cores busy"
r=300
false=0
unloaded=$copy_lost
protected=false
end=
while [ -z "$end" ] || [ "$(date +%s)" -lt $end ]; do
    if ! $protected; then
        r=$((r + 1))
        [ $r -le 320 ] || fail "loaded: 20 pairs made and lost: giving up"
        if ! pair $r --guest "$build/guests/cpu.bin" --cmdline seed=$r; then
            lost_in_copy $r ||
                fail "loaded: protecting the guest: $(cat "$work"/*$r.err)"
            false=$((false + 1))
            continue
        fi
        protected=true
    fi
    if [ -z "$end" ]; then
        for _ in 1 2; do
            timeout -k 5 $((loaded + 120)) sh -c 'while :; do :; done' &
            hogs="$hogs $!"
        done
        end=$(($(date +%s) + loaded))
    fi
    if exited fs$r || exited fp$r; then
        has "peer lost" "$work/fs$r.err" ||
            has "peer lost" "$work/fp$r.err" ||
            fail "loaded: the pair ended: $(cat "$work/fp$r.err" \
                "$work/fs$r.err")"
        false=$((false + 1))
        echo "   failed over: $(grep -h "peer lost" "$work/fs$r.err" \
            "$work/fp$r.err" | head -1)"
        reap "$A" "$B"
        protected=false
    fi
    sleep 0.2           # watching the pair, bounded by $end
done
reap "$A" "$B"
echo "   false failovers: $false (goal 0: $(verdict "$false" 0 le))"
echo "false_failovers_loaded_60s $false" >>"$work/kv"

echo
echo "ftd: $copies secondaries made one after another, both cores busy"
lost_before=$copy_lost
i=0
while [ $i -lt $copies ]; do
    r=$((r + 1)) i=$((i + 1))
    if pair $r --guest "$build/guests/cpu.bin" --cmdline seed=$r; then
        reap "$A" "$B"
    else
        lost_in_copy $r ||
            fail "loaded: protecting the guest: $(cat "$work"/*$r.err)"
    fi
done
kill $hogs 2>/dev/null
hogs=
lost=$((copy_lost - lost_before))
echo "   $lost of $copies lost their peer while the copy was made" \
     "(goal 0: $(verdict "$lost" 0 le))"
echo "false_failovers_copy_loaded $lost" >>"$work/kv"
echo "copies_loaded $copies" >>"$work/kv"
echo
echo "ftd: pairs that lost their peer while the copy was made, unloaded:" \
     "$unloaded of $((3 * rounds + unloaded))"
echo "peer_lost_during_copy_unloaded $unloaded" >>"$work/kv"

mv "$work/kv" "$dir/ftd.kv" || fail "cannot write $dir/ftd.kv"
sh "$here/kv-to-json.sh" "$dir" || fail "cannot merge $dir/*.kv"
echo
echo "run-ftd: figures in $dir/ftd.kv, all benchmarks in $dir/results.json"
