#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# identity.sh BUILD - who may pair with whom: ftd as a service on two
# hosts (network namespaces), each named in the handshake by its
# ft.conf host-name and checked against the guest's peers= line.
#
#   host A (hostA)  10.73.0.1 ---- veth ---- 10.73.0.2  host B
#     vm1  B's section names only hostE: B refuses A, vm1 runs on
#     vm2  the host key              protected
#     vm3  a key of its own on both  protected; rolled on both hosts
#          while it runs, then used by the next connection
#     vm4  B renamed hostA: refused before any claim;
#          B renamed hostC: A refuses it (vm4's peers are hostB),
#          whether enabled on B's address or on the name hostB
#     vm5  no peers= line on A: ft-enable refused at once
#   and before all that, wrong peers= and key= lines stop ftd.
#
# Without root or ip netns the test says so and exits 77.
set -u

build=${1:?usage: identity.sh BUILD}
NAME=identity
. "$(dirname "$0")/lib.sh"
hosts_up "i" 10.73.0
# A's hosts file (its namespace's, in /etc/netns/NS/, removed at the
# end) names B's address hostB.
etcns=/etc/netns/$a
mkdir -p "$etcns"
trap 'rm -rf "$etcns"; rmdir /etc/netns 2>/dev/null; hosts_down' EXIT
printf '127.0.0.1 localhost\n10.73.0.2 hostB\n' >"$etcns/hosts"

newkey "$work/key"
newkey "$work/A.vm3.key"
cp -p "$work/A.vm3.key" "$work/B.vm3.key"
mkdir -p "$work/arb"
mkdir -m 0700 "$work/runA" "$work/runB"

# conf HOST NAME PEER: host HOST's ft.conf, its host-name NAME, PEER
# the host its guests may be paired with (but vm1 on B).
conf() {
    ip=10.73.0.1
    [ "$1" = B ] && ip=10.73.0.2
    cat >"$work/$1.conf" <<EOF
host-name = $2
listen = $ip:7800
key = $work/key
arbiter = file:$work/arb
run-dir = $work/run$1
ftvm = $ftvm

[guest vm1]
peers = $([ "$1" = A ] && echo hostB || echo hostE)

[guest vm2]
peers = $3, hostD

[guest vm3]
peers = $3
key = $work/$1.vm3.key

[guest vm4]
peers = $3

[guest vm5]
EOF
}

xa() { ip netns exec "$a" timeout -k 5 30 "$xlft" --socket \
       "$work/runA/ftd.sock" "$@"; }
xb() { ip netns exec "$b" timeout -k 5 30 "$xlft" --socket \
       "$work/runB/ftd.sock" "$@"; }
st() { xa ft-status "$1" 2>&1; }
# ftd_b NAME [PEER]: B's ftd under host-name NAME ($pid_b), up.
ftd_b() {
    conf B "$1" "${2:-hostA}"
    ip netns exec "$b" timeout -k 5 300 "$ftd" --config "$work/B.conf" \
        2>>"$work/ftdB.err" &
    pid_b=$!
    until_true 200 xb ft-status
}
ftd_b_stop() {
    kill -TERM "$pid_b"
    wait "$pid_b"
}
# guest NAME BIN: a guest on A under ftvm serve.
guest() {
    ip netns exec "$a" timeout -k 5 300 "$ftvm" serve \
        --control "$work/runA/$1.sock" --guest "$build/guests/$2" \
        --cmdline hz=100 --console none >/dev/null \
        2>"$work/$1.ftvm.err" &
    until_true 200 "$dom0" "$work/runA/$1.sock" status
}
running_a() {
    "$dom0" "$work/runA/$1.sock" status | grep -q "state=running"
}
# What the guest's ftvm and A's ftd say, for a failure's message.
guest_said() {
    "$dom0" "$work/runA/$1.sock" status 2>&1
    cat "$work/$1.ftvm.err"
    tail -n 8 "$work/ftdA.err"
}
no_copy_b() { ! "$dom0" "$work/runB/$1.sock" status >/dev/null 2>&1; }
acked() { st "$1" | sed -n 's/.* acked=\([0-9]*\).*/\1/p'; }

# 0. peers= lines that are wrong stop ftd, naming the line.
bad_conf() {
    conf A hostA hostB
    printf '%s\n' "$2" >>"$work/A.conf"
    if timeout -k 5 10 "$ftd" --config "$work/A.conf" >"$work/x" 2>&1; then
        bad "$1 accepted"
    elif grep -q "$3" "$work/x"; then
        ok "$1 refused: $(cat "$work/x")"
    else
        bad "$1: $(cat "$work/x")"
    fi
}
bad_conf "this host among the peers" "[guest vm9]
peers = hostB, hostA" "guest vm9: peers names this host (hostA)"
bad_conf "a peer that is no name" "[guest vm9]
peers = hostB, host/C" "A.conf:[0-9]*: peers: 'host/C' is not a host name"
bad_conf "a peer twice" "[guest vm9]
peers = hostB hostB" "A.conf:[0-9]*: peers: hostB named twice"
bad_conf "two peers= lines" "[guest vm9]
peers = hostB
peers = hostC" "A.conf:[0-9]*: peers given twice for guest vm9"
ln -s "$work/key" "$work/link.key"
bad_conf "a pair key that is a symlink" "[guest vm9]
peers = hostB
key = $work/link.key" "guest vm9: key file $work/link.key is a symbolic \
link"

conf A hostA hostB
ip netns exec "$a" timeout -k 5 300 "$ftd" --config "$work/A.conf" \
    2>"$work/ftdA.err" &
ftd_b hostB
for g in vm1 vm2 vm3 vm4 vm5; do
    guest $g idle.bin
done
until_true 200 xa ft-status && running_a vm5 ||
    { bad "the daemons or guests did not come up: $(cat "$work/ftdA.err" \
      "$work/ftdB.err")"; finish; exit 1; }

# 1. A peer not in the guest's peers: refused there, in the handshake.
if xa ft-enable vm1 10.73.0.2 >"$work/x" &&
   until_true 200 sh -c "'$xlft' --socket '$work/runA/ftd.sock' \
       ft-status vm1 | grep -q ended" &&
   st vm1 | grep -q "error: .*host hostA is not among the peers of guest \
vm1 in this host's ft.conf (peers = hostE)" &&
   grep -q "channel of domid .*: pair vm1, peer host hostA: host hostA is \
not among" "$work/ftdB.err" &&
   no_copy_b vm1 && running_a vm1; then
    ok "a host not in peers= is refused by B; vm1 runs on, unprotected \
($(st vm1 | grep -o 'configuration error.*'))"
else
    bad "peer not listed: $(st vm1; tail -n 5 "$work/ftdB.err")"
fi

# 2. A's own refusals, before any connection.
if ! xa ft-enable vm1 hostZ >"$work/x" 2>&1 &&
   grep -q "error: vm1: host hostZ is not among the peers of guest vm1" \
       "$work/x" &&
   ! xa ft-enable vm5 10.73.0.2 >"$work/y" 2>&1 &&
   grep -q "error: vm5: guest vm5 has no peers= line" "$work/y" &&
   ! xa ft-enable vm6 10.73.0.2 >"$work/z" 2>&1 &&
   grep -q "guest vm6: not configured on this host" "$work/z"; then
    ok "refused on A: a host not in peers= ($(cat "$work/x")), no peers= \
line, no section"
else
    bad "A's refusals: $(cat "$work/x" "$work/y" "$work/z")"
fi

# 3. vm3 with a key of its own while vm2 uses the host's.
if xa ft-enable vm2 10.73.0.2 >"$work/x" &&
   xa ft-enable vm3 10.73.0.2 >>"$work/x" &&
   until_true 400 sh -c "'$xlft' --socket '$work/runA/ftd.sock' \
       ft-status vm2 | grep -q state=protected" &&
   until_true 400 sh -c "'$xlft' --socket '$work/runA/ftd.sock' \
       ft-status vm3 | grep -q state=protected" &&
   grep -q "secondary vm3 (peer .*): channel up: the peer is host hostA" \
       "$work/ftdB.err"; then
    ok "vm3 protected with its own key, vm2 with the host key"
else
    bad "per-pair key: $(st vm2; st vm3; tail -n 5 "$work/ftdB.err")"
fi

# 4. vm3's key rolled: B's file first (vm3 stays protected, a new
# connection is refused), then A's (the next connection takes it).
newkey "$work/B.vm3.key"
n=$(acked vm3)
if until_true 200 sh -c "[ \$('$xlft' --socket '$work/runA/ftd.sock' \
       ft-status vm3 | sed -n 's/.* acked=\([0-9]*\).*/\1/p') -gt $n ]" &&
   st vm3 | grep -q state=protected &&
   xa ft-disable vm3 >/dev/null &&
   until_true 200 no_copy_b vm3 &&
   xa ft-enable vm3 10.73.0.2 >/dev/null &&
   until_true 200 sh -c "'$xlft' --socket '$work/runA/ftd.sock' \
       ft-status vm3 | grep -q ended" &&
   st vm3 | grep -q "different key" && running_a vm3; then
    ok "key replaced on B: vm3 stayed protected; the next connection, \
with A's old key, refused ($(st vm3 | grep -o 'peer has a different key'))"
else
    bad "rolling, B first: $(st vm3; guest_said vm3)"
fi
cp -p "$work/B.vm3.key" "$work/A.vm3.key"
if xa ft-enable vm3 10.73.0.2 >/dev/null &&
   until_true 400 sh -c "'$xlft' --socket '$work/runA/ftd.sock' \
       ft-status vm3 | grep -q state=protected" &&
   st vm2 | grep -q state=protected; then
    ok "key replaced on A too: vm3 protected with the new key; vm2 \
protected throughout"
else
    bad "rolling, A: $(st vm3; st vm2; guest_said vm3)"
fi
xa ft-disable vm2 >/dev/null
xa ft-disable vm3 >/dev/null
until_true 200 no_copy_b vm2
until_true 200 no_copy_b vm3

# 5. Two hosts of one name: refused in the handshake, before any claim.
ftd_b_stop
ftd_b hostA hostB
if xa ft-enable vm4 10.73.0.2 >/dev/null &&
   until_true 200 sh -c "'$xlft' --socket '$work/runA/ftd.sock' \
       ft-status vm4 | grep -q ended" &&
   st vm4 | grep -q "the peer is host hostA, as this host is: two hosts \
may not share a name" &&
   [ -z "$(ls "$work/arb" | grep '^vm4\.')" ] &&
   no_copy_b vm4 && running_a vm4; then
    ok "B named hostA as well: refused, no claim made ($(ls "$work/arb" |
        tr '\n' ' '))"
else
    bad "same name: $(st vm4; ls "$work/arb"; tail -n 3 "$work/ftdB.err")"
fi

# 6. A wants one of vm4's peers; the host that answers proves another.
ftd_b_stop
ftd_b hostC
if xa ft-enable vm4 10.73.0.2 >/dev/null &&
   until_true 200 sh -c "'$xlft' --socket '$work/runA/ftd.sock' \
       ft-status vm4 | grep -q 'ended: error: no handshake: pair vm4, \
peer host hostC'" &&
   grep -q "pair vm4, peer host hostC: host hostC is not among the peers \
of guest vm4" "$work/ftdA.err" &&
   no_copy_b vm4 && running_a vm4; then
    ok "an answer from hostC for vm4 (peers = hostB) refused by A"
else
    bad "another host answered: $(st vm4; tail -n 3 "$work/ftdA.err" \
        "$work/ftdB.err")"
fi
if xa ft-enable vm4 hostB >"$work/x" &&
   until_true 200 sh -c "'$xlft' --socket '$work/runA/ftd.sock' \
       ft-status vm4 | grep -q 'this host asked for host hostB, and the \
peer proved it is another'" &&
   no_copy_b vm4 && running_a vm4; then
    ok "vm4 enabled on the name hostB, answered by hostC: refused by A"
else
    bad "named host, another answered: $(cat "$work/x"; st vm4)"
fi
ftd_b_stop

finish
