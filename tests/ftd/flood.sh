#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# flood.sh BUILD - strangers without the key at ftd's logging port:
#
#   a (10.83.0.1) ---- b (10.83.0.2)       the FT link, vm1 protected a->b
#    \                /
#   10.83.2.1    10.83.1.2
#      \            /
#       c (10.83.2.9, 10.83.1.9)           1000 connections to each host
#
# While c floods both hosts' logging ports, vm1 stays protected (neither
# host takes it for lost) and `ft-enable vm2` from a works; a stranger
# gets its own small budget, never a pair's slot.  Without root or ip
# netns the test says so and exits 77.
set -u

build=${1:?usage: flood.sh BUILD}
NAME=flood
. "$(dirname "$0")/lib.sh"
flood=$build/tests/ftd-flood
hosts_up "f" 10.83.0
c=xenft-fc-$$
ip netns add "$c" || { bad "cannot make namespace $c"; finish; exit 1; }
trap 'ip netns pids "$c" 2>/dev/null | xargs -r kill -KILL 2>/dev/null;
      ip netns del "$c" 2>/dev/null; hosts_down' EXIT
ip link add ca netns "$c" type veth peer name ac netns "$a"
ip link add cb netns "$c" type veth peer name bc netns "$b"
ip -n "$c" addr add 10.83.2.9/24 dev ca
ip -n "$a" addr add 10.83.2.1/24 dev ac
ip -n "$c" addr add 10.83.1.9/24 dev cb
ip -n "$b" addr add 10.83.1.2/24 dev bc
for l in "$c ca" "$c cb" "$a ac" "$b bc" "$c lo"; do
    set -- $l
    ip -n "$1" link set "$2" up
done

# Listening on every address: c reaches each host on a link of its own.
services_up "[guest vm1]
peers = @peer@
[guest vm2]
peers = @peer@" 0.0.0.0
for g in vm1 vm2; do
    serve_a $g --guest "$build/guests/idle.bin" --cmdline hz=100 \
        --console none || { bad "$g did not come up"; finish; exit 1; }
done

if ! xa ft-enable vm1 10.83.0.2 >"$work/x" ||
   ! until_true 400 status_has xb "pair=vm1 role=secondary state=protected"
then
    bad "protecting vm1: $(cat "$work/x" "$work/ftdA.err" "$work/ftdB.err")"
    finish
    exit 1
fi

# B's ftd at its peak so far, a pair protected: what the flood may add
# to it is bounded (16 MiB: 8 KiB a stranger, were each one kept).
pb=$(pgrep -f "^$ftd --config $work/B.conf" | head -n 1)
hwm() { awk '/VmHWM/ { print $2 }' "/proc/$pb/status"; }
before=$(hwm)

# The flood, on both hosts at once, bounded in count and time.
ip netns exec "$c" timeout -k 5 60 "$flood" 10.83.1.2 7800 1000 40 \
    >"$work/floodB" 2>&1 &
fb=$!
ip netns exec "$c" timeout -k 5 60 "$flood" 10.83.2.1 7800 1000 40 \
    >"$work/floodA" 2>&1 &
fa=$!
# Once both hosts have refused some of it, the flood is on.
until_true 400 grep -q "refusing 10.83" "$work/ftdB.err" &&
until_true 400 grep -q "refusing 10.83" "$work/ftdA.err" ||
    bad "the flood never reached the budget: $(tail -n 3 "$work/ftdB.err")"
if xa ft-enable vm2 10.83.0.2 >"$work/x" &&
   until_true 400 status_has xa "pair=vm2 role=primary state=protected"
then
    ok "ft-enable during the flood: $(cat "$work/x")"
else
    bad "ft-enable during the flood: $(cat "$work/x"; xa ft-status)"
fi
wait $fa $fb
if grep -q "1000 tried" "$work/floodA" && grep -q "1000 tried" "$work/floodB"
then
    ok "2000 connections without the key: $(cat "$work/floodB")"
else
    bad "the flood did not run: $(cat "$work/floodA" "$work/floodB")"
fi
if status_has xa "pair=vm1 role=primary state=protected" &&
   status_has xb "pair=vm1 role=secondary state=protected" &&
   ! grep -q "vm1.*peer lost\|live at record" "$work/ftdA.err" \
       "$work/ftdB.err"
then
    ok "vm1 stayed protected through the flood"
else
    bad "vm1 was disturbed: $(grep -h 'vm1' "$work/ftdA.err" \
        "$work/ftdB.err" | tail -n 4)"
fi
after=$(hwm)
if [ "${before:-0}" -gt 0 ] && [ "${after:-0}" -ge "$before" ] &&
   [ $((after - before)) -lt 16384 ]; then
    ok "B's ftd peaked at $after KiB through the flood ($before before)"
else
    bad "B's ftd peaked at ${after:-?} KiB through the flood, \
${before:-?} before"
fi

finish
