#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# attached.sh BUILD - `ftvm serve` driven through its control socket by
# ftvm-dom0, a stand-in for ftd: a log recorded through the shared ring
# replays standalone to the same state; a vCPU stalled on a full ring
# answers status and loses nothing; outputs nobody acknowledged leave on
# an orderly STOP only, never on HALT, a failure, a signal or a client
# that went away; a secondary made by save/restore and fed ring to ring
# ends where the primary ends, or goes live when the primary is killed;
# a guest that powers off or halts with interrupts disabled ends the log
# in order, on both sides alike; the disk is opened for durable writes;
# bad requests are refused with a reason, and so is a control path that
# holds a file or a symbolic link (left there, not removed), and a RECORD
# that runs out of descriptors for its ring.
#
# One host, no network: processes on unix sockets in $work.
#
#   ftvm-dom0 (d0: a stand-in for ftd) --p.sock--> ftvm serve (primary)
#                                     \--s.sock--> ftvm serve (secondary)
#   ftvm run --replay: the standalone check of a recorded log
set -u

build=${1:?usage: attached.sh BUILD}
NAME=attached
. "$(dirname "$0")/lib.sh"

dom0=$build/tests/ftvm-dom0
. "$(dirname "$0")/../lib/ftd.sh"      # ended
d0() { timeout -k 5 60 "$dom0" "$@"; }

# serve NAME ARGS...: `ftvm serve` on $work/NAME.sock in the background;
# its stdout, stderr and exit status go to $work/NAME.{out,err,rc}.
serve() {
    n=$1
    shift
    rm -f "$work/$n.rc"
    (timeout -k 5 120 "$ftvm" serve --control "$work/$n.sock" \
        --console "$work/$n.con" "$@" >"$work/$n.out" 2>"$work/$n.err"
     echo $? >"$work/$n.rc") &
    # Until it answers (a socket left by a killed ftvm does not).
    i=0
    until "$dom0" "$work/$n.sock" status >/dev/null 2>&1; do
        i=$((i + 1))
        if [ $i -ge 200 ] || [ -e "$work/$n.rc" ]; then
            bad "$n: no control socket: $(cat "$work/$n.err")"
            return 1
        fi
        sleep 0.05      # polling for the socket, bounded: 10 s
    done
}

cpu=$build/guests/cpu.bin
idle=$build/guests/idle.bin

# 1. Recorded through the ring, replayed standalone: the same end.
if serve p --guest "$cpu" --cmdline seed=5 --paused &&
   d0 "$work/p.sock" record "$work/log1" --seconds 2 >"$work/d.out" \
       2>"$work/d.err" && [ "$(ended p)" = 0 ]; then
    if timeout -k 5 120 "$ftvm" run --guest "$cpu" --cmdline seed=5 \
           --replay "$work/log1" --console none >"$work/r.out" \
           2>"$work/r.err" && cmp -s "$work/p.out" "$work/r.out"; then
        ok "recorded through the shared ring, replayed standalone alike \
($(grep recorded= "$work/d.out"), $(head -1 "$work/r.out"))"
    else
        bad "the standalone replay differs: $(cat "$work/r.err")"
    fi
else
    bad "record through the ring: $(cat "$work/d.err" "$work/p.err")"
fi

# 2. A full ring stalls the vCPU inside its instruction, nothing lost.
if serve p --guest "$idle" --timer-hz 20000 --paused &&
   d0 "$work/p.sock" record "$work/log2" --seconds 1 --ring 131072 --hold \
       >"$work/d.out" 2>"$work/d.err" && [ "$(ended p)" = 0 ]; then
    if grep -q "^stalled: state=running mode=record" "$work/d.out" &&
       grep -q "^pause while stalled: the vCPU waits" "$work/d.out" &&
       timeout -k 5 120 "$ftvm" run --guest "$idle" --timer-hz 20000 \
           --replay "$work/log2" --console none >"$work/r.out" \
           2>"$work/r.err" && cmp -s "$work/p.out" "$work/r.out"; then
        ok "stalled on a full 128 KiB ring: status served, pause refused, \
$(grep recorded= "$work/d.out") replayed alike"
    else
        bad "stall: $(cat "$work/d.out" "$work/r.err")"
    fi
else
    bad "stall: $(cat "$work/d.err" "$work/p.err")"
fi

# 2b. The output rule: nothing leaves before its record is acknowledged.
if serve p --guest "$cpu" --cmdline seed=4 --paused &&
   d0 "$work/p.sock" record "$work/log2b" --seconds 1 \
       --gate-check "$work/p.con" >"$work/d.out" 2>"$work/d.err" &&
   [ "$(ended p)" = 0 ]; then
    ok "output rule: console held while unacknowledged \
($(grep '^held' "$work/d.out")), released on acknowledgement"
else
    bad "output rule: $(cat "$work/d.err" "$work/p.err")"
fi

# What ftvm-dom0 printed: the size of the watched file before the end,
# and how many held outputs HALT (or a signal) threw away.
watched() { sed -n 's/^before the end: \([0-9]*\) bytes.*/\1/p' "$1"; }
thrown() { sed -n 's/.*: \([0-9]*\) held outputs .*thrown away.*/\1/p' "$1" |
           head -1; }
size() { wc -c <"$1"; }

# 2c. HALT: a primary whose records nobody acknowledged ends unheard.
if serve p --guest "$cpu" --cmdline seed=4 --paused &&
   d0 "$work/p.sock" record "$work/log2c" --seconds 1 --no-ack --halt \
       --watch "$work/p.con" >"$work/d.out" 2>"$work/d.err"; then
    rc=$(ended p)
    before=$(watched "$work/d.out")
    n=$(thrown "$work/d.out")
    if [ "$rc" = 5 ] && [ -n "$before" ] &&
       [ "$(size "$work/p.con")" = "$before" ] && [ "${n:-0}" -gt 0 ]; then
        ok "halt: $n unacknowledged outputs thrown away, the console \
stays at $before bytes, exit status 5"
    else
        bad "halt: exit $rc, console $before then $(size "$work/p.con") \
bytes, $n thrown away: $(cat "$work/d.out" "$work/p.err")"
    fi
else
    bad "halt: $(cat "$work/d.err" "$work/p.err")"
    d0 "$work/p.sock" stop >/dev/null 2>&1
    ended p >/dev/null
fi

# 2d. STOP keeps its orderly meaning: what the gate held leaves.
if serve p --guest "$cpu" --cmdline seed=4 --paused &&
   d0 "$work/p.sock" record "$work/log2d" --seconds 1 --no-ack \
       --watch "$work/p.con" >"$work/d.out" 2>"$work/d.err" &&
   [ "$(ended p)" = 0 ]; then
    before=$(watched "$work/d.out")
    if [ -n "$before" ] && [ "$(size "$work/p.con")" -gt "$before" ]; then
        ok "stop: the unacknowledged console output leaves ($before, then \
$(size "$work/p.con") bytes)"
    else
        bad "stop: console $before then $(size "$work/p.con") bytes"
    fi
else
    bad "stop: $(cat "$work/d.err" "$work/p.err")"
fi

# 2e. A disk shared with a secondary: the write nobody acknowledged never
# reaches it after HALT; after STOP it does.
truncate -s 2M "$work/zero"
for end in halt stop; do
    rm -f "$work/disk2e"
    truncate -s 2M "$work/disk2e"
    flag=
    [ $end = halt ] && flag=--halt
    if serve p --guest "$build/guests/disk.bin" --cmdline every=1 --paused \
           --disk "$work/disk2e" &&
       d0 "$work/p.sock" record "$work/log2e" --seconds 1 --no-ack $flag \
           >"$work/d.out" 2>"$work/d.err"; then
        rc=$(ended p)
        if [ $end = halt ] && [ "$rc" = 5 ] &&
           cmp -s "$work/disk2e" "$work/zero"; then
            ok "halt with a disk: the held write never reaches the file \
($(thrown "$work/d.out") outputs thrown away)"
        elif [ $end = stop ] && [ "$rc" = 0 ] &&
             ! cmp -s "$work/disk2e" "$work/zero"; then
            ok "stop with a disk: the held write reaches the file"
        else
            bad "$end with a disk: exit $rc, the file \
$(cmp -s "$work/disk2e" "$work/zero" && echo untouched || echo written)"
        fi
    else
        bad "$end with a disk: $(cat "$work/d.err" "$work/p.err")"
        d0 "$work/p.sock" stop >/dev/null 2>&1
        ended p >/dev/null
    fi
done

# 2f. The client goes away while nothing is acknowledged: the guest
# records on, nothing leaves; the next client halts it.
if serve p --guest "$cpu" --cmdline seed=4 --paused &&
   d0 "$work/p.sock" record "$work/log2f" --seconds 1 --no-ack --leave \
       --watch "$work/p.con" >"$work/d.out" 2>"$work/d.err"; then
    before=$(watched "$work/d.out")
    rseq() {
        d0 "$work/p.sock" status |
            sed -n 's/.*mode=record .* seq=\([0-9]*\) .*/\1/p'
    }
    seq0=$(rseq)
    seq=
    # Until the guest has recorded more with no client (bounded: 10 s).
    i=0
    while [ -n "$seq0" ] && [ $i -lt 200 ]; do
        seq=$(rseq)
        [ -n "$seq" ] && [ "$seq" -gt "$seq0" ] && break
        i=$((i + 1))
        sleep 0.05
    done
    d0 "$work/p.sock" halt >"$work/x" 2>&1
    rc=$(ended p)
    if [ "$rc" = 5 ] && [ -n "$before" ] && [ -n "$seq" ] &&
       [ "$seq" -gt "$seq0" ] && [ "$(size "$work/p.con")" = "$before" ]
    then
        ok "the client went away: records $seq0 to $seq, nothing left; \
the next client halted it ($(thrown "$work/x") held outputs thrown away)"
    else
        bad "client gone: exit $rc, records ${seq0:-?} to ${seq:-?}, console \
$before then $(size "$work/p.con") bytes: $(cat "$work/x" "$work/p.err")"
    fi
else
    bad "client gone: $(cat "$work/d.err" "$work/p.err")"
fi
d0 "$work/p.sock" stop >/dev/null 2>&1
ended p >/dev/null

# 2g. A signal while recording ends the primary as a failure would:
# nothing held is sent.
if serve p --guest "$cpu" --cmdline seed=4 --paused &&
   d0 "$work/p.sock" record "$work/log2g" --seconds 1 --no-ack --leave \
       --watch "$work/p.con" >"$work/d.out" 2>"$work/d.err"; then
    before=$(watched "$work/d.out")
    pid=$(pgrep -f "^$ftvm serve --control $work/p.sock" | head -1)
    kill -TERM "$pid"
    rc=$(ended p)
    if [ "$rc" = 0 ] && [ -n "$before" ] &&
       [ "$(size "$work/p.con")" = "$before" ] &&
       [ "$(thrown "$work/p.err")" -gt 0 ] 2>/dev/null; then
        ok "a signal while recording: nothing held is sent \
($(cat "$work/p.err"))"
    else
        bad "signal: exit $rc, console $before then $(size "$work/p.con") \
bytes: $(cat "$work/p.err")"
    fi
else
    bad "signal: $(cat "$work/d.err" "$work/p.err")"
fi
d0 "$work/p.sock" stop >/dev/null 2>&1
ended p >/dev/null

# 2h. A primary that failed keeps what it held, even when told to stop.
if serve p --guest "$cpu" --cmdline seed=4 --paused &&
   d0 "$work/p.sock" record "$work/log2h" --seconds 1 --bad-ack \
       --watch "$work/p.con" >"$work/d.out" 2>"$work/d.err"; then
    rc=$(ended p)
    before=$(watched "$work/d.out")
    if [ "$rc" = 1 ] && [ -n "$before" ] &&
       [ "$(size "$work/p.con")" = "$before" ] &&
       grep -q "^failed: state=failed" "$work/d.out"; then
        ok "a failed primary told to stop sends nothing it held \
($(sed -n 's/^why=//p' "$work/d.out" | head -1))"
    else
        bad "failed primary: exit $rc, console $before then \
$(size "$work/p.con") bytes: $(cat "$work/d.out")"
    fi
else
    bad "failed primary: $(cat "$work/d.err" "$work/p.err")"
    d0 "$work/p.sock" stop >/dev/null 2>&1
    ended p >/dev/null
fi

# 2i. HALT is served while the vCPU waits inside an instruction for a
# full ring.
if serve p --guest "$idle" --timer-hz 20000 --paused &&
   d0 "$work/p.sock" record "$work/log2i" --seconds 1 --ring 131072 --hold \
       --halt >"$work/d.out" 2>"$work/d.err" && [ "$(ended p)" = 5 ] &&
   grep -q "^halt while stalled: state=failed mode=record" "$work/d.out"
then
    ok "halt served on a full ring, the vCPU inside an instruction"
else
    bad "halt while stalled: $(cat "$work/d.out" "$work/d.err" \
"$work/p.err")"
    d0 "$work/p.sock" stop >/dev/null 2>&1
    ended p >/dev/null
fi

# 2j. HALT of a guest that neither records nor replays.
if serve p --guest "$idle" --timer-hz 100 &&
   d0 "$work/p.sock" halt >"$work/x" 2>&1 && [ "$(ended p)" = 5 ] &&
   grep -q "^state=failed mode=live .* exit=5" "$work/x"; then
    ok "halt of a guest running free: exit status 5"
else
    bad "halt, free: $(cat "$work/x" "$work/p.err")"
    d0 "$work/p.sock" stop >/dev/null 2>&1
    ended p >/dev/null
fi

# 3. DISABLE ends the log where it is; the guest runs on unrecorded.
if serve p --guest "$cpu" --cmdline seed=6 --paused &&
   d0 "$work/p.sock" record "$work/log3" --seconds 1 --disable \
       >"$work/d.out" 2>"$work/d.err" &&
   d0 "$work/p.sock" status >"$work/st" 2>&1 &&
   grep -q "state=running mode=live" "$work/st"; then
    if timeout -k 5 120 "$ftvm" run --guest "$cpu" --cmdline seed=6 \
           --replay "$work/log3" --console none >/dev/null 2>"$work/r.err"
    then
        ok "disable: the log ends cleanly, the guest runs on"
    else
        bad "disable: the log does not replay: $(cat "$work/r.err")"
    fi
else
    bad "disable: $(cat "$work/d.err" "$work/st" 2>/dev/null)"
fi
d0 "$work/p.sock" stop >/dev/null 2>&1
ended p >/dev/null

# 4. A secondary from save/restore, fed ring to ring, ends alike.
for ring in 0 131072; do
    if serve p --guest "$cpu" --cmdline seed=7 --paused &&
       serve s --incoming &&
       d0 pair "$work/p.sock" "$work/s.sock" --seconds 2 --ring $ring \
           >"$work/d.out" 2>"$work/d.err" &&
       d0 "$work/s.sock" stop >/dev/null 2>&1 &&
       [ "$(ended p)" = 0 ] && [ "$(ended s)" = 0 ]; then
        if cmp -s "$work/p.out" "$work/s.out" &&
           cmp -s "$work/p.con" "$work/s.con"; then
            ok "pair (ring ${ring:-default} bytes): the secondary ends in \
the primary's state ($(grep moved= "$work/d.out"))"
        else
            bad "pair: states differ: $(cat "$work/p.out" "$work/s.out")"
        fi
    else
        bad "pair: $(cat "$work/d.err" "$work/p.err" "$work/s.err")"
        d0 "$work/p.sock" stop >/dev/null 2>&1
        d0 "$work/s.sock" stop >/dev/null 2>&1
    fi
    ended p >/dev/null
    ended s >/dev/null
done

# 4a. A guest that stops by itself while recording (ACPI power-off, or
# `cli; hlt`): ftvm ends the log in order there and reports ENDED with
# the end's status; the guest's last output leaves once acknowledged;
# the log replays standalone to the same end, and a secondary fed ring
# to ring ends there too.
for how in poweroff:0 halt:6; do
    arg=${how%:*} want=${how#*:}
    if serve p --guest "$idle" --timer-hz 100 --cmdline "$arg=10" --paused &&
       d0 "$work/p.sock" record "$work/log4a" --seconds 1 >"$work/d.out" \
           2>"$work/d.err" && [ "$(ended p)" = "$want" ]; then
        timeout -k 5 60 "$ftvm" run --guest "$idle" \
            --cmdline "$arg=10 hz=100" --replay "$work/log4a" \
            --console "$work/r.con" >"$work/r.out" 2>"$work/r.err"
        rc=$?
        if grep -q "^end: state=ended mode=record .* exit=$want " \
               "$work/d.out" && [ "$rc" = "$want" ] &&
           cmp -s "$work/p.out" "$work/r.out" &&
           cmp -s "$work/p.con" "$work/r.con" &&
           grep -q "^idle: \(powering off\|halting\)" "$work/p.con"; then
            ok "$arg while recording: ended, exit $want, the log ends in \
order and replays alike ($(grep '^why=' "$work/d.out"))"
        else
            bad "$arg while recording: replay exit $rc: $(cat "$work/d.out" \
"$work/p.out" "$work/r.out" "$work/r.err")"
        fi
    else
        bad "$arg while recording: exit $(cat "$work/p.rc" 2>/dev/null): \
$(cat "$work/d.out" "$work/d.err" "$work/p.err")"
        d0 "$work/p.sock" stop >/dev/null 2>&1
    fi
    ended p >/dev/null
done
if serve p --guest "$idle" --timer-hz 100 --cmdline poweroff=10 --paused &&
   serve s --incoming &&
   d0 pair "$work/p.sock" "$work/s.sock" --seconds 1 >"$work/d.out" \
       2>"$work/d.err" &&
   d0 "$work/s.sock" stop >/dev/null 2>&1 &&
   [ "$(ended p)" = 0 ] && [ "$(ended s)" = 0 ] &&
   grep -q "^secondary: state=ended mode=replay" "$work/d.out" &&
   cmp -s "$work/p.out" "$work/s.out" && cmp -s "$work/p.con" "$work/s.con"
then
    ok "poweroff in a pair: the secondary ends where the primary did \
($(head -1 "$work/s.out"))"
else
    bad "poweroff in a pair: $(cat "$work/d.out" "$work/d.err" \
"$work/p.err" "$work/s.err")"
    d0 "$work/p.sock" stop >/dev/null 2>&1
    d0 "$work/s.sock" stop >/dev/null 2>&1
fi
ended p >/dev/null
ended s >/dev/null

# 4b. Save and restore through the control socket keep the whole state,
# a guest halted in HLT included: the copy hashes as the original.
if serve p --guest "$idle" --timer-hz 100 && serve s --incoming &&
   d0 "$work/p.sock" record "$work/log4b" --seconds 1 --disable \
       >/dev/null 2>&1 &&
   d0 "$work/p.sock" pause >/dev/null &&
   d0 "$work/p.sock" status --hash >"$work/h1"; then
    # Caught in HLT almost always; a few more tries if not.
    i=0
    while ! grep -q "halted=1" "$work/h1" && [ $i -lt 20 ]; do
        i=$((i + 1))
        d0 "$work/p.sock" unpause >/dev/null
        d0 "$work/p.sock" pause >/dev/null
        d0 "$work/p.sock" status --hash >"$work/h1"
    done
fi
if [ -s "$work/h1" ] &&
   d0 "$work/p.sock" save "$work/snap4b" >/dev/null &&
   d0 "$work/s.sock" restore "$work/snap4b" >/dev/null &&
   d0 "$work/s.sock" status --hash >"$work/h2" &&
   grep -q "halted=1" "$work/h1" && cmp -s "$work/h1" "$work/h2"; then
    ok "restored through the socket: the same state, halted included"
else
    bad "restore: $(cat "$work/h1" "$work/h2" 2>/dev/null)"
fi
d0 "$work/p.sock" stop >/dev/null 2>&1
d0 "$work/s.sock" stop >/dev/null 2>&1
ended p >/dev/null
ended s >/dev/null

# 4c. HALT of a replaying secondary: it exits 5, the primary is stopped.
if serve p --guest "$cpu" --cmdline seed=7 --paused && serve s --incoming &&
   d0 pair "$work/p.sock" "$work/s.sock" --seconds 1 --halt-secondary \
       >"$work/d.out" 2>"$work/d.err" && [ "$(ended s)" = 5 ] &&
   grep -q "^secondary halted: state=failed mode=replay .* exit=5" \
       "$work/d.out"; then
    ok "halt of a replaying secondary: exit status 5 \
($(grep moved= "$work/d.out"))"
else
    bad "halt, replay: $(cat "$work/d.out" "$work/d.err" "$work/s.err")"
    d0 "$work/s.sock" stop >/dev/null 2>&1
fi
d0 "$work/p.sock" stop >/dev/null 2>&1
ended p >/dev/null
ended s >/dev/null

# 5. The primary is killed: the secondary replays what it got, goes live.
if serve p --guest "$cpu" --cmdline seed=8 --paused &&
   serve s --incoming; then
    ppid=$(pgrep -f "^$ftvm serve --control $work/p.sock" | head -1)
    if d0 pair "$work/p.sock" "$work/s.sock" --seconds 1 --kill "$ppid" \
           >"$work/d.out" 2>"$work/d.err" &&
       grep -q "^secondary live: state=running mode=live" "$work/d.out" &&
       d0 "$work/s.sock" stop >/dev/null 2>&1 && [ "$(ended s)" = 0 ]; then
        ok "failover: the secondary went live and runs on \
($(grep 'primary killed' "$work/d.out"))"
    else
        bad "failover: $(cat "$work/d.out" "$work/d.err" "$work/s.err")"
        d0 "$work/s.sock" stop >/dev/null 2>&1
    fi
    ended p >/dev/null
    ended s >/dev/null
fi

# 5b. The same with a disk shared by both: the write the primary held in
# its gate when it died is done again by the secondary, whose guest reads
# back what it wrote, round after round.
# Both open the file for durable writes (O_DSYNC, octal 010000 in the
# flags /proc shows): a completion the log carries is on the disk.
dsync() {       # dsync PID FILE: the flags of PID's descriptor of FILE
    for fd in /proc/$1/fd/*; do
        if [ "$(readlink "$fd")" = "$(readlink -f "$2")" ]; then
            flags=$(sed -n 's/^flags:[[:space:]]*//p' \
                    "/proc/$1/fdinfo/${fd##*/}")
            [ $((0$flags & 010000)) != 0 ] && echo "$flags"
            return
        fi
    done
}
truncate -s 2M "$work/disk"
if serve p --guest "$build/guests/disk.bin" --cmdline every=1 --paused \
       --disk "$work/disk" &&
   serve s --incoming --disk "$work/disk"; then
    ppid=$(pgrep -f "^$ftvm serve --control $work/p.sock" | head -1)
    spid=$(pgrep -f "^$ftvm serve --control $work/s.sock" | head -1)
    pflags=$(dsync "$ppid" "$work/disk")
    sflags=$(dsync "$spid" "$work/disk")
    if [ -n "$pflags" ] && [ -n "$sflags" ]; then
        ok "the disk file is open with O_DSYNC on both sides (flags \
$pflags, $sflags)"
    else
        bad "the disk file is not open with O_DSYNC (primary ${pflags:-no}, \
secondary ${sflags:-no})"
    fi
    if d0 pair "$work/p.sock" "$work/s.sock" --seconds 1 --kill "$ppid" \
           >"$work/d.out" 2>"$work/d.err"; then
        before=$(grep -c ' ok' "$work/s.con")
        i=0
        while [ "$(grep -c ' ok' "$work/s.con")" -le $((before + 20)) ] &&
              [ $i -lt 200 ]; do
            i=$((i + 1))
            sleep 0.05  # the live secondary's console, bounded: 10 s
        done
        after=$(grep -c ' ok' "$work/s.con")
        if [ "$after" -gt $((before + 20)) ] &&
           ! grep -q FAILED "$work/s.con"; then
            ok "disk failover: the live secondary goes on reading back \
what it wrote ($before rounds at go-live, $after later)"
        else
            bad "disk failover: $before then $after rounds; \
$(grep FAILED "$work/s.con" | head -1)"
        fi
    else
        bad "disk failover: $(cat "$work/d.err" "$work/s.err")"
    fi
    d0 "$work/s.sock" stop >/dev/null 2>&1
    ended p >/dev/null
    ended s >/dev/null
fi

# 6. Refusals, each with its reason; the server stays up through them.
# (The killed primary left its socket behind: a new ftvm replaces it.)
if [ -S "$work/p.sock" ] && serve p --incoming; then
    ok "a socket left by a killed ftvm is taken over"
else
    bad "stale socket: $(cat "$work/p.err")"
fi
sock=$work/p.sock
# magic FCTL, version 9, op STATUS, 8 bytes of zeros
expect "another protocol version" 1 "version 9" -- d0 "$sock" raw \
    4643544c090001000000000000000000
# version 1: a client from before HALT; 2: from before ENDED
expect "the version before HALT" 1 \
    "version 1, this ftvm speaks version 3" -- \
    d0 "$sock" raw 4643544c010001000000000000000000
expect "the version before ENDED" 1 \
    "version 2, this ftvm speaks version 3" -- \
    d0 "$sock" raw 4643544c020001000000000000000000
expect "a short request" 1 "request of 4 bytes" -- d0 "$sock" raw 4643544c
expect "an unknown operation" 1 "unknown operation 77" -- d0 "$sock" raw \
    4643544c03004d000000000000000000
expect "a request with no magic" 1 "not an ftvm control" -- \
    d0 "$sock" raw \
    00000000030001000000000000000000
expect "unpause with no guest" 1 "restore one first" -- d0 "$sock" unpause
expect "golive while not replaying" 1 "not replaying" -- d0 "$sock" golive
expect "disable while not recording" 1 "not recording" -- d0 "$sock" disable
expect "throttling to 0%" 1 "from 1 to 100" -- d0 "$sock" throttle 0
expect "throttling to 101%" 1 "from 1 to 100" -- d0 "$sock" throttle 101
if d0 "$sock" throttle 25 >/dev/null && d0 "$sock" status | grep -q speed=25
then
    ok "throttled to 25%, as status says"
else
    bad "throttle: $(d0 "$sock" status 2>&1)"
fi
printf 'not a snapshot at all' >"$work/junk"
expect "restoring junk" 1 "not an ftvm snapshot" -- \
    d0 "$sock" restore "$work/junk"
if d0 "$sock" busy >"$work/x" 2>&1 && grep -q "another control client" \
        "$work/x"; then
    ok "a second client refused: $(head -1 "$work/x")"
else
    bad "second client: $(cat "$work/x")"
fi
if timeout -k 5 20 "$ftvm" serve --control "$sock" --incoming \
        2>"$work/x"; then
    bad "a second ftvm took a socket in use"
elif grep -q "in use by another ftvm" "$work/x"; then
    ok "a socket in use refused: $(cat "$work/x")"
else
    bad "socket in use: $(cat "$work/x")"
fi
# Anything but a socket at the control path is refused and left there.
echo "not a socket" >"$work/plain.sock"
ln -s "$work/plain.sock" "$work/link.sock"
for f in plain link; do
    if timeout -k 5 20 "$ftvm" serve --control "$work/$f.sock" \
            --incoming 2>"$work/x"; then
        bad "ftvm served on $f.sock, not a socket"
    elif grep -q "is a .*, not a socket: not used, not removed" \
            "$work/x" && [ -L "$work/link.sock" ] &&
         [ "$(cat "$work/plain.sock")" = "not a socket" ]; then
        ok "a control path that is $(sed 's/.* is \(a [a-z ]*\),.*/\1/' \
"$work/x") refused and left there"
    else
        bad "control path $f.sock: $(cat "$work/x"); now: \
$(ls -l "$work/$f.sock" 2>&1)"
    fi
done
if d0 "$sock" status >"$work/x" 2>&1 && grep -q "state=paused" "$work/x"
then
    ok "the server is still up and paused after the refusals"
else
    bad "after the refusals: $(cat "$work/x")"
fi
d0 "$sock" stop >/dev/null 2>&1
ended p >/dev/null

# 6b. Out of descriptors while RECORD hands out its ring: refused with the
# reason (once the refusal carried the ring's descriptors, one of them -1,
# and never left: the client waited 10 s for nothing), and the guest
# records once it has descriptors again.
# fd_limit N PID: the limit under which PID can open N descriptors more.
fd_limit() {
    ls "/proc/$2/fd" | awk -v want="$1" '{ used[$1] = 1 }
        END { for (l = 0; n < want; l++) if (!(l in used)) n++; print l }'
}
if serve q --guest "$idle" --paused; then
    pid=$(pidof_cmd "$ftvm serve --control $work/q.sock")
    # The client's connection, the ring's memfd and its two eventfds.
    prlimit --pid "$pid" --nofile="$(fd_limit 4 "$pid"):"
    expect "RECORD out of descriptors" 1 \
        "record: cannot pass the ring: Too many open files" -- \
        d0 "$work/q.sock" record "$work/logq" --seconds 1
    prlimit --pid "$pid" --nofile=1024:
    if d0 "$work/q.sock" record "$work/logq2" --seconds 1 >"$work/x" 2>&1
    then
        ok "with descriptors again, RECORD hands out its ring"
    else
        bad "RECORD after descriptors ran out: $(cat "$work/x")"
    fi
    d0 "$work/q.sock" stop >/dev/null 2>&1
    ended q >/dev/null
fi

finish
