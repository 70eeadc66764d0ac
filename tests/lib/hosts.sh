# SPDX-License-Identifier: GPL-2.0-only
# hosts.sh - test hosts on one machine, and a bounded wait; sourced.
#   until_true TRIES CMD...   CMD every 50 ms until it succeeds (TRIES)
#   hosts_up TAG NET          two hosts, network namespaces $a and $b
#                             joined by a veth pair (va, vb) with the
#                             addresses NET.1 and NET.2; removed, with
#                             every process in them and $work, on exit.
#                             Without root or ip netns: exit 77.

until_true() {
    n=$1
    shift
    while ! "$@" >/dev/null 2>&1; do
        n=$((n - 1))
        [ "$n" -gt 0 ] || return 1
        sleep 0.05      # polling for a condition, bounded
    done
}

hosts_down() {
    for ns in "$a" "$b"; do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
    done
    wait
    ip netns del "$a" 2>/dev/null
    ip netns del "$b" 2>/dev/null
    rm -rf "$work"
}

hosts_up() {
    a=xenft-$1a-$$
    b=xenft-$1b-$$
    if [ "$(id -u)" != 0 ] || ! ip netns add "$a" 2>/dev/null; then
        echo "$NAME: needs root and ip netns: skipped"
        exit 77
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
