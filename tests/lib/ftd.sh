# SPDX-License-Identifier: GPL-2.0-only
# ftd.sh - running ftd and ftvm on test hosts; sourced after hosts.sh,
# with $work and $dom0 (build/tests/ftvm-dom0) set.
#   inns NS NAME CMD...   CMD in namespace NS, in the background, bounded
#                         (nsrun); its output in $work/NAME.out and .err,
#                         its exit status in $work/NAME.rc; its pid added
#                         to $inns_pids
#   waitfor TEXT FILE     until FILE holds TEXT, 20 s at most
#   ended NAME            NAME's exit status, 30 s at most ("none")
#   answers SOCKET        until the ftvm there answers, 10 s at most
#   pidof_cmd TEXT        the pid of the process whose command line
#                         starts with TEXT

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
