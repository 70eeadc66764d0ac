#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 08-backend-xenstore.sh - libxlft's xen backend in the real xenstore:
# FT status keys written in one transaction read back with xenstore-ls;
# bad keys, bad values and an unknown domain are refused by name; a
# request written to ft/control reaches the watch, also a second time.
. "$(dirname "$0")/../testlib.sh"

lab_put tests/xlft-xen
lab -- '
X=/xenft/xlft-xen
$X status-write 0 state=recording role=primary peer=10.99.0.2 \
    seq-sent=42 seq-acked=40 lag-us=1500 log-bw=1000 error= || exit 1
xenstore-ls /libxl/0/ft
$X status-write 0 state=x bogus=1 && echo bogus-accepted
$X status-write 0 seq-acked=-1 && echo negative-accepted
$X status-write 4242 state=x && echo unknown-domain-accepted
xenstore-read /libxl/0/ft/state

$X control-watch 0 60 > /tmp/watch.out 2>&1 &
w=$!
wait_for() {
    n=0
    until grep -q "$1" /tmp/watch.out; do
        n=$((n + 1))
        if [ $n -gt 100 ]; then
            echo "watch: no \"$1\" after 10 s"
            cat /tmp/watch.out
            kill $w
            exit 1
        fi
        sleep 0.1
    done
}
wait_for "^watching$"
xenstore-write /libxl/0/ft/control failover
wait_for "^request: failover$"
xenstore-write /libxl/0/ft/control failover
n=0
until [ "$(grep -c "^request: failover$" /tmp/watch.out)" = 2 ]; do
    n=$((n + 1))
    [ $n -le 100 ] || { echo "second request not seen"; kill $w; exit 1; }
    sleep 0.1
done
kill $w
cat /tmp/watch.out
xenstore-exists /libxl/0/ft/control && echo control-left
/xenft/xlft-xen control-watch 4242 1
echo done
'
expect_status 0
expect_lines '^state = "recording"$' '^role = "primary"$' \
    '^peer = "10\.99\.0\.2"$' '^seq-sent = "42"$' '^seq-acked = "40"$' \
    '^lag-us = "1500"$' '^log-bw = "1000"$' '^error = ""$' \
    "'bogus' is not an FT status key" \
    "ft/seq-acked: '-1' is not an unsigned decimal number" \
    '^xlft-xen: domain 4242 does not exist' \
    '^recording$' '^watching$' '^request: failover$' '^done$'
[ "$(grep -c '^request: failover$' "$out")" = 2 ] ||
    fail "the control request was not seen twice"
! grep -Eq 'accepted$|^control-left$' "$out" ||
    fail "a bad write was accepted, or the request stayed in ft/control"
[ "$(grep -c 'domain 4242 does not exist' "$out")" = 2 ] ||
    fail "the watch on an unknown domain was not refused by name"
