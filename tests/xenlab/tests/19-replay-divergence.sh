#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 19-replay-divergence.sh - on the hypervisor built from xen-patches
# (skipped without it), a wrong log is caught where it goes wrong: the
# idle guest protected by ftd with the step counter, its copy replaying
# on host 2.  There the copy is paused, one external interrupt in its
# replay ring not yet replayed is moved one step later (xen-ring-edit:
# every other record keeps its point), and the copy let go.  Xen's
# replay must stop at that very record and say so ("divergence at
# record N: log has external interrupt at ..."), its vCPU standing
# before it, and ftd must end the pair naming the divergence (the
# domctl's status says the copy diverged); the primary runs on.
#
#   +---- QEMU: Xen host 1 ----+  one network   +---- QEMU: Xen host 2 ----+
#   | idle, recorded (steps)   |                | its copy, replayed       |
#   | ftd primary ------------ +-- records -->  + ftd secondary :7801      |
#   |                          |                | paused, record N moved   |
#   | runs on, then ends <---- +--- :8002 ----- + divergence at record N   |
#   +--------------------------+                +--------------------------+
. "$(dirname "$0")/../testlib.sh"

diverge_lab move
expect_status 0
expect_lines '^moved record [0-9]+: external interrupt, count delta' \
    '^copy xen: FT: replay stopped: divergence at record [0-9]+: log has '\
'external interrupt at ' \
    '^secondary: ftd: .*replay failed: domain [0-9]+: FT replay stopped at '\
'record [0-9]+: the copy diverged from the log' \
    '^primary: ftd: .*protected$' '^idle runs on$'
moved=$(sed -n 's/^moved record \([0-9]*\): .*/\1/p' "$out")
re='^copy xen: FT: replay stopped: divergence at record \([0-9]*\): .*'
at=$(sed -n "s/$re/\\1/p" "$out")
[ -n "$moved" ] && [ "$moved" = "$at" ] ||
    fail "record $moved was moved, Xen stopped at record '$at'"
re='^secondary: ftd: .*replay failed: .* stopped at record \([0-9]*\): .*'
stopped=$(sed -n "s/$re/\\1/p" "$out" | head -n 1)
[ "$stopped" -lt "$moved" ] ||
    fail "the copy stands after record $stopped, not before $moved"
echo "diverged: at record $moved, the one moved"
exit 0
