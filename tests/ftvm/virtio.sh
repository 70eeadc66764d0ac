#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# virtio.sh BUILD - the virtio conformance guest (hvm/guests/vcheck.c):
# the initialisation sequence of virtio 1.0 on both devices, then a
# frame, a disk write read back, get-id and a flush; and a driver that
# gets it wrong in each of four ways gets the device's error state
# (DEVICE_NEEDS_RESET, with the reason on ftvm's standard error) or a
# refused FEATURES_OK, never a crash or a hang; after a reset the device
# works again.  Every run is recorded and replays to the same
# instruction count, state hash and console.  A device field the primary
# logged, forged, is named where the copy meets it.
# One host, no network: ftvm runs on files in $work.
set -u

build=${1:?usage: virtio.sh BUILD}
NAME=virtio
. "$(dirname "$0")/lib.sh"

guest=$build/guests/vcheck.bin

# check CASE WHAT 'CONSOLE LINES' [STDERR]: recorded with a disk, the
# guest powers off with exactly those console lines (and that reason),
# and the log replays to the same end.
check() {
    c=$1 what=$2 want=$3 err=${4:-}
    truncate -s 1M "$work/disk$c"
    timeout -k 5 60 "$ftvm" run --guest "$guest" --cmdline "case=$c" \
        --seconds 20 --disk "$work/disk$c" --record "$work/$c.log" \
        --console "$work/$c.con" >"$work/$c.out" 2>"$work/$c.err"
    rc=$?
    printf '%s\n' "$want" >"$work/$c.want"
    if [ "$rc" != 0 ] || ! grep -q 'guest powered off' "$work/$c.err"; then
        bad "$what: exit $rc: $(cat "$work/$c.err")"
        return
    fi
    if ! cmp -s "$work/$c.con" "$work/$c.want"; then
        bad "$what: the console is not what was wanted: \
$(diff "$work/$c.want" "$work/$c.con" | tr '\n' ' ')"
        return
    fi
    if [ -n "$err" ] && ! grep -q "ftvm: guest driver: $err" "$work/$c.err"
    then
        bad "$what: ftvm did not say \"$err\": $(cat "$work/$c.err")"
        return
    fi
    timeout -k 5 60 "$ftvm" run --guest "$guest" --cmdline "case=$c" \
        --replay "$work/$c.log" --console "$work/$c.rcon" \
        >"$work/$c.rout" 2>"$work/$c.rerr"
    rc=$?
    if [ "$rc" != 0 ] || ! cmp -s "$work/$c.out" "$work/$c.rout" ||
       ! cmp -s "$work/$c.con" "$work/$c.rcon"; then
        bad "$what: the replay differs (exit $rc): $(cat "$work/$c.rerr") \
$(cat "$work/$c.out" "$work/$c.rout" | tr '\n' ' ')"
        return
    fi
    ok "$what ($(grep insns= "$work/$c.out"), replayed alike)"
}

check 0 "the virtio 1.0 sequence on both devices" \
"vcheck: net status 0x0000000f
vcheck: net sent, used length 0x00000000
vcheck: blk status 0x0000000f
vcheck: blk write 0x00000000
vcheck: blk read 0x00000000
vcheck: blk same 0x00000001
vcheck: blk get-id 0x00000000
vcheck: blk id xenft-disk
vcheck: blk flush 0x00000000"
check 1 "a notify before FEATURES_OK: DEVICE_NEEDS_RESET" \
"vcheck: early notify: status 0x00000043" \
"a queue was notified before FEATURES_OK"
check 2 "a descriptor outside RAM: DEVICE_NEEDS_RESET" \
"vcheck: outside RAM: status 0x0000004f" "a descriptor points outside RAM"
check 3 "a chain that loops: DEVICE_NEEDS_RESET, the request never used" \
"vcheck: loop: request 0x000000ee
vcheck: loop: status 0x0000004f" "a descriptor chain loops"
check 4 "no VERSION_1: FEATURES_OK refused" \
"vcheck: no VERSION_1: status 0x00000003"
check 5 "a reset after DEVICE_NEEDS_RESET: the disk works again" \
"vcheck: loop: request 0x000000ee
vcheck: loop: status 0x0000004f
vcheck: after reset: status 0x0000000f
vcheck: after reset: write 0x00000000" "a descriptor chain loops"
# A device field as the primary logged it, forged (the last byte of the
# first device state record, all fields): the copy stops there and names
# the field, before any state hash could only say that something differs.
truncate -s 1M "$work/ddisk"
timeout -k 5 60 "$ftvm" run --guest "$build/guests/disk.bin" \
    --cmdline every=1000 --disk "$work/ddisk" --seconds 1 --sync-every 0.05 \
    --record "$work/d.log" --console none >/dev/null 2>"$work/d.err" ||
    bad "the disk guest: $(cat "$work/d.err")"
seq=$("$ftlog" dump "$work/d.log" |
      awk '/ DMA .*gpa=0x8000000000000000 /{ print $1; exit }')
if [ -z "$seq" ]; then
    bad "no device state in the log: $("$ftlog" dump "$work/d.log" | head -3)"
else
    "$ftlog" edit "$work/d.log" "$work/d.bad" --seq "$seq" --flip
    timeout -k 5 60 "$ftvm" run --guest "$build/guests/disk.bin" \
        --cmdline every=1000 --replay "$work/d.bad" --console none \
        >/dev/null 2>"$work/d.rerr"
    rc=$?
    if [ "$rc" = 3 ] && grep -q "divergence at record $seq: device field \
pci[0-9]*\.[a-z0-9_.]* is 0x[0-9a-f]* here, 0x[0-9a-f]* on the primary" \
        "$work/d.rerr"; then
        ok "a forged device field named: $(cat "$work/d.rerr")"
    else
        bad "a forged device field: exit $rc: $(cat "$work/d.rerr")"
    fi
fi

# The disk holds what case 0 wrote and read back: sector 1.
if cmp -s -n 512 -i 512:0 "$work/disk0" /dev/zero; then
    bad "the disk write of case 0 never reached the file"
else
    ok "the disk write reached the host file"
fi
finish
