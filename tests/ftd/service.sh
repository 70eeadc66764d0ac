#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# service.sh BUILD - ftd as a service on two hosts (network namespaces),
# driven by xl-ft as an operator would:
#   - ft-enable protects a running guest; the secondary host's ftd starts
#     the copy itself from its ft.conf; ft-status shows both sides;
#   - ft-disable ends it in order: the guest runs on, the copy is gone;
#   - ft-enable again (a new generation), then ft-failover hands the guest
#     over: it stops on A and goes on on B where it left off, and B
#     protects it again on A by itself;
#   - a guest B has no section for, a config typo, a counter misnamed or
#     given where it cannot apply (config and command line) and an
#     unknown command are refused with a message saying what is wrong.
# ARBITER=etcd: the arbiter is an etcd on a third host (else a directory).
# Without root or ip netns the test says so and exits 77.
#
#   +-------- host $a ---------+               +-------- host $b ---------+
#   | ftd --config A.conf      |   FT link     | ftd --config B.conf      |
#   |   runA/ftd.sock (xa)     |               |   runB/ftd.sock (xb)     |
#   | ftvm serve runA/vmN.sock |               | ftvm serve runB/vmN.sock |
#   |   (started here)     va  +---------------+  vb (started by B's ftd) |
#   |            10.79.0.1:7800|               |10.79.0.2:7800            |
#   +--------------------------+               +--------------------------+
#   (ARBITER=etcd: etcd on a third host $e, as in failover.sh, on
#   10.79.9.0/29; else a directory both see)
set -u

build=${1:?usage: service.sh BUILD}
NAME=service
. "$(dirname "$0")/lib.sh"
hosts_up "s" 10.79.0
arbiter_up 10.79.9

only_A="
# B has none: refused there
[guest vm2]
peers = hostB"
services_up "[guest vm1]
peers = @peer@
mem = 16

[guest vm3]
peers = @peer@

# smaller than A's vm4: every copy of it fails on B
[guest vm4]
peers = @peer@
mem = 16"
serve_a vm1 --guest "$build/guests/cpu.bin" --cmdline seed=11 \
    --console "$work/vm1.A" || { bad "vm1 did not come up"; finish; exit 1; }

# 1. Protect, look, disable.
if xa ft-enable vm1 10.79.0.2 >"$work/x" &&
   until_true 400 status_has xa "state=protected" &&
   until_true 200 status_has xb "role=secondary state=protected"; then
    ok "ft-enable: protected ($(xa ft-status vm1 | cut -d' ' -f1-4)); \
the copy on B was started by B's ftd"
else
    bad "ft-enable: $(cat "$work/x" "$work/ftdA.err" "$work/ftdB.err")"
fi
if xa ft-disable vm1 >"$work/x" &&
   until_true 200 status_has xa "ended: disabled" &&
   until_true 200 status_has xb "ended: the primary ended the pair" &&
   ! "$dom0" "$work/runB/vm1.sock" status >/dev/null 2>&1 &&
   "$dom0" "$work/runA/vm1.sock" status | grep -q "state=running mode=live"
then
    ok "ft-disable: the guest runs on unprotected, B's copy is gone"
else
    bad "ft-disable: $(cat "$work/x"; xb ft-status)"
fi

# ft-failover, asked again while the answer is "try again" (the copy is
# protected before it has replayed a record): bounded, as until_true.
failover_when_ready() {
    n=200
    until xa ft-failover "$1" >"$work/x2" 2>&1; do
        grep -q 'try again' "$work/x2" && [ $((n -= 1)) -gt 0 ] || return 1
        sleep 0.05
    done
}

# 2. Protect again, then hand over.  B's copy, live, is protected again
# on A a second later: it is then recording, no longer replaying.
until_true 200 sh -c "! '$dom0' '$work/runB/vm1.sock' status"
if xa ft-enable vm1 10.79.0.2 >"$work/x" &&
   until_true 400 sh -c "'$xlft' --socket '$work/runA/ftd.sock' \
       ft-status vm1 | grep -q 'state=protected'" &&
   until_true 400 grep -q "round 2 " "$work/vm1.A" &&
   failover_when_ready vm1 &&
   until_true 400 sh -c "'$dom0' '$work/runB/vm1.sock' status |
       grep -qE 'mode=(live|record)'"; then
    i=$(grep -c 'sum 0x' "$work/runB/vm1.console" 2>/dev/null)
    until_true 400 sh -c "[ \$(grep -c 'sum 0x' \
        '$work/runB/vm1.console') -gt $i ]"
    # The rounds both printed agree, and B has gone past A's last.
    grep -o 'round [0-9]* sum 0x[0-9a-f]\{8\}' "$work/vm1.A" | sort >"$work/ra"
    grep -o 'round [0-9]* sum 0x[0-9a-f]\{8\}' "$work/runB/vm1.console" |
        sort >"$work/rb"
    last_a=$(sed 's/round \([0-9]*\).*/\1/' "$work/ra" | sort -n | tail -n 1)
    last_b=$(sed 's/round \([0-9]*\).*/\1/' "$work/rb" | sort -n | tail -n 1)
    if [ -s "$work/ra" ] && [ -s "$work/rb" ] &&
       [ -z "$(join -j 2 -o 1.4,2.4 "$work/ra" "$work/rb" |
               awk '$1 != $2')" ] &&
       [ "${last_b:-0}" -gt "${last_a:-0}" ]; then
        ok "ft-failover: handed over; B goes on where A stopped \
($(xb ft-status vm1 | grep -o 'ended: .*'))"
    else
        bad "ft-failover: B does not continue A's computation"
    fi
    # B, live, protects the guest again on A by itself, however soon it
    # tries (its copy may still be replaying what it held at the first
    # attempt).
    if until_true 600 sh -c "'$xlft' --socket '$work/runB/ftd.sock' \
           ft-status vm1 | grep -q 'role=primary state=protected'"; then
        ok "after the handover B protects the guest again on A"
    else
        bad "after the handover B did not protect the guest again: \
$(xb ft-status; grep -e again -e refused "$work/ftdB.err" | tail -n 5)"
    fi
else
    bad "ft-failover: $(cat "$work/x" "$work/x2" 2>/dev/null; \
        tail -n 5 "$work/ftdA.err" "$work/ftdB.err")"
fi

# 2b. Host B dies under a protected guest: A goes on alone, then
# protects it again by itself once B's ftd is back.
serve_a vm3 --guest "$build/guests/idle.bin" --cmdline hz=100 --console none
if xa ft-enable vm3 10.79.0.2 >"$work/x" &&
   until_true 400 sh -c "'$xlft' --socket '$work/runA/ftd.sock' \
       ft-status vm3 | grep -q 'state=protected'"; then
    pkill -KILL -f "^$ftd --config $work/B.conf"
    pkill -KILL -f "serve --incoming --control $work/runB/vm3.sock"
    until_true 400 sh -c "'$xlft' --socket '$work/runA/ftd.sock' \
        ft-status vm3 | grep -q 'protecting again'"
    xa ft-status vm3 >"$work/st1"
    ip netns exec "$b" timeout -k 5 300 "$ftd" --config "$work/B.conf" \
        2>"$work/ftdB1.err" &
    if grep -q "unprotected: protecting again on 10.79.0.2" "$work/st1" &&
       until_true 800 sh -c "'$xlft' --socket '$work/runA/ftd.sock' \
           ft-status vm3 | grep -q 'state=protected'"; then
        ok "B died: A ran vm3 alone, then protected it again on its own"
    else
        bad "re-protect: $(cat "$work/st1"; xa ft-status vm3)"
    fi
else
    bad "protecting vm3: $(cat "$work/x")"
fi

# 2c. A copy that fails on B (a guest larger than B's section allows):
# B stops the guest it started for it, so the next copy is not refused
# for a leftover; A's guest runs on.
serve_a vm4 --guest "$build/guests/idle.bin" --mem 32 --console none
failures() { grep -c "vm4.*32 MiB guest" "$work/ftdB1.err"; }
if xa ft-enable vm4 10.79.0.2 >"$work/x" &&
   until_true 400 sh -c "[ \$(grep -c 'vm4.*32 MiB guest' \
       '$work/ftdB1.err') -ge 2 ]" &&
   ! grep -q "a guest vm4 already runs here" "$work/ftdB1.err" &&
   until_true 200 sh -c "'$dom0' '$work/runA/vm4.sock' status |
       grep -q state=running"; then
    # (running between the attempts, paused for a moment by each save)
    ok "a failed copy is stopped on B: the next one is tried afresh \
($(failures) failed, none refused for a leftover)"
else
    bad "failed copies: $(grep vm4 "$work/ftdB1.err" | tail -n 6)"
fi
xa ft-disable vm4 >/dev/null 2>&1

# 3. Refusals.
xa ft-disable vm3 >/dev/null 2>&1
sed -i 's/^\[guest vm1\]/[guest other]/' "$work/B.conf"
ip netns pids "$b" | xargs -r kill -TERM
until_true 200 sh -c "! '$xlft' --socket '$work/runB/ftd.sock' ft-status"
ip netns exec "$b" timeout -k 5 300 "$ftd" --config "$work/B.conf" \
    2>"$work/ftdB2.err" &
until_true 200 xb ft-status
serve_a vm2 --guest "$build/guests/cpu.bin" --console none
if xa ft-enable vm2 10.79.0.2 >/dev/null &&
   until_true 200 sh -c "'$xlft' --socket '$work/runA/ftd.sock' \
       ft-status vm2 | grep -q ended" &&
   grep -q "vm2: not configured on this host" "$work/ftdB2.err" &&
   "$dom0" "$work/runA/vm2.sock" status | grep -q "state=running"; then
    ok "a guest B has no section for is refused there; it runs on, on A"
else
    bad "unknown guest: $(xa ft-status vm2; cat "$work/ftdB2.err")"
fi
printf 'listen = 1.2.3.4:1\nhearbeat-ms = 50\n' >"$work/typo.conf"
if "$ftd" --config "$work/typo.conf" 2>"$work/x"; then
    bad "a config typo was accepted"
elif grep -q "typo.conf:2: unknown key 'hearbeat-ms' (did you mean \
'heartbeat-ms'?)" "$work/x"; then
    ok "config typo refused: $(cat "$work/x")"
else
    bad "config typo: $(cat "$work/x")"
fi
# refused CONF-LINES MESSAGE: a config of those lines is refused, saying
# MESSAGE.
refused() {
    printf 'arbiter = file:%s\n%b' "$work/arbx" "$1" >"$work/c.conf"
    if "$ftd" --config "$work/c.conf" 2>"$work/x"; then
        bad "accepted: $1"
    elif grep -qF "$2" "$work/x"; then
        ok "refused: $(cat "$work/x")"
    else
        bad "$1: $(cat "$work/x")"
    fi
}
refused 'backend = xen\ncounter = stpes\n' \
    "counter 'stpes': auto, branches or steps"
refused 'counter = steps\n' \
    "counter 'steps': only with backend = xen (ftvm counts every"
# usage MESSAGE ARGS...: ftd ARGS is bad usage (status 2), saying
# MESSAGE.
usage() {
    u_msg=$1
    shift
    u_st=0
    "$ftd" "$@" 2>"$work/x" || u_st=$?
    if [ $u_st = 2 ] && grep -qF -- "$u_msg" "$work/x"; then
        ok "bad usage: $(head -n 1 "$work/x")"
    else
        bad "status $u_st: $(head -n 1 "$work/x")"
    fi
}
pargs="--pair p --key k --arbiter file:$work/arbx --peer 10.79.0.2:1"
usage "--counter: auto, branches or steps" \
    primary $pargs --guest g --counter stpes
usage "--counter: only with --backend xen" \
    primary $pargs --guest g --counter steps
usage "--counter and --unsafe-no-counter exclude" \
    primary $pargs --guest 1 --backend xen --counter steps --unsafe-no-counter
if xa ft-bogus vm1 >"$work/x" 2>&1; then
    bad "an unknown command was accepted"
else
    ok "unknown xl-ft command refused"
fi

finish
