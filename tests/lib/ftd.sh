# SPDX-License-Identifier: GPL-2.0-only
# ftd.sh - running ftd and ftvm on test hosts; sourced after hosts.sh,
# with $work and $build set ($ftd, $xlft and $dom0 default to build's).
#   inns NS NAME CMD...   CMD in namespace NS, in the background, bounded
#                         (nsrun); its output in $work/NAME.out and .err,
#                         its exit status in $work/NAME.rc; its pid added
#                         to $inns_pids
#   waitfor TEXT FILE     until FILE holds TEXT, 20 s at most
#   ended NAME            NAME's exit status, 30 s at most ("none")
#   answers SOCKET        until the ftvm there answers, 10 s at most
#   pidof_cmd TEXT        the pid of the process whose command line
#                         starts with TEXT
# and ftd as a service ($ftd, $ftvm and $xlft set too):
#   ftconf HOST RUN-DIR SECTIONS [LISTEN]
#                         $work/HOST.conf, the ft.conf of host A or B:
#                         named $host_A or $host_B (default hostA,
#                         hostB); listening on $hosts_net.1 or .2 (or
#                         LISTEN), port 7800; key $work/key; the arbiter
#                         (after arbiter_up, arbiter_spec's, else
#                         file:$work/arb); that run-dir; then SECTIONS,
#                         ft.conf text in which @peer@ is the other
#                         host's name, and then $only_A or $only_B
#   services_up SECTIONS [LISTEN]
#                         a key in $work/key, ftconf of both hosts with
#                         the run-dirs $work/runA and runB, ftd started
#                         on each (stderr in $work/ftdA.err and
#                         ftdB.err, pids in $ftd_a and $ftd_b), until
#                         both answer; else bad, finish and exit 1
#   xa ARGS, xb ARGS      xl-ft on host A, B
#   status_has xa|xb TEXT that host's ft-status shows TEXT
#   serve_a NAME ARGS...  `ftvm serve ARGS` of guest NAME on A, at the
#                         control socket where A's ftd finds it, until it
#                         answers

ftd=${ftd:-$build/bin/ftd}
xlft=${xlft:-$build/bin/xl-ft}
dom0=${dom0:-$build/tests/ftvm-dom0}

inns() {
    ns=$1 n=$2
    shift 2
    rm -f "$work/$n.rc"
    (nsrun "$ns" "$@" >"$work/$n.out" 2>"$work/$n.err"
     echo $? >"$work/$n.rc") &
    inns_pids="${inns_pids:-} $!"
}

waitfor() {
    until_true 400 grep -q "$1" "$2"
}

ended() {
    until_true 600 test -s "$work/$1.rc"
    cat "$work/$1.rc" 2>/dev/null || echo none
}

answers() {
    until_true 200 "$dom0" "$1" status
}

pidof_cmd() {
    pgrep -f "^$1" | head -n 1
}

ftconf() {
    ip=$hosts_net.1 me=${host_A:-hostA} peer=${host_B:-hostB}
    only=${only_A:-}
    [ "$1" = B ] && ip=$hosts_net.2 me=${host_B:-hostB} \
        peer=${host_A:-hostA} only=${only_B:-}
    arb=file:$work/arb
    [ -z "${etcd_net:-}" ] ||
        arb=$(arbiter_spec "$(echo "$1" | tr AB ab)" "$work/arb")
    cat >"$work/$1.conf" <<EOF
host-name = $me
listen = ${4:-$ip}:7800
key = $work/key
arbiter = $arb
run-dir = $2
ftvm = $ftvm

$(printf '%s\n%s\n' "$3" "$only" | sed "s/@peer@/$peer/g")
EOF
}

services_up() {
    newkey "$work/key"
    mkdir -p "$work/arb"
    mkdir -p -m 0700 "$work/runA" "$work/runB"   # as ftd wants its run-dir
    ftconf A "$work/runA" "$1" ${2:+"$2"}
    ftconf B "$work/runB" "$1" ${2:+"$2"}
    ip netns exec "$a" timeout -k 5 300 "$ftd" --config "$work/A.conf" \
        2>"$work/ftdA.err" &
    ftd_a=$!
    ip netns exec "$b" timeout -k 5 300 "$ftd" --config "$work/B.conf" \
        2>"$work/ftdB.err" &
    ftd_b=$!
    until_true 200 xa ft-status && until_true 200 xb ft-status ||
        { bad "the daemons did not come up: $(cat "$work/ftdA.err" \
          "$work/ftdB.err")"; finish; exit 1; }
}

xa() { ip netns exec "$a" timeout -k 5 30 "$xlft" --socket \
       "$work/runA/ftd.sock" "$@"; }
xb() { ip netns exec "$b" timeout -k 5 30 "$xlft" --socket \
       "$work/runB/ftd.sock" "$@"; }
status_has() { "$1" ft-status | grep -q "$2"; }

serve_a() {
    sock=$work/runA/$1.sock
    shift
    ip netns exec "$a" timeout -k 5 300 "$ftvm" serve --control "$sock" \
        "$@" >/dev/null 2>&1 &
    answers "$sock"
}
