# SPDX-License-Identifier: GPL-2.0-only
# ftd.sh - running ftd and ftvm on test hosts; sourced after hosts.sh,
# with $work and $dom0 (build/tests/ftvm-dom0) set.
#   inns NS NAME CMD...   CMD in namespace NS, in the background, bounded
#                         (120 s); its output in $work/NAME.out and .err,
#                         its exit status in $work/NAME.rc
#   waitfor TEXT FILE     until FILE holds TEXT, 20 s at most
#   ended NAME            NAME's exit status, 30 s at most ("none")
#   answers SOCKET        until the ftvm there answers, 10 s at most
#   pidof_cmd TEXT        the pid of the process whose command line
#                         starts with TEXT

inns() {
    ns=$1 n=$2
    shift 2
    rm -f "$work/$n.rc"
    (ip netns exec "$ns" timeout -k 5 120 "$@" >"$work/$n.out" \
        2>"$work/$n.err"; echo $? >"$work/$n.rc") &
}

waitfor() {
    i=0
    while ! grep -q "$1" "$2" 2>/dev/null; do
        i=$((i + 1))
        [ $i -ge 400 ] && return 1
        sleep 0.05      # polling a log file, bounded
    done
}

ended() {
    i=0
    while [ ! -s "$work/$1.rc" ] && [ $i -lt 600 ]; do
        i=$((i + 1))
        sleep 0.05      # polling for the exit status, bounded
    done
    cat "$work/$1.rc" 2>/dev/null || echo none
}

answers() {
    i=0
    until "$dom0" "$1" status >/dev/null 2>&1; do
        i=$((i + 1))
        [ $i -ge 200 ] && return 1
        sleep 0.05      # polling the control socket, bounded
    done
}

pidof_cmd() {
    pgrep -f "^$1" | head -n 1
}
