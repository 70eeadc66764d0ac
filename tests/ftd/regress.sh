#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# regress.sh BUILD - ftd in the bad moments, each a failure once seen:
#   1. a primary whose ftd was paused long enough for its secondary to
#      go live loses the claim and halts: not one byte of the output it
#      held (never acknowledged) reaches its console;
#   2. a secondary whose guest stops replaying for 2 s, its log buffer
#      full, takes the primary's silence behind the full channel for no
#      death: no copy asks the arbiter, and protection goes on after;
#   3. ftd stopped (SIGTERM) on a protected primary halts its guest and
#      the secondary goes live: never both copies running;
#   4. the primary's host cut off while the copy is made: the primary's
#      guest runs on (it was paused for the copy), unprotected;
#   5. a primary's ftvm that takes requests and never answers (stopped,
#      as one its guest had taken over might be): ftd gives up on it at
#      the deadline, saying so, instead of waiting for good;
#   6. a protected guest that powers off (ACPI), or halts with interrupts
#      disabled: the pair ends in order, as the guest did (it was kept
#      until a host went, and then the copy went live into a guest that
#      was off): its last words reach its console, both ftds end, the
#      primary's ftvm exits with the guest's status, the secondary's copy
#      is stopped, and only the primary ever claims the generation;
#   7. the primary's ftvm stopped for 2 s while protected, its ring
#      quiet: ftd, asking whether the guest has ended, does not wait for
#      the answer (it did, and fell silent, and B went live): nothing
#      fails over, and outputs flow again after (B acknowledges);
#   8. the primary's ftvm killed while protected: ftd ends the pair
#      saying the guest is gone, and B goes live (A's pair stayed
#      "protected" for good, its guest dead);
#   9. the primary's host gone (ftd and ftvm killed): B says it is live
#      only once its copy has replayed all it holds and runs as the
#      guest (it said so when the copy was only asked to), after saying
#      that it is going live;
#  10. the secondary's copy killed: its ftd ends the pair at once (it
#      went on acknowledging a log nothing would replay, and said
#      protected), and the primary runs on unprotected.
# Two hosts in network namespaces made here.  Without root or ip netns
# the test says so and exits 77.
#
#   +------- host $a -------+                  +------- host $b -------+
#   | ftvm serve  pN.sock   |   FT link        | ftvm serve  sN.sock   |
#   | ftd primary --pair rgN|                  |  ftd secondary        |
#   |             va        +------------------+  vb                   |
#   |           10.81.0.1   |                  |   10.81.0.2:7800      |
#   +-----------------------+                  +-----------------------+
#   (the arbiter: a directory both see, $work/arb.N)
set -u

build=${1:?usage: regress.sh BUILD}
NAME=regress
. "$(dirname "$0")/lib.sh"
hosts_up "r" 10.81.0

newkey "$work/key"

# pair ROUND GUEST-ARGS SECONDARY-ARGS [FTD-SECONDARY-ARGS [HOOK]]: a
# guest on host a protected by a secondary on host b (HOOK run just
# before the primary's ftd starts).
pair() {
    r=$1 gargs=$2 sargs=$3 fargs=${4:-} hook=${5:-true}
    mkdir -p "$work/arb.$r"
    # shellcheck disable=SC2086 # word splitting of the argument lists
    inns "$a" gp$r "$ftvm" serve --control "$work/p$r.sock" $gargs \
        --console "$work/p$r.con"
    # shellcheck disable=SC2086
    inns "$b" gs$r "$ftvm" serve --control "$work/s$r.sock" --incoming \
        $sargs --console "$work/s$r.con"
    answers "$work/p$r.sock" && answers "$work/s$r.sock" || return 1
    # shellcheck disable=SC2086
    inns "$b" fs$r "$ftd" secondary --pair rg$r --guest "$work/s$r.sock" \
        --listen 10.81.0.2:7800 --key "$work/key" \
        --arbiter "file:$work/arb.$r" --host-name hostB $fargs
    waitfor "listening" "$work/fs$r.out" || return 1
    $hook
    inns "$a" fp$r "$ftd" primary --pair rg$r --guest "$work/p$r.sock" \
        --peer 10.81.0.2:7800 --key "$work/key" \
        --arbiter "file:$work/arb.$r" --host-name hostA
}

size() { wc -c <"$1" 2>/dev/null || echo 0; }

# rounds FILE: how many rounds the guest has reported there.
rounds() {
    n=$(grep -c "round" "$1" 2>/dev/null)
    echo "${n:-0}"
}

# grows FILE FROM: until FILE has at least 3 rounds more than FROM, 20 s.
grows() {
    i=0
    until [ "$(rounds "$1")" -ge $(($2 + 3)) ]; do
        i=$((i + 1))
        [ $i -ge 400 ] && return 1
        sleep 0.05      # polling the console, bounded
    done
}

clear_hosts() {
    ip netns pids "$b" | xargs -r kill -KILL 2>/dev/null
    ip netns pids "$a" | xargs -r kill -KILL 2>/dev/null
    wait
}

# 1. The primary's ftd paused: B goes live, A loses and drops its held
# outputs.
if pair 1 "--guest $build/guests/cpu.bin --cmdline seed=1" "" &&
   waitfor "replaying" "$work/fs1.err" && grows "$work/p1.con" 0; then
    fp=$(pidof_cmd "$ftd primary --pair rg1")
    kill -STOP "$fp"
    if waitfor "live at record" "$work/fs1.err"; then
        held=$(size "$work/p1.con")
        # The guest goes on producing, into the gate, until its ring
        # fills; B's copy, live, prints further rounds meanwhile.
        grows "$work/s1.con" "$(rounds "$work/p1.con")"
        kill -CONT "$fp"
        if [ "$(ended fp1)" = 0 ] && grep -q "halted" "$work/fp1.err" &&
           [ "$(ended gp1)" != none ]; then
            if [ "$(size "$work/p1.con")" = "$held" ]; then
                ok "a primary that lost the claim let out nothing it held \
($(grep -o 'halted.*' "$work/fp1.err"))"
            else
                bad "the losing primary let out $(($(size "$work/p1.con") \
- held)) bytes nobody acknowledged"
            fi
        else
            bad "the losing primary did not halt: $(cat "$work/fp1.err" \
                "$work/gp1.err")"
        fi
    else
        kill -CONT "$fp"
        bad "B did not go live: $(cat "$work/fs1.err")"
    fi
else
    bad "protecting the guest: $(cat "$work/fp1.err" "$work/fs1.err" \
        2>/dev/null)"
fi
clear_hosts

# 2. B's guest stops replaying for 2 s with a 1 MiB buffer: nothing fails
# over, and the log flows again once it goes on.
truncate -s 2M "$work/pdisk" "$work/sdisk"
if pair 2 "--guest $build/guests/disk.bin --cmdline every=1 \
--disk $work/pdisk" "--disk $work/sdisk" "--buffer 1" &&
   waitfor "replaying" "$work/fs2.err" && grows "$work/p2.con" 0; then
    gs=$(pidof_cmd "$ftvm serve --control $work/s2.sock")
    kill -STOP "$gs"
    sleep 2             # the fault itself: B's guest off for 2 s
    kill -CONT "$gs"
    if grows "$work/p2.con" "$(rounds "$work/p2.con")" &&
       ! grep -q "peer lost\|asking the arbiter" "$work/fp2.err" \
           "$work/fs2.err" &&
       [ ! -s "$work/fp2.rc" ] && [ ! -s "$work/fs2.rc" ]; then
        ok "a secondary 2 s behind with its buffer full: still protected"
    else
        bad "a lagging secondary ended protection: $(cat "$work/fp2.err" \
            "$work/fs2.err")"
    fi
else
    bad "protecting the disk guest: $(cat "$work/fp2.err" \
        "$work/fs2.err" 2>/dev/null)"
fi
clear_hosts

# 3. ftd stopped on the primary's host: its guest halts, B goes live.
if pair 3 "--guest $build/guests/cpu.bin --cmdline seed=3" "" &&
   waitfor "replaying" "$work/fs3.err" && grows "$work/p3.con" 0; then
    kill -TERM "$(pidof_cmd "$ftd primary --pair rg3")"
    if [ "$(ended fp3)" = 1 ] && [ "$(ended gp3)" != none ] &&
       waitfor "live at record" "$work/fs3.err" &&
       until_true 200 sh -c "'$dom0' '$work/s3.sock' status |
           grep -q mode=live"; then
        ok "ftd stopped on the primary: its guest halted, B went live"
    else
        bad "ftd stopped: $(cat "$work/fp3.err" "$work/gp3.err" \
            "$work/fs3.err")"
    fi
else
    bad "protecting the guest: $(cat "$work/fp3.err" "$work/fs3.err" \
        2>/dev/null)"
fi
clear_hosts

# 4. The link cut while A saves a large guest: A's guest runs on.
if pair 4 "--guest $build/guests/cpu.bin --cmdline seed=4 --mem 1024" \
        "--mem 1024" && waitfor "channel up" "$work/fp4.err"; then
    ip -n "$a" link set va down
    if [ "$(ended fp4)" != none ] &&
       "$dom0" "$work/p4.sock" status | grep -q "state=running"; then
        ok "the peer lost during the copy: the guest runs on \
($(grep -o -e 'peer lost.*' -e 'running unprotected' "$work/fp4.err" |
    tr '\n' ';'))"
    else
        bad "the peer lost during the copy: $(cat "$work/fp4.err"; \
            "$dom0" "$work/p4.sock" status)"
    fi
    ip -n "$a" link set va up
else
    bad "protecting a large guest: $(cat "$work/fp4.err" "$work/fs4.err" \
        2>/dev/null)"
fi

# 5. The primary's ftvm stopped before ftd asks it anything: ftd ends,
# naming the request it gave up on, within the 10 s deadline and the
# 30 s that 'ended' waits.
stop_gp5() {
    kill -STOP "$(pidof_cmd "$ftvm serve --control $work/p5.sock")"
}
if pair 5 "--guest $build/guests/idle.bin" "" "" stop_gp5; then
    if [ "$(ended fp5)" = 1 ] && grep -q "did not answer" "$work/fp5.err"
    then
        ok "a silent ftvm given up on: $(grep -m1 -o 'did not answer.*' \
"$work/fp5.err")"
    else
        bad "a silent ftvm: exit $(cat "$work/fp5.rc" 2>/dev/null): \
$(cat "$work/fp5.err")"
    fi
else
    bad "setting up case 5: $(cat "$work/fs5.err" 2>/dev/null)"
fi
clear_hosts

# 6. WHAT=N after N ticks at 100 Hz, counted once recording has begun
# (the guest starts paused): time for the copy to be made first.
r=6
for end in poweroff:0:"powering off" halt:6:"halting with interrupts"; do
    what=${end%%:*} status=${end#*:} status=${status%%:*} last=${end##*:}
    if pair $r "--guest $build/guests/idle.bin --cmdline $what=300 \
--paused" "" && waitfor "replaying" "$work/fs$r.err"; then
        if [ "$(ended fp$r)" = 0 ] && [ "$(ended fs$r)" = 0 ] &&
           [ "$(ended gp$r)" = "$status" ] && [ "$(ended gs$r)" != none ] &&
           grep -q "state=ended" "$work/fp$r.out" &&
           grep -q "has stopped by itself" "$work/fp$r.out" &&
           grep -q "the primary ended the pair" "$work/fs$r.err" &&
           grep -q "idle: $last" "$work/p$r.con" &&
           ! grep -q -e "live at" -e "asking the arbiter" \
               "$work/fs$r.err" "$work/fp$r.err" &&
           ! grep -rq hostB "$work/arb.$r"; then
            ok "a guest's $what ends its pair in order: \
$(grep -o 'has stopped by itself.*' "$work/fp$r.out")"
        else
            bad "$what: primary exit $(cat "$work/fp$r.rc" 2>/dev/null), \
secondary $(cat "$work/fs$r.rc" 2>/dev/null), guest \
$(cat "$work/gp$r.rc" 2>/dev/null), copy $(cat "$work/gs$r.rc" \
2>/dev/null): $(cat "$work/fp$r.out" "$work/fp$r.err" "$work/fs$r.err")"
        fi
    else
        bad "protecting the guest that ends ($what): $(cat \
"$work/fp$r.err" "$work/fs$r.err" 2>/dev/null)"
    fi
    clear_hosts
    r=$((r + 1))
done

# 7. The primary's ftvm stopped for 2 s: its ftd keeps the pair alive.
if pair 8 "--guest $build/guests/cpu.bin --cmdline seed=3" "" &&
   waitfor "replaying" "$work/fs8.err" && grows "$work/p8.con" 0; then
    gp=$(pidof_cmd "$ftvm serve --control $work/p8.sock")
    kill -STOP "$gp"
    sleep 2             # the fault itself: A's guest off for 2 s
    kill -CONT "$gp"
    if grows "$work/p8.con" "$(rounds "$work/p8.con")" &&
       ! grep -q "peer lost\|asking the arbiter\|live at" \
           "$work/fp8.err" "$work/fs8.err" &&
       [ ! -s "$work/fp8.rc" ] && [ ! -s "$work/fs8.rc" ]; then
        ok "a primary's ftvm stopped 2 s: still protected, no failover"
    else
        bad "a stopped primary ftvm ended protection: $(cat \
            "$work/fp8.err" "$work/fs8.err")"
    fi
else
    bad "protecting the guest to stop: $(cat "$work/fp8.err" \
        "$work/fs8.err" 2>/dev/null)"
fi
clear_hosts

# 8. The primary's ftvm killed: B takes over.
if pair 9 "--guest $build/guests/cpu.bin --cmdline seed=4" "" &&
   waitfor "replaying" "$work/fs9.err" && grows "$work/p9.con" 0; then
    kill -KILL "$(pidof_cmd "$ftvm serve --control $work/p9.sock")"
    if waitfor "live at record" "$work/fs9.err" &&
       grows "$work/s9.con" "$(rounds "$work/p9.con")" &&
       [ "$(ended fp9)" = 1 ] && grep -q "the guest is gone" "$work/fp9.err"
    then
        ok "a primary whose ftvm was killed: $(grep -o 'the guest is gone.*' \
"$work/fp9.err"); B live"
    else
        bad "a killed primary ftvm: primary exit $(cat "$work/fp9.rc" \
2>/dev/null): $(cat "$work/fp9.err" "$work/fs9.err")"
    fi
else
    bad "protecting the guest to kill: $(cat "$work/fp9.err" \
        "$work/fs9.err" 2>/dev/null)"
fi
clear_hosts

# 9. The primary's host gone: B live once its copy runs as the guest.
truncate -s 2M "$work/pdisk10" "$work/sdisk10"
if pair 10 "--guest $build/guests/disk.bin --cmdline every=1 \
--disk $work/pdisk10" "--disk $work/sdisk10" &&
   waitfor "replaying" "$work/fs10.err" && grows "$work/p10.con" 0; then
    kill -KILL "$(pidof_cmd "$ftd primary --pair rg10")" \
        "$(pidof_cmd "$ftvm serve --control $work/p10.sock")"
    if waitfor "live at record" "$work/fs10.err"; then
        "$dom0" "$work/s10.sock" status >"$work/st10" 2>&1
        going=$(grep -n "going live once the copy has replayed" \
            "$work/fs10.err" | cut -d: -f1)
        live=$(grep -n "live at record" "$work/fs10.err" | cut -d: -f1)
        if grep -q "mode=live" "$work/st10" && [ -n "$going" ] &&
           [ "$going" -lt "$live" ]; then
            ok "B said live once its copy ran as the guest ($(cut -c1-40 \
"$work/st10")...)"
        else
            bad "B live before its copy: $(cat "$work/st10" \
                "$work/fs10.err")"
        fi
    else
        bad "B did not go live: $(cat "$work/fs10.err")"
    fi
else
    bad "protecting the disk guest (9): $(cat "$work/fp10.err" \
        "$work/fs10.err" 2>/dev/null)"
fi
clear_hosts

# 10. The secondary's copy killed: the primary runs on, unprotected.
if pair 11 "--guest $build/guests/cpu.bin --cmdline seed=6" "" &&
   waitfor "replaying" "$work/fs11.err" && grows "$work/p11.con" 0; then
    kill -KILL "$(pidof_cmd "$ftvm serve --control $work/s11.sock")"
    if [ "$(ended fs11)" = 1 ] &&
       grep -q "the copy is gone" "$work/fs11.err" &&
       waitfor "running unprotected" "$work/fp11.err" &&
       grows "$work/p11.con" "$(rounds "$work/p11.con")"; then
        ok "a secondary whose copy was killed: $(grep -o \
'the copy is gone.*' "$work/fs11.err"); A runs on unprotected"
    else
        bad "a killed copy: secondary exit $(cat "$work/fs11.rc" \
2>/dev/null): $(cat "$work/fs11.err" "$work/fp11.err")"
    fi
else
    bad "protecting the guest whose copy is killed: $(cat \
        "$work/fp11.err" "$work/fs11.err" 2>/dev/null)"
fi
clear_hosts

finish
