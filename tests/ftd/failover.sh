#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# failover.sh BUILD - two hosts (network namespaces joined by a veth
# pair, made here), each with an ftvm guest and an ftd: the primary's
# guest is copied to the secondary and protected over the encrypted
# channel; then
#   - the primary host dies (its processes killed): the secondary goes
#     live and its guest carries on the primary's computation;
#   - the hosts are cut apart (both alive): the heartbeat times out on
#     both sides and the arbiter lets exactly one copy go on;
#   - the same with the losing copy paused: it obeys its HALT late and
#     its ftd says it halted, not that it was lost;
#   - a secondary lagging beyond the limit slows the primary's guest;
#   - a secondary with another key is refused, the primary's guest runs on.
# ARBITER=etcd: the arbiter is an etcd on a third host (else a directory).
# Without root or ip netns the test says so and exits 77.
#
#   +------- host $a -------+                  +------- host $b -------+
#   | ftvm serve  pN.sock   |                  | ftvm serve  sN.sock   |
#   |   (the guest)         |   FT link        |   --incoming (copy)   |
#   | ftd primary       va  +------------------+  vb  ftd secondary    |
#   |           10.77.0.1   |                  |   10.77.0.2:7800      |
#   +------+----------------+                  +----------------+------+
#          | ae 10.77.9.2                          10.77.9.6 be |
#          |              +----- host $e ------+                |
#          +--------------+ ea  etcd :2379  eb +----------------+
#            10.77.9.1    +--------------------+    10.77.9.5
#   ($e and its links only with ARBITER=etcd; else a directory both see)
set -u

build=${1:?usage: failover.sh BUILD}
NAME=failover
. "$(dirname "$0")/lib.sh"
hosts_up "" 10.77.0
arbiter_up 10.77.9

newkey "$work/key"
newkey "$work/other.key"

# pair ROUND [SECONDARY-KEY [LAG-LIMIT-US [SECONDARY-TIMEOUT-MS]]]:
# guests and ftds on both hosts, protected.
pair() {
    r=$1 skey=${2:-$work/key} lag=${3:-} stimeout=${4:-}
    arb=$work/arb.$r
    mkdir -p "$arb"
    inns "$a" gp$r "$ftvm" serve --control "$work/p$r.sock" \
        --guest "$build/guests/cpu.bin" --cmdline seed=$r \
        --console "$work/p$r.con"
    inns "$b" gs$r "$ftvm" serve --control "$work/s$r.sock" --incoming \
        --console "$work/s$r.con"
    answers "$work/p$r.sock" && answers "$work/s$r.sock" || return 1
    inns "$b" fs$r "$ftd" secondary --pair vm$r --guest "$work/s$r.sock" \
        --listen 10.77.0.2:7800 --key "$skey" \
        --arbiter "$(arbiter_spec b "$arb")" \
        --host-name hostB ${stimeout:+--timeout $stimeout}
    waitfor "listening" "$work/fs$r.out" || return 1
    inns "$a" fp$r "$ftd" primary --pair vm$r --guest "$work/p$r.sock" \
        --peer 10.77.0.2:7800 --key "$work/key" \
        --arbiter "$(arbiter_spec a "$arb")" \
        --host-name hostA ${lag:+--lag-limit $lag}
}

# 1. The primary host dies: the secondary goes live and carries on.
if pair 1 && waitfor "replaying" "$work/fs1.err" &&
   waitfor "round 2 " "$work/s1.con"; then
    ip netns pids "$a" | xargs -r kill -KILL
    if [ "$(ended fs1)" = 0 ] && grep -q "live at record" "$work/fs1.err" &&
       waitfor "round 5 " "$work/s1.con" &&
       "$dom0" "$work/s1.sock" status | grep -q "mode=live"; then
        # The guest's rounds are deterministic: the copy computes what
        # the original computed, before and after the failover.
        grep -o 'round [0-9]* sum 0x[0-9a-f]\{8\}' "$work/p1.con" >"$work/ps"
        grep -o 'round [0-9]* sum 0x[0-9a-f]\{8\}' "$work/s1.con" >"$work/ss"
        if head -n "$(wc -l <"$work/ps")" "$work/ss" | cmp -s - "$work/ps"
        then
            ok "primary killed: the secondary went live and carries on \
($(grep -o 'live at record.*' "$work/fs1.err"))"
        else
            bad "the live secondary computes something else"
        fi
    else
        bad "failover: $(cat "$work/fs1.err" "$work/gs1.err")"
    fi
else
    bad "protecting the guest: $(cat "$work/fp1.err" "$work/fs1.err" \
        "$work/gp1.err" "$work/gs1.err" 2>/dev/null)"
fi
ip netns pids "$b" | xargs -r kill -KILL 2>/dev/null
ip netns pids "$a" | xargs -r kill -KILL 2>/dev/null

# 2. The hosts are cut apart, both alive: one copy goes on, one halts.
if pair 2 && waitfor "replaying" "$work/fs2.err" &&
   waitfor "protected" "$work/fp2.err"; then
    ip -n "$a" link set va down
    fp=$(ended fp2)
    fs=$(ended fs2)
    wins=$(grep -l -e "running unprotected" -e "live at record" \
        "$work/fp2.err" "$work/fs2.err" | wc -l)
    halts=$(grep -l "halted:" "$work/fp2.err" "$work/fs2.err" | wc -l)
    if [ "$fp" = 0 ] && [ "$fs" = 0 ] && [ "$wins" = 1 ] &&
       [ "$halts" = 1 ]; then
        ok "partition: exactly one copy went on \
($(grep -h -o -e 'running unprotected' -e 'live at record [0-9]*' \
-e 'halted: .*' "$work/fp2.err" "$work/fs2.err" | tr '\n' ';'))"
    else
        bad "partition: $wins went on, $halts halted: \
$(cat "$work/fp2.err" "$work/fs2.err")"
    fi
    ip -n "$a" link set va up
else
    bad "protecting the guest: $(cat "$work/fp2.err" "$work/fs2.err" \
        2>/dev/null)"
fi
ip netns pids "$b" | xargs -r kill -KILL 2>/dev/null
ip netns pids "$a" | xargs -r kill -KILL 2>/dev/null

# 2a. The copy that lost the claim is paused: its platform obeys the
# HALT late and exits, and its ftd sees the close before the reply (ftd
# paused until then).  The copy was halted, as asked: not lost.  The
# secondary's longer heartbeat timeout lets the primary claim first.
queued() {     # queued NS SOCKET: a request waits in SOCKET's queue
    ip netns exec "$1" ss -xn | awk -v s="$2" '$5 == s && $3 > 0' |
        grep -q .
}
if pair 5 "$work/key" "" 3000 && waitfor "replaying" "$work/fs5.err" &&
   waitfor "protected" "$work/fp5.err"; then
    copy=$(pidof_cmd "$ftvm serve --control $work/s5.sock")
    sftd=$(pidof_cmd "$ftd secondary --pair vm5")
    kill -STOP "$copy"
    ip -n "$a" link set va down
    if waitfor "running unprotected" "$work/fp5.err" &&
       waitfor "asking the arbiter" "$work/fs5.err" &&
       until_true 400 queued "$b" "$work/s5.sock"; then
        kill -STOP "$sftd"
        kill -CONT "$copy"
        ended gs5 >/dev/null
        kill -CONT "$sftd"
        fs=$(ended fs5)
        if [ "$fs" = 0 ] && grep -q "halted:" "$work/fs5.err" &&
           ! grep -q "gone" "$work/fs5.err"; then
            ok "a paused copy halted late: $(grep -o 'halted: .*' \
"$work/fs5.err")"
        else
            bad "a paused copy halted late: ftd exit $fs: \
$(cat "$work/fs5.err")"
        fi
    else
        kill -CONT "$copy"
        bad "the paused copy was not asked to halt: $(cat "$work/fp5.err" \
            "$work/fs5.err")"
    fi
    ip -n "$a" link set va up
else
    bad "protecting the guest: $(cat "$work/fp5.err" "$work/fs5.err" \
        2>/dev/null)"
fi
ip netns pids "$b" | xargs -r kill -KILL 2>/dev/null
ip netns pids "$a" | xargs -r kill -KILL 2>/dev/null

# 2b. A secondary lagging beyond the limit slows the primary's guest down
# (a limit of 1 us: always beyond; ftd says so once ftvm has agreed).
if pair 4 "$work/key" 1 && waitfor "guest at 50% speed" "$work/fp4.err"
then
    ok "lag beyond the limit: $(grep -o 'secondary [0-9]* us behind.*' \
"$work/fp4.err" | head -1)"
else
    bad "throttling on lag: $(cat "$work/fp4.err" "$work/fs4.err" \
        2>/dev/null)"
fi
ip netns pids "$b" | xargs -r kill -KILL 2>/dev/null
ip netns pids "$a" | xargs -r kill -KILL 2>/dev/null

# 3. A secondary with another key is refused; the guest is untouched.
if pair 3 "$work/other.key" && [ "$(ended fp3)" = 1 ] &&
   grep -q "different key" "$work/fp3.err" &&
   "$dom0" "$work/p3.sock" status | grep -q "state=running mode=live"; then
    ok "another key refused, the guest runs on: \
$(grep -o 'peer has a different key.*' "$work/fp3.err" | head -1)"
else
    bad "wrong key: $(cat "$work/fp3.err" "$work/fs3.err" 2>/dev/null)"
fi

finish
