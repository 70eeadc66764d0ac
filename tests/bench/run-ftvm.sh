#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run-ftvm.sh BUILD - what recording costs on ftvm, in one run:
#  - guest instructions per second of the cpu guest with FT off (the same
#    vCPU with the same exact counting, not recording) and recording on,
#    alternated five times, the median of each; their ratio is the goal
#    (>= 0.97): on Xen the branch counter is free, so this is the
#    comparison that predicts Xen.  Unicorn without the counting hook is
#    not measured: it says nothing about FT;
#  - log traffic of the idle guest at 82, 250 and 1000 Hz, in Mbit/s,
#    beside VMware FT's 0.15, 0.68 and 1.43;
#  - what durable disk writes cost: rounds per second of the disk guest
#    (a 4 KiB write, then its read back) as ftvm runs (the file O_DSYNC)
#    and with eatmydata taking O_DSYNC off the same binary's open, three
#    times each, alternated, the medians' ratio.  On the build tree's
#    file system, not $TMPDIR's, which may be a tmpfs where a sync is free.
# Figures go to BUILD/bench/ftvm.kv and BUILD/bench/results.json.
set -u

build=${1:?usage: run-ftvm.sh BUILD}
ftvm=$build/bin/ftvm
dir=$build/bench
here=$(dirname "$0")
. "$here/../lib/test.sh"        # udp_bound
work=$(mktemp -d "${TMPDIR:-/tmp}/xenft-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
insns=200000000

fail() {
    echo "run-ftvm: FAILED: $*" >&2
    rm -f "$dir/ftvm.kv"
    sh "$here/kv-to-json.sh" "$dir"
    exit 1
}

mkdir -p "$dir"
[ -x "$ftvm" ] || fail "$ftvm is not built"

now_ns() { date +%s%N; }

# One run of the cpu guest: prints instructions per second.
ips() {
    t0=$(now_ns)
    "$ftvm" run --guest "$build/guests/cpu.bin" --timer-hz 250 \
        --cmdline seed=5 --insns $insns --console none "$@" \
        >"$work/out" 2>"$work/err" || fail "ftvm: $(cat "$work/err")"
    t1=$(now_ns)
    echo $((insns * 1000 / ((t1 - t0) / 1000000)))
}

# Bytes of data a log brought into the guest: DMA records of 512 bytes
# or more (the smaller ones are status words and ring indices).
data_in() {
    "$build/bin/ftlog" dump "$1" |
        awk '/ DMA / { sub("len=", "", $NF); v = $NF + 0
                       if (v >= 512) s += v }
             END { print s + 0 }'
}

# per_input LOG BYTES WHAT KEY: log bytes per byte of input, against 1.05.
per_input() {
    logb=$(wc -c <"$1")
    per=$(awk -v l="$logb" -v i="$2" 'BEGIN { printf "%.4f", l / i }')
    verdict=$(awk -v r="$per" 'BEGIN { print (r <= 1.05 ? "met" : "MISSED") }')
    echo "   $2 bytes $3, log $logb bytes: $per (goal <= 1.05: $verdict)"
    echo "$4 $per" >>"$work/kv"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "ftvm: cpu guest, $insns instructions per run, FT off and on"
: >"$work/off"
: >"$work/on"
for i in 1 2 3 4 5; do
    ips >>"$work/off"
    ips --record "$work/log" >>"$work/on"
done
off=$(median <"$work/off")
on=$(median <"$work/on")
ratio=$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.3f", a / b }')
echo "   FT off: $off instructions/s (median of 5)"
echo "   FT on:  $on instructions/s (median of 5)"
verdict=$(awk -v r="$ratio" 'BEGIN { print (r >= 0.97 ? "met" : "MISSED") }')
echo "   ratio:  $ratio (goal >= 0.97: $verdict)"

{
    echo "ftvm_insns_per_s_ft_off $off"
    echo "ftvm_insns_per_s_ft_on $on"
    echo "ftvm_ft_on_off_ratio $ratio"
} >"$work/kv"

echo
echo "ftvm: idle guest, 3 s recorded at each timer rate"
printf '   %8s %12s %10s %14s\n' "timer Hz" "log bytes/s" "Mbit/s" \
    "VMware Mbit/s"
for hz in 82 250 1000; do
    "$ftvm" run --guest "$build/guests/idle.bin" --timer-hz $hz \
        --seconds 3 --record "$work/idle.log" --console none \
        >/dev/null 2>"$work/err" || fail "ftvm: $(cat "$work/err")"
    bytes=$(wc -c <"$work/idle.log")
    case $hz in 82) vm=0.15 ;; 250) vm=0.68 ;; *) vm=1.43 ;; esac
    mbit=$(awk -v b="$bytes" 'BEGIN { printf "%.4f", b * 8 / 3 / 1e6 }')
    printf '   %8s %12s %10s %14s\n' "$hz" $((bytes / 3)) "$mbit" "$vm"
    echo "ftvm_idle_mbit_s_${hz}hz $mbit" >>"$work/kv"
done

echo
echo "ftvm: disk guest, 2 s recorded: log bytes per byte the disk read"
truncate -s 8M "$work/disk.img"
"$ftvm" run --guest "$build/guests/disk.bin" --cmdline seed=9,every=1000 \
    --disk "$work/disk.img" --seconds 2 --record "$work/disk.log" \
    --console none >/dev/null 2>"$work/err" || fail "ftvm: $(cat "$work/err")"
input=$(data_in "$work/disk.log")
[ "$input" -gt 0 ] || fail "the disk guest read nothing"
per_input "$work/disk.log" "$input" read ftvm_log_per_input_disk

echo
echo "ftvm: netrx guest, 2000 frames of 1400 bytes: log bytes per byte in"
port=$((30000 + $$ % 20000))
"$ftvm" run --guest "$build/guests/netrx.bin" --cmdline every=100000 \
    --net "udp:$port:$((port + 1))" --seconds 3 --record "$work/net.log" \
    --console none >/dev/null 2>"$work/err" &
pid=$!
udp_bound "$port" || fail "ftvm never listened on UDP port $port"
"$build/tests/udpframes" send "$port" 2000 1400 >/dev/null ||
    fail "cannot send frames"
wait "$pid" || fail "ftvm: $(cat "$work/err")"
input=$(data_in "$work/net.log")
[ "$input" -gt 0 ] || fail "the netrx guest received nothing"
per_input "$work/net.log" "$input" received ftvm_log_per_input_netrx

echo
img=$dir/dsync.img
fs=$(findmnt -n -o FSTYPE -T "$dir" 2>/dev/null || stat -f -c %T "$dir")
echo "ftvm: disk guest, 3 s runs, durable writes (O_DSYNC) and not" \
     "(eatmydata), on $fs"
command -v eatmydata >/dev/null || fail "eatmydata is not installed"
# disk_rounds [WRAPPER]: rounds per second of one run.
disk_rounds() {
    rm -f "$img"
    truncate -s 8M "$img"
    "$@" "$ftvm" run --guest "$build/guests/disk.bin" --cmdline every=1 \
        --disk "$img" --seconds 3 --console "$work/dcon" >/dev/null \
        2>"$work/err" || fail "ftvm: $(cat "$work/err")"
    ! grep -q FAILED "$work/dcon" ||
        fail "disk guest: $(grep -m1 FAILED "$work/dcon")"
    sed -n 's/^disk: round \([0-9]*\) ok.*/\1/p' "$work/dcon" |
        awk '{ n = $1 } END { if (n) printf "%.1f\n", n / 3; else exit 1 }' ||
        fail "the disk guest did no round"
}
: >"$work/dsync"
: >"$work/nosync"
for i in 1 2 3; do
    disk_rounds >>"$work/dsync"
    disk_rounds eatmydata >>"$work/nosync"
done
rm -f "$img"
dsync=$(median <"$work/dsync")
nosync=$(median <"$work/nosync")
ratio=$(awk -v a="$dsync" -v b="$nosync" 'BEGIN { printf "%.3f", a / b }')
echo "   durable:  $dsync rounds/s (median of 3)"
echo "   not:      $nosync rounds/s (median of 3)"
echo "   ratio:    $ratio (durable over not: the price of a write that"
echo "             survives a power loss of the primary)"
{
    echo "ftvm_disk_rounds_per_s_dsync $dsync"
    echo "ftvm_disk_rounds_per_s_nosync $nosync"
    echo "ftvm_disk_dsync_ratio $ratio"
} >>"$work/kv"

mv "$work/kv" "$dir/ftvm.kv" || fail "cannot write $dir/ftvm.kv"
sh "$here/kv-to-json.sh" "$dir" || fail "cannot merge $dir/*.kv"
echo
echo "run-ftvm: figures in $dir/ftvm.kv, all benchmarks in $dir/results.json"
