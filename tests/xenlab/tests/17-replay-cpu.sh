#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 17-replay-cpu.sh - as 16-replay-idle, the cpu guest: a busy loop over
# 4 MiB of memory, its timer at 100 Hz interrupting it anywhere in the
# loop, single-stepped for two million steps on host 1 and replayed on
# host 2; then the same count, RAM, registers and console.
#
#   +---- QEMU: Xen host 1 ----+  one network   +---- QEMU: Xen host 2 ----+
#   | cpu, recorded (steps)    |                | its copy, replayed       |
#   | ftd primary ------------ +-- records -->  + ftd secondary :7801      |
#   | paused: "SEQ COUNT" ---- +--- :8002 ----> + replayed that far        |
#   | (again if they differ)   + <-- :8004 ---- + the copy's count         |
#   | hash, console            + <-- :8003 ---- + hash, console, "hashed"  |
#   +--------------------------+                +--------------------------+
. "$(dirname "$0")/../testlib.sh"

patched_image
lab_put bin/ftd guests/cpu.bin tests/xlft-xen tests/xen-state-hash
put_key
lab --hosts 2 --xen "$image" --timeout 540 -- '
. /xenft/dom0.sh
ft_setup cpu
opts="$opts --timeout 600000"
fit_cfg cpu cpu.bin "hz=100"
if [ "$XENLAB_HOST" = 2 ]; then
    replay_copy cpu
    exit 0
fi
xl create /tmp/cpu.cfg || exit 1
waiting 60 "the cpu guest" grep -q "^cpu: seed" /tmp/cpu.log
peer_ready
replay_primary cpu 2000000
'
expect_status 0
expect_lines '^primary: ftd: domain [0-9]+: recording into a ring of [0-9]+ '\
'frames \(counting steps\)' '^lag: [0-9]+ steps' \
    '^replayed to seq [0-9]+ in [0-9]+ ms$' \
    '^paused at count [0-9]+, the copy at' '^steps: [0-9]+ in [0-9]+ ms' \
    '^primary ram: 32 MiB' '^copy ram: 32 MiB' \
    '^primary console: cpu: seed 1$'
# A round of the loop takes twenty million steps: nothing is written
# meanwhile, on either console.
expect_replayed quiet
exit 0
