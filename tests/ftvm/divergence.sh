#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# divergence.sh BUILD - a replay that is fed a wrong log must stop with
# the right exit status and name the record: a flipped TSC value, an
# interrupt moved by one instruction, a dropped record, a flipped byte
# of what the disk read, a cut log, a damaged byte, another guest command
# line; and usage errors are 2.
# One host, no network: ftvm and ftlog on files in $work.
set -u

build=${1:?usage: divergence.sh BUILD}
NAME=divergence
. "$(dirname "$0")/lib.sh"

idle="--guest $build/guests/idle.bin --timer-hz 1000 --cmdline report=100"
# shellcheck disable=SC2086
"$ftvm" run $idle --seconds 0.3 --record "$work/log" --console none \
    >/dev/null || { echo "FAIL: cannot record"; exit 1; }
"$ftlog" dump "$work/log" >"$work/dump" || { echo "FAIL: dump"; exit 1; }

# A TSC value the guest counts time with: the next state hash differs.
seq=$(awk '/ TSC read /{n++; if (n == 5) { print $1; exit }}' "$work/dump")
sync=$(awk -v s="$seq" '$1 > s && / state sync /{ print $1; exit }' \
       "$work/dump")
"$ftlog" edit "$work/log" "$work/e" --seq "$seq" --flip
# shellcheck disable=SC2086
expect "flipped TSC value (record $seq)" 3 "divergence at record $sync" -- \
    "$ftvm" run $idle --replay "$work/e" --console none

# An interrupt one instruction late is caught where it was due.
seq=$(awk '/ external interrupt /{n++; if (n == 7) { print $1; exit }}' \
      "$work/dump")
"$ftlog" edit "$work/log" "$work/e" --seq "$seq" --later
# shellcheck disable=SC2086
expect "interrupt moved by one (record $seq)" 3 \
    "divergence at record $seq" -- \
    "$ftvm" run $idle --replay "$work/e" --console none

seq=$(awk '/ port read /{n++; if (n == 3) { print $1; exit }}' "$work/dump")
"$ftlog" edit "$work/log" "$work/e" --seq "$seq" --drop
# shellcheck disable=SC2086
expect "dropped port read (record $seq)" 3 "divergence at record $seq" -- \
    "$ftvm" run $idle --replay "$work/e" --console none

size=$(wc -c <"$work/log")
head -c $((size - 60)) "$work/log" >"$work/cut"
# shellcheck disable=SC2086
expect "cut log" 4 "truncated" -- \
    "$ftvm" run $idle --replay "$work/cut" --console none

cp "$work/log" "$work/dmg"
printf 'X' | dd of="$work/dmg" bs=1 seek=$((size / 2)) conv=notrunc \
    2>/dev/null
# shellcheck disable=SC2086
expect "damaged byte" 4 "checksum mismatch\|damaged" -- \
    "$ftvm" run $idle --replay "$work/dmg" --console none

expect "another command line" 3 "divergence at record 1:" -- \
    "$ftvm" run --guest "$build/guests/idle.bin" --timer-hz 999 \
    --cmdline report=100 --replay "$work/log" --console none

# What virtio-blk read, one bit changed: the guest's memory differs from
# there, and the copy stops where that first shows (the guest's own
# check of what it read, or the next state hash), never before it.
truncate -s 2M "$work/disk"
dg="--guest $build/guests/disk.bin --cmdline seed=4,every=1000"
# shellcheck disable=SC2086
"$ftvm" run $dg --disk "$work/disk" --seconds 0.5 --sync-every 0.05 \
    --record "$work/dlog" --console none >/dev/null ||
    { echo "FAIL: cannot record the disk guest"; exit 1; }
"$ftlog" dump "$work/dlog" >"$work/ddump" || { echo "FAIL: dump"; exit 1; }
seq=$(awk '/ DMA .* len=4096$/{n++; if (n == 3) { print $1; exit }}' \
      "$work/ddump")
sync=$(awk -v s="$seq" '$1 > s && / state sync /{ print $1; exit }' \
       "$work/ddump")
"$ftlog" edit "$work/dlog" "$work/e" --seq "$seq" --flip
# shellcheck disable=SC2086
"$ftvm" run $dg --replay "$work/e" --console none >/dev/null 2>"$work/de"
rc=$?
at=$(sed -n 's/^ftvm: divergence at record \([0-9]*\):.*/\1/p' "$work/de")
if [ "$rc" = 3 ] && [ -n "$at" ] && [ "$at" -gt "$seq" ] &&
   [ "$at" -le "$sync" ]; then
    ok "flipped disk read data (record $seq): caught at record $at"
else
    bad "flipped disk read data (record $seq, next hash $sync): exit $rc: \
$(cat "$work/de")"
fi

# A primary that fails keeps its log, which then reads as cut short.
cpu="--guest $build/guests/cpu.bin --timer-hz 1000 --cmdline seed=1,crash=1"
# shellcheck disable=SC2086
expect "primary fails" 1 "Invalid instruction" -- \
    "$ftvm" run $cpu --insns 100000000 --record "$work/crash" --console none
# shellcheck disable=SC2086
expect "log of a failed primary" 4 "without an end marker" -- \
    "$ftvm" run $cpu --replay "$work/crash" --console none

expect "not a log" 4 "not a xenft log" -- \
    "$ftvm" run $idle --replay "$build/guests/idle.bin" --console none
expect "no such log" 1 "cannot open" -- \
    "$ftvm" run $idle --replay "$work/nothing" --console none
expect "usage: no guest" 2 "say what to run" -- \
    "$ftvm" run --seconds 1
expect "usage: both modes" 2 "exclude each other" -- \
    "$ftvm" run $idle --record a --replay b
expect "usage: no length" 2 "how long" -- \
    "$ftvm" run $idle
expect "usage: bad rate" 2 "timer-hz" -- \
    "$ftvm" run $idle --seconds 1 --timer-hz 5
expect "not a guest image" 1 "no multiboot header" -- \
    "$ftvm" run --guest "$work/log" --seconds 0.1 --console none
# A multiboot header at offset 0 whose addresses put the image's start
# 4 KiB before it, outside the file.
mb='\002\260\255\033\000\000\001\000\376\117\121\344'
mb=$mb'\000\020\020\000\000\000\020\000\040\020\020\000'
mb=$mb'\040\020\020\000\000\020\020\000'
# shellcheck disable=SC2059
printf "$mb" > "$work/before"
expect "image before its file" 1 "does not describe an image" -- \
    "$ftvm" run --guest "$work/before" --seconds 0.1 --console none

finish
