#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# busy.sh BUILD - ftd's one event loop, which also carries every pair's
# heartbeats (a peer is lost after 300 ms of silence), never waits on a
# peer or a control client.  Two hosts (network namespaces), g1 protected
# from A on B, and:
#   - a control client that connects and stays silent: ft-status is
#     answered meanwhile, and the silent client, speaking up afterwards
#     (still within its 2 s), is heard too;
#   - clients beyond ftd's bound (16) are refused at once, with a message;
#   - ft-enable g2 to a silent host (its SYNs vanish): answered with an
#     error at the 5 s deadline; meanwhile ft-status answers (g2 shows
#     state=connecting) and a second enable of g2 is refused; ft-disable
#     stops such an attempt;
#   - ft-enable g2 to a name whose DNS server is silent: an error naming
#     the name, and ft-status answers during the lookup;
#   - ft-enable g2 to a name from A's hosts file: protected;
#   - ft-enable g3 while its ftvm is stopped for 1 s: ft-status answers
#     meanwhile, and g3 is protected once it goes on;
#   - ft-failover g3 while B's copy of it is stopped for 1 s: g3 is live
#     on B once its copy goes on;
#   - all the while g1 stays protected: B never takes it over;
#   - A's ftd then stops in order (under the sanitizers: no report).
# The order of events is what is checked, not how long each took; the
# one time bound is a control client's 2 s (see 1.).  A's resolver
# files are its namespace's, in /etc/netns/NS/, removed at the end.
# Without root or ip netns the test says so and exits 77.
#
#   +-------- host $a ---------+               +-------- host $b ---------+
#   | ftd --config A.conf      |   FT link     | ftd --config B.conf      |
#   | ftvm serve g1, g2        |               |  (copies of g1, g2)      |
#   | ftd-ctl-client (silent)  |               |                          |
#   | /etc/netns/$a: resolver  |               |                          |
#   |   10.76.0.3, hostb.test  |               |                          |
#   |   = 10.76.0.2        va  +-------+-------+  vb 10.76.0.2:7800       |
#   |     10.76.0.1:7800       |       |       +--------------------------+
#   +--------------------------+       +-- 10.76.0.3: nobody (a MAC that
#                                          no one has: SYNs and DNS lost)
set -u

build=${1:?usage: busy.sh BUILD}
NAME=busy
. "$(dirname "$0")/lib.sh"
client=$build/tests/ftd-ctl-client
hosts_up "b" 10.76.0

# 10.76.0.3 is silent: A sends its frames to a MAC that nobody has, so
# they are dropped unseen (no ARP failure, no reset, no ICMP).
ip -n "$a" neigh replace 10.76.0.3 lladdr 02:00:00:00:00:03 dev va \
    nud permanent
etcns=/etc/netns/$a
mkdir -p "$etcns"
trap 'rm -rf "$etcns"; rmdir /etc/netns 2>/dev/null; hosts_down' EXIT
printf 'nameserver 10.76.0.3\noptions timeout:2 attempts:1\n' \
    >"$etcns/resolv.conf"
printf '127.0.0.1 localhost\n10.76.0.2 hostb.test\n' >"$etcns/hosts"

g1_taken() { grep -E "secondary g1 .*(peer lost|live at record)" \
             "$work/ftdB.err"; }

# B is named as A's hosts file has it, the name g2 is enabled on; a
# name given to ft-enable is one of the guest's peers (ftd(8)).
host_B=hostb.test
services_up "[guest g1]
peers = @peer@, slow.test
[guest g2]
peers = @peer@, slow.test
[guest g3]
peers = @peer@"
apid=$ftd_a
for g in g1 g2 g3; do
    serve_a $g --guest "$build/guests/idle.bin" --cmdline hz=100 \
        --console none || { bad "$g did not come up"; finish; exit 1; }
done
if ! xa ft-enable g1 10.76.0.2 >"$work/x" ||
   ! until_true 400 status_has xa "pair=g1 role=primary state=protected" ||
   ! until_true 200 status_has xb "pair=g1 role=secondary state=protected"
then
    bad "g1 not protected: $(cat "$work/x" "$work/ftdA.err")"
    finish
    exit 1
fi

# 1. A silent control client, then ft-status, then the silent one speaks.
# The silent client is heard only if ftd still waits for its line: that
# is, if ft-status was answered and the go given within its 2 s (ms, as
# nothing else runs here).  An ftd that waits on the silent client
# answers ft-status only after dropping it, and the late line then goes
# to a closed connection.
"$client" "$work/runA/ftd.sock" late "$work/go" >"$work/late" 2>&1 &
lpid=$!
until_true 200 grep -q connected "$work/late"
xa ft-status >"$work/st" 2>&1
touch "$work/go"
wait $lpid
if grep -q "pair=g1 role=primary" "$work/st" &&
   grep -q "pair=g1 role=primary" "$work/late"; then
    ok "ft-status answered while a control client was silent, and the \
silent one was still heard after"
else
    bad "a silent control client held up others: ft-status: \
$(cat "$work/st"); the silent one: $(cat "$work/late")"
fi

# 2. More clients than the bound at once.
if "$client" "$work/runA/ftd.sock" many 16 >"$work/many" 2>&1 &&
   grep -q "error: .*too many control clients" "$work/many" &&
   until_true 200 xa ft-status; then
    ok "a 17th control client refused at once: $(cat "$work/many")"
else
    bad "17th control client: $(cat "$work/many")"
fi

# 3. Enable g2 to the silent host.
xa ft-enable g2 10.76.0.3 >"$work/en" 2>&1 &
epid=$!
if until_true 200 status_has xa "pair=g2 role=primary state=connecting" &&
   kill -0 $epid 2>/dev/null; then
    ok "ft-status answered while g2's peer was being dialled: \
$(xa ft-status g2)"
else
    bad "ft-status during g2's dial: $(xa ft-status)"
fi
if kill -0 $epid 2>/dev/null && ! xa ft-enable g2 10.76.0.3 >"$work/en2" &&
   grep -q "error: g2: already being connected to 10.76.0.3" \
       "$work/en2"; then
    ok "a second enable of g2 refused while the first one dials: \
$(cat "$work/en2")"
else
    bad "second enable of g2: $(cat "$work/en2" 2>/dev/null)"
fi
wait $epid
rc=$?
if [ $rc = 1 ] && grep -q "error: g2: cannot connect to 10.76.0.3: no \
answer within 5000 ms" "$work/en"; then
    ok "ft-enable to a silent host ends at its deadline: $(cat "$work/en")"
else
    bad "ft-enable to a silent host ($rc): $(cat "$work/en")"
fi

# 3b. ft-disable stops a dial; its enable is told.
xa ft-enable g2 10.76.0.3 >"$work/en" 2>&1 &
epid=$!
until_true 200 status_has xa "pair=g2 role=primary state=connecting" &&
    xa ft-disable g2 >"$work/dis" 2>&1
wait $epid
rc=$?
if [ $rc = 1 ] && grep -q "ok: g2 stays unprotected" "$work/dis" &&
   grep -q "error: g2: disabled before 10.76.0.3 was reached" "$work/en" &&
   ! status_has xa "pair=g2"; then
    ok "ft-disable stopped g2's dial: $(cat "$work/en")"
else
    bad "ft-disable during a dial ($rc): $(cat "$work/dis" "$work/en" \
        2>/dev/null)"
fi

# 4. A name whose DNS server is silent.
xa ft-enable g2 slow.test >"$work/en" 2>&1 &
epid=$!
if until_true 200 status_has xa "pair=g2 role=primary state=connecting" &&
   kill -0 $epid 2>/dev/null; then
    ok "ft-status answered while slow.test was looked up"
else
    bad "ft-status during the lookup: $(xa ft-status)"
fi
wait $epid
rc=$?
if [ $rc = 1 ] && grep -q "error: g2: peer slow.test: cannot resolve it: " \
       "$work/en"; then
    ok "a name that does not resolve is refused: $(cat "$work/en")"
else
    bad "a name that does not resolve ($rc): $(cat "$work/en")"
fi

# 5. A name that resolves.
if xa ft-enable g2 hostb.test >"$work/en" 2>&1 &&
   grep -q "ok: protecting g2 on hostb.test" "$work/en" &&
   until_true 400 status_has xb "pair=g2 role=secondary state=protected"
then
    ok "g2 protected on a name: $(cat "$work/en")"
else
    bad "g2 on hostb.test: $(cat "$work/en"; xa ft-status g2)"
fi

# 5b. ft-enable g3 while its ftvm is stopped (SIGSTOP) for 1 s: the
# requests that start the copy wait on a thread, not in the loop, so
# ft-status answers meanwhile and g1's heartbeats go on; g3 is protected
# once its ftvm goes on.
g3=$(pgrep -f "^$ftvm serve --control $work/runA/g3.sock" | head -n 1)
kill -STOP "$g3"
xa ft-enable g3 10.76.0.2 >"$work/en" 2>&1 &
en=$!
if until_true 100 status_has xa "pair=g3 role=primary state=sync"; then
    sleep 1             # the fault itself: g3's ftvm stopped 1 s
    kill -CONT "$g3"
    if wait $en && grep -q "copy: done, g3 is protected" "$work/en" &&
       until_true 400 status_has xb "pair=g3 role=secondary state=protected"
    then
        ok "ft-status answered while g3's ftvm was stopped; protected after"
    else
        bad "g3 after its ftvm went on: $(cat "$work/en"; xa ft-status g3)"
    fi
else
    kill -CONT "$g3"
    wait $en
    bad "ft-enable g3, its ftvm stopped: $(cat "$work/en"; xa ft-status g3)"
fi

# 5c. ft-failover g3 while B's copy of it is stopped (SIGSTOP) for 1 s:
# B's loop does not wait on the copy to take GOLIVE, so g1's heartbeats
# go on; g3 is live on B once its copy goes on.
c3=$(grep -o "guest g3: copy starting under ftvm (pid [0-9]*" \
     "$work/ftdB.err" | tail -n 1 | grep -o "[0-9]*$")
if [ -n "$c3" ] && kill -STOP "$c3"; then
    xa ft-failover g3 >"$work/fo" 2>&1
    sleep 1             # the fault itself: B's copy stopped 1 s
    kill -CONT "$c3"
    if waitfor "secondary g3 .*live at record" "$work/ftdB.err"; then
        ok "ft-failover g3 while its copy was stopped: $(grep -o \
'secondary g3 .*live at record [0-9]*' "$work/ftdB.err")"
    else
        bad "g3 did not go live on B: $(cat "$work/fo" "$work/ftdB.err")"
    fi
else
    bad "no copy of g3 on B: $(cat "$work/ftdB.err")"
fi

# 6. Through all of it, g1 stayed protected.
if status_has xa "pair=g1 role=primary state=protected" &&
   status_has xb "pair=g1 role=secondary state=protected" &&
   ! g1_taken >/dev/null; then
    ok "g1 stayed protected; B never took it over"
else
    bad "g1 was disturbed: $(g1_taken; xa ft-status g1; xb ft-status g1)"
fi

# 7. A stops in order on SIGTERM (timeout passes it on), freeing what it
# holds: under the sanitizers, no report and exit status 0.
kill -TERM $apid
wait $apid
rc=$?
if [ $rc = 0 ] && ! grep -q "Sanitizer" "$work/ftdA.err"; then
    ok "A's ftd stopped in order"
else
    bad "A's ftd stopped with $rc: $(grep -A20 Sanitizer "$work/ftdA.err")"
fi

finish
