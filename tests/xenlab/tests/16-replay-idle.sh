#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 16-replay-idle.sh - on the hypervisor built from xen-patches (skipped
# without it), record/replay across two emulated hosts with the step
# counter: the idle guest protected by ftd, recorded on host 1, its copy
# replayed on host 2.  Its timer ticks at 20 Hz, not 100: single-stepped
# in the lab (some 10-30 thousand steps a second) it would never catch up
# with a 100 Hz timer, nor ever idle.  After 20000 steps protected, host
# 1 pauses its guest (Xen logs the point where it stopped), host 2 waits
# for its copy to have replayed that far (dom0.sh, replay_primary and
# replay_copy).  Then, each in its own dom0: the same count, the same
# hash of the first 32 MiB of guest RAM and of the vCPU's registers, the
# same PIT state (the guest latches and reads its count with each line,
# pitread=2, channel 0's by IN and channel 2's by one REP INSB of two
# bytes, which Xen's emulator does at once as a string read into RAM,
# logged as the instruction's DMA: the copy's PIT must see the reads its
# log answers, one for each byte), the same interrupts in service (dom0
# sends the primary an MSI of vector 0x27 once it is protected, which
# the guest takes as its IRQ 7 and acknowledges to its PIC alone: it
# stays in service in the local APIC, the copy's too only if its replay
# acknowledged it there), the RTC's periodic flags (on that MSI the
# guest starts its RTC's periodic interrupt, rtc=11, and never reads
# register C: on the primary the ticks' callback sets its flags, on the
# copy only if its replay of a timer's tick runs the callback too; the
# guest also arms its local APIC's timer once, oneshot=1, whose tick the
# copy must find its own timer for),
# nothing on either host where hvmloader had
# mapped shared_info, the system calls it made (syscall=1: SYSCALL
# enabled, as every 64-bit kernel has it, one with each line, which Xen
# emulates under steps so that its flag mask cannot clear TF; the series
# once refused such a guest), and the copy's console (its writes reach its
# device model as the primary's did) the same lines as the end of the
# primary's.  Measured: steps per second, the copy's lag behind the
# paused primary and how long it took to replay it.
#
#   +---- QEMU: Xen host 1 ----+  one network   +---- QEMU: Xen host 2 ----+
#   | idle, recorded (steps)   |                | its copy, replayed       |
#   | ftd primary ------------ +-- records -->  + ftd secondary :7801      |
#   | paused: "SEQ COUNT" ---- +--- :8002 ----> + replayed that far        |
#   | (again if they differ)   + <-- :8004 ---- + the copy's count         |
#   | hash, console            + <-- :8003 ---- + hash, console, "hashed"  |
#   +--------------------------+                +--------------------------+
. "$(dirname "$0")/../testlib.sh"

patched_image
lab_put bin/ftd guests/idle.bin tests/xlft-xen tests/xen-state-hash
put_key
lab --hosts 2 --xen "$image" --timeout 540 -- '
. /xenft/dom0.sh
ft_setup
opts="$opts --timeout 600000"
fit_cfg idle idle.bin "hz=20 pitread=2 syscall=1 rtc=11 oneshot=1"
if [ "$XENLAB_HOST" = 2 ]; then
    replay_copy idle
    exit 0
fi
xl create /tmp/idle.cfg || exit 1
ticks 2
peer_ready
replay_primary idle 20000 "/xenft/xlft-xen msi 1 39"
'
expect_status 0
expect_lines '^primary: ftd: domain [0-9]+: recording into a ring of [0-9]+ '\
'frames \(counting steps\)' '^lag: [0-9]+ steps' \
    '^replayed to seq [0-9]+ in [0-9]+ ms$' \
    '^paused at count [0-9]+, the copy at' '^steps: [0-9]+ in [0-9]+ ms' \
    '^primary ram: 32 MiB' '^copy ram: 32 MiB' \
    '^primary irq: local APIC in service 0x27;' \
    '^primary timers: RTC periodic flags 0xc0$' \
    '^copy console: idle: [0-9]+ ticks' \
    '^copy console: idle: [1-9][0-9]* system calls$'
expect_replayed
exit 0
