#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# net.sh BUILD - virtio-net over UDP on loopback: the netrx guest
# receives frames a sender pushes while ftvm records, the nettx guest
# sends frames a receiver counts; each run replayed from its log alone
# must end in the same state with the same console output.
#
# One host, UDP on 127.0.0.1, ports BASE.. of this run:
#
#   udpframes send --> BASE    ftvm (netrx) sends to BASE+1
#   ftvm (nettx) BASE+2 --> BASE+3 udpframes recv
set -u

build=${1:?usage: net.sh BUILD}
NAME=net
. "$(dirname "$0")/lib.sh"
frames=$build/tests/udpframes
# Ports of this run only, away from the usual services.
base=$((30000 + $$ % 20000))

# replay_same GUEST ARGS: the log replays to the recorded end (else bad).
replay_same() {
    guest=$1 args=$2
    if ! timeout -k 10 120 "$ftvm" run --guest "$build/guests/$guest.bin" \
            --cmdline "$args" --replay "$work/log" --console "$work/c2" \
            >"$work/o2" 2>"$work/e2"; then
        bad "$guest replay: $(cat "$work/e2")"
        return 1
    fi
    if ! cmp -s "$work/o1" "$work/o2" || ! cmp -s "$work/c1" "$work/c2"; then
        bad "$guest: record and replay differ: $(paste "$work/o1" "$work/o2")"
        return 1
    fi
    return 0
}

# netrx: 400 frames of 1000 bytes arrive while the guest runs.
timeout -k 10 60 "$ftvm" run --guest "$build/guests/netrx.bin" \
    --cmdline every=100 --net "udp:$base:$((base + 1))" --seconds 2 \
    --record "$work/log" --console "$work/c1" >"$work/o1" 2>"$work/e1" &
pid=$!
udp_bound "$base" || echo "net: ftvm never listened on $base"
"$frames" send "$base" 400 1000 >/dev/null
wait "$pid"
rc=$?
if [ "$rc" != 0 ]; then
    bad "netrx recording: $(cat "$work/e1")"
elif ! grep -q "netrx: 400 frames, 400000 bytes" "$work/c1"; then
    bad "netrx did not see the 400 frames: $(cat "$work/c1")"
elif replay_same netrx every=100; then
    ok "netrx, 400 frames received, replayed identically"
fi

# nettx: the guest sends 300 frames, a receiver counts them.
"$frames" recv "$((base + 3))" 300 20 >"$work/r" &
rpid=$!
udp_bound "$((base + 3))" || echo "net: the receiver never listened"
if ! timeout -k 10 60 "$ftvm" run --guest "$build/guests/nettx.bin" \
        --cmdline count=300,size=800,every=100 \
        --net "udp:$((base + 2)):$((base + 3))" --seconds 1.5 \
        --record "$work/log" --console "$work/c1" >"$work/o1" \
        2>"$work/e1"; then
    bad "nettx recording: $(cat "$work/e1")"
    kill "$rpid" 2>/dev/null
elif ! wait "$rpid"; then
    bad "nettx: $(cat "$work/r")"
elif replay_same nettx count=300,size=800,every=100; then
    ok "nettx, 300 frames sent and received, replayed identically"
fi

finish
