#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 13-ftd-noft.sh - ftd with its xen backend on Debian's stock hypervisor:
# asked to protect a running HVM guest (the idle guest, its console
# ticking), the primary fails cleanly before it touches the guest,
# saying the hypervisor has no FT support; state=error and that message
# are in xenstore; the guest keeps running and ticking.  Both ftds run
# in one dom0 over loopback: first by hand (ftd primary / secondary),
# then as two services (backend = xen in their ft.conf) asked by xl-ft
# ft-enable.  The speed control ftd uses while a secondary lags, a
# scheduler cap, is set and lifted.
. "$(dirname "$0")/../testlib.sh"

lab_put bin/ftd bin/xl-ft guests/idle.bin tests/xlft-xen
lab -- '
. /xenft/dom0.sh
idle_start 100
ticks 2
ft_setup
ft_secondary 60
timeout -k 5 60 /xenft/ftd primary $opts --host-name hostA --guest idle \
    --peer 127.0.0.1:7801 2>&1
echo "primary: status $?"
wait $sec
echo "secondary: status $?"
echo "state=$(xenstore-read /libxl/1/ft/state)"
echo "error=$(xenstore-read /libxl/1/ft/error)"
xenstore-rm /libxl/1/ft
# The same through the services.
for h in A B; do
    mkdir -p -m 0700 /tmp/run$h
    cat > /tmp/ft$h.conf <<EOC
host-name = host$h
listen = 127.0.0.1:78$([ $h = A ] && echo 10 || echo 11)
key = /tmp/ft.key
arbiter = file:/tmp/arb
backend = xen
run-dir = /tmp/run$h

[guest idle]
peers = host$([ $h = A ] && echo B || echo A)
EOC
    timeout -k 5 120 /xenft/ftd --config /tmp/ft$h.conf \
        > /tmp/svc$h.log 2>&1 &
    eval "svc$h=\$!"
done
both_up() { [ -S /tmp/runA/ftd.sock ] && [ -S /tmp/runB/ftd.sock ]; }
(waiting 10 services both_up) || { cat /tmp/svc?.log; exit 1; }
/xenft/xl-ft --socket /tmp/runA/ftd.sock ft-enable idle 127.0.0.1:7811 2>&1
echo "ft-enable: status $?"
echo "state=$(xenstore-read /libxl/1/ft/state)"
echo "error=$(xenstore-read /libxl/1/ft/error)"
# The speed control a lagging secondary asks for: a scheduler cap.
cap() {
    xl sched-credit2 -d idle | awk "NR == 2 { print \"cap \" \$4 }"
}
/xenft/xlft-xen speed 1 50 && cap
/xenft/xlft-xen speed 1 100 && cap
/xenft/xlft-xen speed 1 0
echo "speed 0: status $?"
/xenft/xlft-xen speed 77 50
echo "speed unknown: status $?"
kill $svcA $svcB
wait $svcA $svcB
xl list idle | awk "NR == 2 { print \"guest \" \$1 \" \" \$5 }"
lines=$(idle_ticked)
ticks $((lines + 2))
xl destroy idle
'
expect_status 0
msg='domain 1: hypervisor has no FT support \(apply xen-patches\)'
expect_lines '^ticking: 2 lines$' "^ftd: primary idle: $msg\$" \
    '^primary: status 1$' '^secondary: status 1$' \
    '^state=error$' "^error=$msg\$" '^guest idle [-rb]+$' \
    '^ticking: [0-9]+ lines$' "$msg" '^ft-enable: status 1$' \
    '^cap 50$' '^cap 0$' '^xlft-xen: domain 1: a speed of 0% \(1 to 100\)$' \
    '^speed 0: status 1$' '^speed unknown: status 1$' \
    '^xlft-xen: domain 77: cannot read its scheduling parameters'
[ "$(grep -c '^state=error$' "$out")" = 2 ] || fail "the service wrote" \
    "no state=error"
[ "$(grep -cE "^error=$msg\$" "$out")" = 2 ] || fail "the service wrote" \
    "no error"
exit 0
