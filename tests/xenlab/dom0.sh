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
        hvm_cfg idle 'kernel = "/xenft/idle.bin"' "cmdline = \"hz=$1\"" \
            'serial = "file:/tmp/idle.log"' 'hap = 0' \
            'tsc_mode = "always_emulate"' 'cpuid = "host,rdrand=0,rdseed=0"' \
            'viridian = 0' 'xen_platform_pci = 0'
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

# waiting SECONDS WHAT CMD...: CMD every 0.1 s until it succeeds, at most
# SECONDS; else says "no WHAT after SECONDS s" and exits 1.
waiting() {
    w_left=$(($1 * 10)) w_what=$2 w_secs=$1
    shift 2
    until "$@" >/dev/null 2>&1; do
        w_left=$((w_left - 1))
        if [ $w_left -le 0 ]; then
            echo "no $w_what after $w_secs s"
            exit 1
        fi
        sleep 0.1
    done
}

# peer_ready: wait (at most 120 s) until the other host says "ready" on
# its port 8001.
peer_ready() {
    waiting 120 "ready from $XENLAB_PEER" peer_said_ready
}
peer_said_ready() {
    [ "$(socat -u TCP:$XENLAB_PEER:8001 - 2>/dev/null)" = ready ]
}

# ft_setup: a fresh key in /tmp/ft.key, the arbiter's directory
# /tmp/arb, and in $opts the options of ftd for pair idle on Xen.
ft_setup() {
    (umask 077; od -An -tx1 -N32 /dev/urandom | tr -d " \n" > /tmp/ft.key)
    mkdir -p /tmp/arb
    opts="--backend xen --pair idle --key /tmp/ft.key --arbiter file:/tmp/arb"
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
