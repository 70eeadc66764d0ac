#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 23-replay-state-hash.sh - on the hypervisor built from xen-patches
# (skipped without it), the state hashes Xen logs are checked by its
# replay: the idle guest protected by ftd with the step counter, its
# copy replaying on host 2, where one state hash (SYNC record) in the
# copy's replay ring has a bit flipped while the copy is paused
# (xen-ring-edit).  Xen's replay must stop at that record ("divergence
# at record N: state hash at ... is X, log has Y"), ftd must end the
# pair naming the divergence, and the primary runs on.  That the hashes
# of an exact copy agree, tests 16 to 18 show: they replay logs with
# hashes in them.
#
#   +---- QEMU: Xen host 1 ----+  one network   +---- QEMU: Xen host 2 ----+
#   | idle, recorded (steps)   |                | its copy, replayed       |
#   | ftd primary ------------ +-- records -->  + ftd secondary :7801      |
#   |                          |                | paused, hash N flipped   |
#   | runs on, then ends <---- +--- :8002 ----- + divergence at record N   |
#   +--------------------------+                +--------------------------+
. "$(dirname "$0")/../testlib.sh"

diverge_lab hash
expect_status 0
expect_lines '^flipped record [0-9]+: state hash$' \
    '^copy xen: FT: replay stopped: divergence at record [0-9]+: state '\
'hash at count=[0-9]+ rip=0x[0-9a-f]+ rcx=0x[0-9a-f]+ '\
'is 0x[0-9a-f]+, log has 0x' \
    '^secondary: ftd: .*replay failed: domain [0-9]+: FT replay stopped at '\
'record [0-9]+: the copy diverged from the log' \
    '^primary: ftd: .*protected$' '^idle runs on$'
flipped=$(sed -n 's/^flipped record \([0-9]*\): .*/\1/p' "$out")
re='^copy xen: FT: replay stopped: divergence at record \([0-9]*\): .*'
at=$(sed -n "s/$re/\\1/p" "$out")
[ -n "$flipped" ] && [ "$flipped" = "$at" ] ||
    fail "record $flipped was flipped, Xen stopped at record '$at'"
echo "diverged: at record $flipped, the one flipped"
exit 0
