#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# netgate.sh BUILD - the network gate on real packets.  For each kind of
# vif, three network namespaces made here: "dom0", a "guest" whose veth
# pair ends in dom0 as the vif, and a "peer" behind dom0's other port;
# dom0 routes between them (vif-route) or bridges them with br_netfilter
# (vif-bridge).  netgate-test runs in dom0.  Afterwards nothing of the
# gate may be left in dom0's ruleset.  Without root, ip netns or nft:
# skipped, exit 77.
#
#   +-- guest ---+        +------------- dom0 -------------+     +- peer -+
#   | eth0       +--------+ vif7.0  netgate-test  up0      +-----+ eth0   |
#   | 10.77.0.1  |        |  routed:  10.77.0.254 / 10.78.0.254  | routed:|
#   +------------+        |  bridged: vif7.0, up0 in br0   |     |10.78.0.2
#                         +--------------------------------+     |bridged:|
#                                                                |10.77.0.2
#                                                                +--------+
set -u

build=${1:?usage: netgate.sh BUILD}
test=$build/tests/netgate-test
dom0=xenft-ng0-$$
guest=xenft-ngg-$$
peer=xenft-ngp-$$
vif=vif7.0

NAME=netgate
. "$(dirname "$0")/../lib/test.sh"     # skip
[ "$(id -u)" = 0 ] || skip "needs root"
command -v nft >/dev/null 2>&1 || skip "needs nft (Debian package nftables)"
[ -x "$test" ] || { echo "netgate: $test is missing" >&2; exit 2; }
ip netns add "$dom0" 2>/dev/null || skip "ip netns does not work here"
ip netns del "$dom0"
cleanup() {
    for ns in "$dom0" "$guest" "$peer"; do
        ip netns del "$ns" 2>/dev/null
    done
}
trap cleanup EXIT
# A signal (a timeout, ^C) ends the script through its EXIT trap too.
trap 'exit 1' INT TERM

mac() {
    ip -n "$1" -o link show "$2" | sed 's/.*link\/ether \([^ ]*\).*/\1/'
}

# setup routed|bridged: the namespaces, fresh.
setup() {
    cleanup
    set -e
    for ns in "$dom0" "$guest" "$peer"; do
        ip netns add "$ns"
        # No IPv6: only the test's datagrams leave through the vif.
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
    done
    ip link add eth0 netns "$guest" type veth peer name "$vif" netns "$dom0"
    ip link add eth0 netns "$peer" type veth peer name up0 netns "$dom0"
    ip -n "$guest" addr add 10.77.0.1/24 dev eth0
    ip -n "$guest" link set eth0 up
    ip -n "$peer" link set eth0 up
    if [ "$1" = bridged ]; then
        ip -n "$peer" addr add 10.77.0.2/24 dev eth0
        ip -n "$dom0" link add br0 type bridge
        ip -n "$dom0" link set "$vif" master br0 up
        ip -n "$dom0" link set up0 master br0 up
        ip -n "$dom0" link set br0 up
        # The guest knows the peer: no ARP waits behind the gate.
        ip -n "$guest" neigh add 10.77.0.2 lladdr "$(mac "$peer" eth0)" \
            dev eth0 nud permanent
    else
        ip -n "$peer" addr add 10.78.0.2/24 dev eth0
        ip -n "$dom0" addr add 10.77.0.254/24 dev "$vif"
        ip -n "$dom0" addr add 10.78.0.254/24 dev up0
        ip -n "$dom0" link set "$vif" up
        ip -n "$dom0" link set up0 up
        ip netns exec "$dom0" sysctl -qw net.ipv4.ip_forward=1
        ip -n "$guest" route add default via 10.77.0.254
        ip -n "$guest" neigh add 10.77.0.254 \
            lladdr "$(mac "$dom0" "$vif")" dev eth0 nud permanent
        ip -n "$dom0" neigh add 10.78.0.2 lladdr "$(mac "$peer" eth0)" \
            dev up0 nud permanent
    fi
    set +e
    # Carrier comes up asynchronously: wait (bounded) until the vif and
    # the uplink pass traffic, and bridge ports forward.
    i=0
    while [ $i -lt 100 ]; do
        down=$(ip -n "$dom0" -o link show | grep -v ': lo:' |
            grep -c -e NO-CARRIER -e 'state DOWN')
        if [ "$1" = bridged ]; then
            down=$((down + $(bridge -n "$dom0" link show |
                grep -vc 'state forwarding')))
        fi
        [ "$down" = 0 ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    echo "netgate: FAIL: dom0's links never came up" >&2
    ip -n "$dom0" -o link show >&2
    return 1
}

# run routed|bridged PEER_IP
run() {
    timeout -k 5 120 ip netns exec "$dom0" "$test" "$1" "$guest" "$peer" \
        "$vif" 10.77.0.1 "$2" || return 1
    if ip netns exec "$dom0" nft list ruleset | grep -q xenft; then
        echo "netgate: FAIL: xenft tables left in the ruleset:" >&2
        ip netns exec "$dom0" nft list ruleset | head -20 >&2
        return 1
    fi
}

rc=0
setup routed && run routed 10.78.0.2 || rc=1
setup bridged || rc=1
if ip netns exec "$dom0" sysctl -qw net.bridge.bridge-nf-call-iptables=1 \
        net.bridge.bridge-nf-call-ip6tables=1 2>/dev/null; then
    run bridged 10.77.0.2 || rc=1
else
    echo "netgate: bridged vif SKIPPED: no br_netfilter in this kernel"
fi
[ $rc = 0 ] && echo "netgate: passed"
exit $rc
