# SPDX-License-Identifier: GPL-2.0-only
#
# idle.sh - sourced by the tests' dom0 scripts as /xenft/idle.sh (testlib's
# lab_put puts it there): the project's idle guest as a Xen HVM guest,
# and a bounded wait for the ticks it prints on its console.

# idle_cfg HZ [fit]: write /tmp/idle.cfg, the xl configuration of "idle"
# (/xenft/idle.bin, console in /tmp/idle.log) ticking at HZ; with fit,
# configured as FT needs it.  A secondary host writes it too: its copy
# must agree with it (ftd --xen-config, xlft-xen copy-recv).
idle_cfg() {
    {
        echo 'name = "idle"'
        echo 'type = "hvm"'
        echo 'memory = 32'
        echo 'vcpus = 1'
        echo 'vnc = 0'
        echo 'vga = "none"'
        echo 'kernel = "/xenft/idle.bin"'
        echo "cmdline = \"hz=$1\""
        echo 'serial = "file:/tmp/idle.log"'
        if [ "${2:-}" = fit ]; then
            echo 'hap = 0'
            echo 'tsc_mode = "always_emulate"'
            echo 'cpuid = "host,rdrand=0,rdseed=0"'
            echo 'viridian = 0'
            echo 'xen_platform_pci = 0'
        fi
    } > /tmp/idle.cfg
}

# idle_start HZ [fit]: create "idle" from idle_cfg's configuration.
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
