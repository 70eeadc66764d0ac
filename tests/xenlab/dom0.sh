# SPDX-License-Identifier: GPL-2.0-only
#
# dom0.sh - sourced by the tests' dom0 scripts as /xenft/dom0.sh
# (testlib's lab_put puts it there): HVM guests as the tests make them,
# the project's idle guest among them, and bounded waits for what they
# print.

# hvm_cfg NAME [SETTING...]: /tmp/NAME.cfg, the xl configuration of
# the HVM guest NAME: 32 MiB, one vCPU, no display, and each SETTING (an
# xl line "key = value"), which replaces the default of its key.
hvm_cfg() {
    hvm_name=$1
    shift
    {
        echo "name = \"$hvm_name\""
        echo 'type = "hvm"'
        for d in 'memory = 32' 'vcpus = 1' 'vnc = 0' 'vga = "none"'; do
            hvm_given "${d%% *}" "$@" || echo "$d"
        done
        for s in "$@"; do
            echo "$s"
        done
    } > "/tmp/$hvm_name.cfg"
}

# hvm_create NAME [SETTING...]: the guest of hvm_cfg's configuration,
# created.
hvm_create() {
    hvm_cfg "$@"
    xl create "/tmp/$1.cfg" || exit 1
}

# hvm_given KEY SETTING...: one of the SETTINGs sets KEY.
hvm_given() {
    hvm_key=$1
    shift
    for s in "$@"; do
        [ "${s%% *}" = "$hvm_key" ] && return 0
    done
    return 1
}

# seabios NAME: wait (at most 60 s) until the SeaBIOS of guest NAME has
# written to Xen's log; says "seabios-ran", or shows the log and exits 1.
seabios() {
    d=$(xl domid "$1") || exit 1
    n=0
    until xl dmesg | grep -q "(d$d) SeaBIOS"; do
        n=$((n + 1))
        if [ $n -gt 120 ]; then
            echo "no SeaBIOS after 60 s"
            xl dmesg | tail
            exit 1
        fi
        sleep 0.5
    done
    echo seabios-ran
}

# idle_cfg HZ [fit]: /tmp/idle.cfg, the xl configuration of "idle"
# (/xenft/idle.bin, console in /tmp/idle.log) ticking at HZ; with fit,
# configured as FT needs it.  A secondary host writes it too: its copy
# must agree with it (ftd --xen-config, xlft-xen copy-recv).
idle_cfg() {
    if [ "${2:-}" = fit ]; then
        fit_cfg idle idle.bin "hz=$1"
    else
        hvm_cfg idle 'kernel = "/xenft/idle.bin"' "cmdline = \"hz=$1\"" \
            'serial = "file:/tmp/idle.log"'
    fi
}

# idle_start HZ [fit]: "idle" created from idle_cfg's configuration.
idle_start() {
    idle_cfg "$@"
    xl create /tmp/idle.cfg || exit 1
}

# idle_ticked: the lines of ticks it has printed so far.
idle_ticked() {
    grep -c "^idle: [0-9]* ticks" /tmp/idle.log 2>/dev/null || true
}

# ticks N: wait (at most 120 s) for N lines of ticks; says "ticking: N
# lines", or shows the console and Xen's log and exits 1.
ticks() {
    n=0
    until [ "$(idle_ticked)" -ge "$1" ]; do
        n=$((n + 1))
        if [ $n -gt 240 ]; then
            echo "idle: not $1 lines of ticks after 120 s"
            head -c 2000 /tmp/idle.log
            xl dmesg | tail
            exit 1
        fi
        sleep 0.5
    done
    echo "ticking: $1 lines"
}

# waiting SECONDS WHAT CMD...: CMD every 0.1 s until it succeeds, for
# at most SECONDS by the clock (a CMD that is slow under emulation does
# not stretch the bound); else says "no WHAT after SECONDS s" and exits 1.
waiting() {
    w_end=$(($(date +%s) + $1)) w_what=$2 w_secs=$1
    shift 2
    until "$@" >/dev/null 2>&1; do
        if [ "$(date +%s)" -ge $w_end ]; then
            echo "no $w_what after $w_secs s"
            exit 1
        fi
        sleep 0.1
    done
}

# The lab ends a command past its --timeout with SIGTERM to all of it:
# what ftd and Xen said by then is the only clue to where it stood.
post_mortem() {
    trap - TERM
    echo "xenlab: host $XENLAB_HOST: terminated; what it had:"
    for pm_log in /tmp/p.log /tmp/s.log /tmp/st.txt; do
        [ -f $pm_log ] && tail -n 30 $pm_log | sed "s|^|$pm_log: |"
    done
    xl list 2>&1 | sed "s/^/xl list: /"
    xl dmesg 2>&1 | grep -o "FT: .*" | tail -n 20 | sed "s/^/xen: /"
    exit 124
}
trap post_mortem TERM

# peer_ready: wait (at most 120 s) until the other host says "ready" on
# its port 8001.
peer_ready() {
    waiting 120 "ready from $XENLAB_PEER" peer_said_ready
}
peer_said_ready() {
    [ "$(socat -u TCP:$XENLAB_PEER:8001 - 2>/dev/null)" = ready ]
}

# ft_setup [PAIR]: in /tmp/ft.key the pair's key both hosts were given
# (testlib's put_key), else a fresh one; the arbiter's directory
# /tmp/arb, and in $opts the options of ftd for PAIR (idle) on Xen.
ft_setup() {
    if [ -f /xenft/ft.key ]; then
        cp /xenft/ft.key /tmp/ft.key
    else
        (umask 077; od -An -tx1 -N32 /dev/urandom | tr -d " \n" \
            > /tmp/ft.key)
    fi
    mkdir -p /tmp/arb
    opts="--backend xen --pair ${1:-idle} --key /tmp/ft.key"
    opts="$opts --arbiter file:/tmp/arb"
}

# ft_secondary SECONDS [OPTION...]: ftd, the Xen secondary of idle
# (hostB, at 127.0.0.1:7801, its copy as /tmp/idle.cfg allows) with
# $opts and OPTIONs, bounded by SECONDS; its output in /tmp/s.log, its
# pid in $sec; until it listens (10 s), else its log and exit 1.
ft_secondary() {
    s_bound=$1
    shift
    timeout -k 5 "$s_bound" /xenft/ftd secondary $opts "$@" \
        --host-name hostB --listen 127.0.0.1:7801 \
        --xen-config /tmp/idle.cfg > /tmp/s.log 2>&1 &
    sec=$!
    if ! (waiting 10 "secondary listening" grep -q "listening on" \
            /tmp/s.log); then
        cat /tmp/s.log
        exit 1
    fi
}

# fit_cfg NAME KERNEL CMDLINE: /tmp/NAME.cfg, a guest fit for FT (one
# vCPU, shadow paging without out-of-sync page tables, emulated TSC,
# RDRAND and RDSEED hidden, no PV devices, destroyed on reboot) booting
# /xenft/KERNEL with CMDLINE and nopv, its console in /tmp/NAME.log.
fit_cfg() {
    hvm_cfg "$1" "kernel = \"/xenft/$2\"" "cmdline = \"$3 nopv\"" \
        "serial = \"file:/tmp/$1.log\"" 'hap = 0' 'oos = 0' \
        'tsc_mode = "always_emulate"' 'cpuid = "host,rdrand=0,rdseed=0"' \
        'viridian = 0' 'xen_platform_pci = 0' 'on_reboot = "destroy"'
}

# copy_listen GUEST: ftd secondary of GUEST (hostB, with $opts) on
# $XENLAB_IP:7801, its copy as /tmp/GUEST.cfg allows, its output in
# /tmp/s.log and its pid in $sec; once it listens, "ready" to host 1 on
# port 8001 (peer_ready).
copy_listen() {
    timeout -k 5 500 /xenft/ftd secondary $opts --host-name hostB \
        --listen $XENLAB_IP:7801 --xen-config /tmp/$1.cfg \
        > /tmp/s.log 2>&1 &
    sec=$!
    waiting 10 "secondary listening" grep -q "listening on" /tmp/s.log ||
        { cat /tmp/s.log; exit 1; }
    echo ready | socat -u - TCP-LISTEN:8001,reuseaddr
}

# copy_domid: the domain of the copy, as copy_listen's ftd named it.
copy_domid() {
    sed -n "s/^ftd: the copy from .* is domain \([0-9]*\), paused$/\1/p" \
        /tmp/s.log
}

# primary_protect GUEST: ftd primary of GUEST (hostA, with $opts)
# towards $XENLAB_PEER:7801, its output in /tmp/p.log and its pid in
# $pri, until GUEST is protected.
primary_protect() {
    timeout -k 5 500 /xenft/ftd primary $opts --host-name hostA \
        --guest $1 --peer $XENLAB_PEER:7801 > /tmp/p.log 2>&1 &
    pri=$!
    waiting 120 "protection" grep -q "protected$" /tmp/p.log ||
        { cat /tmp/p.log; xl dmesg | tail; exit 1; }
}

# The replay tests on two hosts (/xenft/ft.key their pair's key, the
# guest's configuration in /tmp/GUEST.cfg on both): host 1 runs
# replay_primary, host 2 replay_copy.  Host 1 pauses its guest, tells
# host 2 its sequence number and count ("SEQ COUNT" on port 8002); host
# 2 waits for its copy to have replayed that far and answers the copy's
# count (port 8004).  A guest paused half-way through an I/O that its
# device model has yet to complete stands past its last record (the
# point of a write is logged by the next input): host 1 then lets it run
# on and pauses it again.  Once the counts agree ("done"), each host
# prints its guest's status, the hashes of its RAM ("primary ram:",
# "copy ram:") and registers ("... vcpu:"), and its console lines
# ("primary console:", "copy console:"), for expect_replayed.

# replay_copy GUEST: ftd secondary of GUEST (pair GUEST, hostB) on
# $XENLAB_IP:7801, with $opts.
replay_copy() {
    rc_guest=$1
    copy_listen $rc_guest
    rc_copy=
    while rc_msg=$(timeout 600 socat -u TCP-LISTEN:8002,reuseaddr -) &&
        [ -n "$rc_msg" ] && [ "$rc_msg" != done ]; do
        set -- $rc_msg
        rc_seq=$1 rc_count=$2 rc_gfn=${3:-}
        # The primary runs protected once it has sent the copy, which
        # may still be restored here.
        waiting 120 "replay" grep -q "), replaying$" /tmp/s.log ||
            { cat /tmp/s.log; exit 1; }
        [ -n "$rc_copy" ] || rc_copy=$(copy_domid)
        rc_t0=$(date +%s%N)
        rc_at=$(/xenft/xlft-xen ft-status $rc_copy |
            sed -n "s/.* count \([0-9]*\) .*/\1/p")
        echo "lag: $((rc_count - rc_at)) steps behind the paused primary"
        if ! (waiting 300 "copy at seq $rc_seq" replayed_to); then
            cat /tmp/st.txt /tmp/s.log
            xl dmesg | grep FT
            exit 1
        fi
        echo "replayed to seq $rc_seq in" \
            "$((($(date +%s%N) - rc_t0) / 1000000)) ms"
        rc_at=$(sed -n "s/.* count \([0-9]*\) .*/\1/p" /tmp/st.txt)
        waiting 30 "the primary taking the count" sh -c \
            "echo $rc_at | timeout 5 socat -u - TCP:$XENLAB_PEER:8004"
    done
    [ "$rc_msg" = done ] || { echo "no end from the primary"; exit 1; }
    xl pause $rc_copy
    /xenft/xlft-xen ft-status $rc_copy
    /xenft/xen-state-hash $rc_copy 32 $rc_gfn | sed "s/^/copy /"
    grep "^$rc_guest: " /tmp/$rc_guest.log | sed "s/^/copy console: /"
    xl dmesg | grep -o "FT: .*" | sed "s/^/copy xen: /"
    echo hashed | socat -u - TCP-LISTEN:8003,reuseaddr
    kill $sec
    wait $sec
    # ftd destroys its copy as it stops.
    ! xl list $rc_copy > /dev/null 2>&1 || xl destroy $rc_copy
}
replayed_to() {
    /xenft/xlft-xen ft-status $rc_copy > /tmp/st.txt &&
    grep -q " seq $rc_seq count [0-9]* stopped 0\$" /tmp/st.txt
}

# replay_primary GUEST STEPS [CMD]: GUEST (domain 1, running) protected
# by ftd primary (hostA) towards $XENLAB_PEER:7801, with $opts, CMD run
# (sh -c) once it is, until it has run STEPS steps protected; then
# paused as above, compared, destroyed.
replay_primary() {
    primary_protect $1
    [ -z "${3:-}" ] || sh -c "$3" || { echo "failed: $3"; exit 1; }
    rp_steps=$2
    rp_t0=$(date +%s%N)
    stepping 600 "$2 steps"
    rp_ms=$((($(date +%s%N) - rp_t0) / 1000000))
    rp_count=$(sed -n "s/.* count \([0-9]*\) .*/\1/p" /tmp/st.txt)
    echo "steps: $rp_count in $rp_ms ms of protection"
    rp_tries=0 rp_match=
    # Where hvmloader had mapped shared_info: looked at on both hosts.
    rp_gfn=$(xl dmesg | sed -n "s/.*FT: d1: shared_info unmapped from \
gfn \(0x[0-9a-f]*\),.*/\1/p" | tail -n 1)
    until [ -n "$rp_match" ]; do
        if [ $rp_tries != 0 ]; then
            xl unpause $1
            rp_steps=$((rp_count + 1000))
            stepping 60 "1000 more steps"
        fi
        rp_tries=$((rp_tries + 1))
        [ $rp_tries -le 10 ] ||
            { echo "the copy never stood where $1 did"; exit 1; }
        xl pause $1
        /xenft/xlft-xen ft-status 1 > /tmp/st.txt
        rp_seq=$(sed -n "s/.* seq \([0-9]*\) .*/\1/p" /tmp/st.txt)
        rp_count=$(sed -n "s/.* count \([0-9]*\) .*/\1/p" /tmp/st.txt)
        waiting 30 "the peer taking the point" sh -c "echo $rp_seq \
$rp_count $rp_gfn | timeout 5 socat -u - TCP:$XENLAB_PEER:8002"
        rp_at=$(timeout 400 socat -u TCP-LISTEN:8004,reuseaddr -)
        echo "paused at count $rp_count, the copy at ${rp_at:-nothing}"
        [ -n "$rp_at" ] || exit 1
        [ "$rp_at" != "$rp_count" ] || rp_match=1
    done
    waiting 30 "the peer taking the end" \
        sh -c "echo done | timeout 5 socat -u - TCP:$XENLAB_PEER:8002"
    cat /tmp/st.txt
    /xenft/xen-state-hash 1 32 $rp_gfn | sed "s/^/primary /"
    waiting 400 "hashed from the peer" sh -c "timeout 5 socat -u \
TCP:$XENLAB_PEER:8003 - 2>/dev/null | grep -q hashed"
    grep "^$1: " /tmp/$1.log | sed "s/^/primary console: /"
    # Alone once the secondary stops, the primary may have ended itself.
    kill $pri 2> /dev/null
    wait $pri
    sed "s/^/primary: /" /tmp/p.log
    xl destroy $1
}

# stepping SECONDS WHAT: wait as waiting does until domain 1 has run
# $rp_steps steps; an ftd primary ($pri) that ended meanwhile ends the
# wait at once, with its log.
stepping() {
    waiting "$1" "$2" stepped
    kill -0 $pri 2> /dev/null ||
        { echo "ftd primary ended before $2:"; cat /tmp/p.log; exit 1; }
}
stepped() {
    ! kill -0 $pri 2> /dev/null || {
        /xenft/xlft-xen ft-status 1 > /tmp/st.txt &&
        [ "$(sed -n "s/.* count \([0-9]*\) .*/\1/p" /tmp/st.txt)" -ge \
            "$rp_steps" ]; }
}

# The go-live test on two hosts: host 2 runs the arbiter (an etcd at
# $golive_arb) and golive_copy, host 1 golive_primary.  Host 1 protects
# its guest, then dies as a host does: it tells host 2 its last status
# ("died SEQ COUNT" on port 8002), cuts its network without a word to
# the peer, kills ftd and destroys the guest.  Host 2 must find the
# primary lost through the heartbeat's silence alone, win the arbiter,
# replay what it holds and go live; the guest then ticks on there.
golive_arb=http://10.99.0.2:2379

# golive_opts: $opts for the go-live pair: the etcd arbiter, and a
# heartbeat timeout the lab's emulated CPUs keep to while both live.
golive_opts() {
    ft_setup
    opts="--backend xen --pair idle --key /tmp/ft.key"
    opts="$opts --arbiter etcd:$golive_arb --timeout 10000"
}

# golive_copy GUEST LINES: etcd, then ftd secondary of GUEST as
# replay_copy starts it; once host 1 has died, the copy live, and LINES
# more lines of ticks on its console written live.
golive_copy() {
    timeout -k 5 500 /xenft/etcd --name lab --data-dir /tmp/etcd \
        --listen-client-urls $golive_arb \
        --advertise-client-urls $golive_arb \
        --listen-peer-urls http://127.0.0.1:2380 \
        --initial-advertise-peer-urls http://127.0.0.1:2380 \
        --initial-cluster lab=http://127.0.0.1:2380 > /tmp/etcd.log 2>&1 &
    gc_etcd=$!
    waiting 60 "etcd serving" grep -q "ready to serve client requests" \
        /tmp/etcd.log || { tail /tmp/etcd.log; exit 1; }
    copy_listen $1
    gc_msg=$(timeout 400 socat -u TCP-LISTEN:8002,reuseaddr -)
    gc_t0=$(date +%s%N)
    if [ -z "$gc_msg" ]; then
        echo "no word from host 1 in 400 s"
        sed "s/^/secondary: /" /tmp/s.log
        exit 1
    fi
    echo "host 1: $gc_msg"
    gc_copy=$(copy_domid)
    if ! (waiting 120 "peer lost" grep -q "peer lost" /tmp/s.log &&
          waiting 300 "copy live" grep -q "live at record" /tmp/s.log); then
        sed "s/^/secondary: /" /tmp/s.log
        [ -z "$gc_copy" ] || /xenft/xlft-xen ft-status $gc_copy
        xl dmesg | grep -o "FT: .*"
        exit 1
    fi
    echo "live $((($(date +%s%N) - gc_t0) / 1000000)) ms after host 1 died"
    gc_n=$(($(grep -c "^$1: [0-9]* ticks" /tmp/$1.log) + $2))
    if ! (waiting 120 "$2 lines of ticks live" sh -c \
            "[ \$(grep -c '^$1: [0-9]* ticks' /tmp/$1.log) -ge $gc_n ]"); then
        sed "s/^/secondary: /" /tmp/s.log
        xl list
        xl dmesg | grep -o "FT: .*"
        exit 1
    fi
    echo "ticking live: $2 lines"
    grep "^$1: " /tmp/$1.log | sed "s/^/copy console: /"
    sed "s/^/secondary: /" /tmp/s.log
    xl dmesg | grep -o "FT: .*" | sed "s/^/copy xen: /"
    kill $sec 2> /dev/null
    wait $sec
    kill $gc_etcd
    wait $gc_etcd
    ! xl list $1 > /dev/null 2>&1 || xl destroy $1
}

# golive_primary GUEST STEPS LINES [CMD]: GUEST protected as
# replay_primary does (CMD run once it is), for STEPS steps and then
# LINES lines of ticks; then host 1 dies.
golive_primary() {
    primary_protect $1
    [ -z "${4:-}" ] || sh -c "$4" || { echo "failed: $4"; exit 1; }
    rp_steps=$2
    stepping 240 "$2 steps"
    gp_n=$(($(grep -c "^$1: [0-9]* ticks" /tmp/$1.log) + $3))
    waiting 120 "$3 lines of ticks protected" sh -c \
        "[ \$(grep -c '^$1: [0-9]* ticks' /tmp/$1.log) -ge $gp_n ]"
    # Every line written so far lies before the next record: the copy
    # must write them all once it holds a few more.
    gp_lines=$(grep -c "^$1: [0-9]* ticks" /tmp/$1.log)
    /xenft/xlft-xen ft-status 1 > /tmp/st.txt
    gp_seq=$(sed -n "s/.* seq \([0-9]*\) .*/\1/p" /tmp/st.txt)
    gp_count=$(sed -n "s/.* count \([0-9]*\) .*/\1/p" /tmp/st.txt)
    waiting 30 "4 records more" sh -c "/xenft/xlft-xen ft-status 1 |
        awk '{ for (i = 1; i < NF; i++) if (\$i == \"seq\") s = \$(i + 1) }
             END { exit !(s >= $gp_seq + 4) }'"
    waiting 30 "the peer taking the news" sh -c "echo died at seq \
$gp_seq count $gp_count after $gp_lines lines |
        timeout 5 socat -u - TCP:$XENLAB_PEER:8002"
    ip link set eth0 down
    kill -KILL $pri
    xl destroy $1
    wait $pri
    grep "^$1: " /tmp/$1.log | sed "s/^/primary console: /"
    sed "s/^/primary: /" /tmp/p.log
}

# The divergence tests on two hosts: host 2 runs diverge_copy, host 1
# diverge_primary.  Once the copy replays, host 2 pauses it, changes a
# record in its ring (xen-ring-edit), lets it go, and waits for Xen to
# stop it; it then tells host 1 ("done" on port 8002).

# diverge_copy GUEST EDIT: ftd secondary of GUEST as replay_copy starts
# it; EDIT is xen-ring-edit's (move, hash).
diverge_copy() {
    copy_listen $1
    if ! waiting 300 "replay" grep -q "), replaying$" /tmp/s.log; then
        echo "secondary's log: $(wc -c < /tmp/s.log) bytes"
        sed "s/^/secondary: /" /tmp/s.log
        xl list
        xl dmesg | tail -n 20 | sed "s/^/copy xen: /"
        exit 1
    fi
    dc_copy=$(copy_domid)
    xl pause $dc_copy
    /xenft/xen-ring-edit $dc_copy $2 4 120 || exit 1
    xl unpause $dc_copy
    # ftd ends the pair as soon as Xen stops the copy.
    if ! (waiting 300 "divergence" grep -q "replay failed" /tmp/s.log); then
        /xenft/xlft-xen ft-status $dc_copy
        cat /tmp/s.log
        exit 1
    fi
    xl dmesg | grep -o "FT: .*" | sed "s/^/copy xen: /"
    waiting 30 "the peer taking the end" \
        sh -c "echo done | timeout 5 socat -u - TCP:$XENLAB_PEER:8002"
    kill $sec 2> /dev/null
    wait $sec
    sed "s/^/secondary: /" /tmp/s.log
    ! xl list $dc_copy > /dev/null 2>&1 || xl destroy $dc_copy
}

# diverge_primary GUEST: GUEST protected as replay_primary does, until
# host 2 is done; its ftd then stopped, GUEST destroyed.
diverge_primary() {
    primary_protect $1
    dp_msg=$(timeout 400 socat -u TCP-LISTEN:8002,reuseaddr -)
    [ "$dp_msg" = done ] || echo "no end from host 2"
    kill $pri 2> /dev/null
    wait $pri
    sed "s/^/primary: /" /tmp/p.log
    xl list $1 > /dev/null && echo "$1 runs on"
    xl destroy $1
}

# shared_disk: the device of the storage both hosts share (qemu.sh).
shared_disk() {
    for sd in /sys/block/vd*; do
        [ "$(cat "$sd/serial" 2>/dev/null)" = xenlab-shared ] &&
            echo "/dev/${sd##*/}" && return 0
    done
    return 1
}
