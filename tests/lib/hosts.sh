# SPDX-License-Identifier: GPL-2.0-only
# hosts.sh - test hosts on one machine; sourced (with tests/lib/test.sh).
#   nsrun NS CMD...           CMD in namespace NS, bounded ($NSRUN_SECONDS,
#                             120 s), its output where the caller puts it
#   hosts_up TAG NET          two hosts, network namespaces $a and $b
#                             joined by a veth pair (va, vb) with the
#                             addresses NET.1 and NET.2 (NET in
#                             $hosts_net); removed, with every process
#                             in them and $work, on exit.
#                             Without root or ip netns: skip (77).
#   arbiter_up NET            with ARBITER=etcd, a third host $e running
#                             etcd, reached from $a at NET.1 and from $b
#                             at NET.2 (its own links, apart from va-vb);
#                             without, nothing.  Then 'arbiter_spec a|b
#                             DIR' is the spec each host uses: etcd:...,
#                             or file:DIR.

. "$(dirname "$0")/../lib/test.sh"

nsrun() {
    nsrun_ns=$1
    shift
    ip netns exec "$nsrun_ns" timeout -k 5 "${NSRUN_SECONDS:-120}" "$@"
}

hosts_down() {
    for ns in "$a" "$b" ${e:+"$e"}; do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
    done
    wait
    for ns in "$a" "$b" ${e:+"$e"}; do
        ip netns del "$ns" 2>/dev/null
    done
    rm -rf "$work"
}

arbiter_up() {
    [ "${ARBITER:-file}" = etcd ] || return 0
    if ! command -v etcd >/dev/null 2>&1; then
        echo "$NAME: ARBITER=etcd needs etcd (Debian's etcd-server)"
        exit 1
    fi
    etcd_net=$1
    e=${a%-*}e-$$
    ip netns add "$e"
    ip link add ea netns "$e" type veth peer name ae netns "$a"
    ip link add eb netns "$e" type veth peer name be netns "$b"
    ip -n "$e" addr add "$1.1/30" dev ea
    ip -n "$a" addr add "$1.2/30" dev ae
    ip -n "$e" addr add "$1.5/30" dev eb
    ip -n "$b" addr add "$1.6/30" dev be
    for l in "$e ea" "$e eb" "$e lo" "$a ae" "$b be"; do
        set -- $l
        ip -n "$1" link set "$2" up
    done
    ip netns exec "$e" timeout -k 5 600 etcd --name e \
        --data-dir "$work/etcd" \
        --listen-client-urls \
        "http://$etcd_net.1:2379,http://$etcd_net.5:2379" \
        --advertise-client-urls "http://$etcd_net.1:2379" \
        --listen-peer-urls http://127.0.0.1:2380 \
        --initial-advertise-peer-urls http://127.0.0.1:2380 \
        --initial-cluster e=http://127.0.0.1:2380 >"$work/etcd.log" 2>&1 &
    until_true 400 grep -q "ready to serve client requests" \
        "$work/etcd.log" || {
        echo "$NAME: etcd did not come up: $(tail -n 3 "$work/etcd.log")"
        exit 1
    }
    echo "$NAME: the arbiter is etcd, on host $e"
}

arbiter_spec() {
    if [ "${ARBITER:-file}" != etcd ]; then
        echo "file:$2"
    elif [ "$1" = a ]; then
        echo "etcd:http://$etcd_net.1:2379?ttl=2&timeout=500"
    else
        echo "etcd:http://$etcd_net.5:2379?ttl=2&timeout=500"
    fi
}

hosts_up() {
    a=xenft-$1a-$$
    b=xenft-$1b-$$
    hosts_net=$2
    if [ "$(id -u)" != 0 ] || ! ip netns add "$a" 2>/dev/null; then
        skip "needs root and ip netns"
    fi
    ip netns add "$b"
    trap hosts_down EXIT
    # A signal (a timeout, ^C) ends the script through its EXIT trap too.
    trap 'exit 1' INT TERM
    ip link add va netns "$a" type veth peer name vb netns "$b"
    ip -n "$a" addr add "$2.1/24" dev va
    ip -n "$b" addr add "$2.2/24" dev vb
    for ns in "$a" "$b"; do
        ip -n "$ns" link set lo up
    done
    ip -n "$a" link set va up
    ip -n "$b" link set vb up
}
