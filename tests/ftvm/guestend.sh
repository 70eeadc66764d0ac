#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# guestend.sh BUILD - a guest that stops by itself ends the run as a PC
# would stop, recorded and replayed alike: `cli; hlt` ends it with exit
# status 6 at once, with a log of a few records (it once woke the vCPU
# and logged a wake-up on every pass of the run loop: millions of
# records a second); an ACPI power-off (SLP_EN to PM1a_CNT) ends it with
# 0.  Each recording replays to the same instruction count, state hash
# and console.  A powered-off guest has no state to save.
# One host, no network: ftvm runs on files in $work.
set -u

build=${1:?usage: guestend.sh BUILD}
NAME=guestend
. "$(dirname "$0")/lib.sh"

idle=$build/guests/idle.bin
BUDGET_MS=5000          # the run ends well before its --seconds 10
LOG_MAX=65536           # bytes of log for the whole run

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# check WHAT ARG STATUS MESSAGE: the idle guest with ARG=10 (10 ticks at
# 100 Hz), recorded for at most 10 s, must end with STATUS and MESSAGE
# within the budget, with a small log, and replay to the same end.
check() {
    what=$1 arg=$2 want=$3 msg=$4
    t0=$(now_ms)
    timeout -k 5 60 "$ftvm" run --guest "$idle" --timer-hz 100 \
        --cmdline "$arg=10" --seconds 10 --record "$work/$arg.log" \
        --console "$work/$arg.con" >"$work/$arg.out" 2>"$work/$arg.err"
    rc=$?
    took=$(($(now_ms) - t0))
    size=$(wc -c <"$work/$arg.log")
    if [ "$rc" != "$want" ] || ! grep -q "^ftvm: $msg" "$work/$arg.err"; then
        bad "$what: exit $rc after $took ms (want $want and \"$msg\"): \
$(cat "$work/$arg.err")"
        return
    fi
    if [ "$took" -ge $BUDGET_MS ]; then
        bad "$what: the run took $took ms (budget $BUDGET_MS)"
        return
    fi
    if [ "$size" -ge $LOG_MAX ]; then
        bad "$what: $size bytes of log (at most $LOG_MAX)"
        return
    fi
    if grep -q "still running" "$work/$arg.con"; then
        bad "$what: the guest ran on: $(cat "$work/$arg.con")"
        return
    fi
    ok "$what: exit $rc in $took ms, $size bytes of log: \
$(cat "$work/$arg.err")"

    timeout -k 5 60 "$ftvm" run --guest "$idle" --cmdline "$arg=10 hz=100" \
        --replay "$work/$arg.log" --console "$work/$arg.rcon" \
        >"$work/$arg.rout" 2>"$work/$arg.rerr"
    rc=$?
    if [ "$rc" = "$want" ] && cmp -s "$work/$arg.out" "$work/$arg.rout" &&
       cmp -s "$work/$arg.con" "$work/$arg.rcon" &&
       cmp -s "$work/$arg.err" "$work/$arg.rerr"; then
        ok "$what: replayed to the same end ($(tr '\n' ' ' \
<"$work/$arg.rout"))"
    else
        bad "$what: the replay ends otherwise (exit $rc): \
$(cat "$work/$arg.out" "$work/$arg.rout" "$work/$arg.rerr")"
    fi
}

check "cli; hlt" halt 6 "guest halted with interrupts disabled"
check "ACPI power-off" poweroff 0 "guest powered off"

# Restored, a powered-off guest would run on past its power-off.
timeout -k 5 60 "$ftvm" run --guest "$idle" --timer-hz 100 \
    --cmdline poweroff=10 --seconds 10 --save "$work/snap" --console none \
    >/dev/null 2>"$work/err"
rc=$?
if [ "$rc" = 1 ] && [ ! -e "$work/snap" ] &&
   grep -q "powered off: no state to go on from" "$work/err"; then
    ok "no snapshot of a powered-off guest: $(cat "$work/err")"
else
    bad "snapshot after power-off: exit $rc: $(cat "$work/err")"
fi

finish
