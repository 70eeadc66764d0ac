#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 04-two-hosts.sh - two emulated hosts on one virtual network: each dom0
# has its own address and reaches the other.
#
#   +---- QEMU: Xen host 1 ----+  one network   +---- QEMU: Xen host 2 ----+
#   | dom0 xenbr0 10.99.0.1    +----------------+ dom0 xenbr0 10.99.0.2    |
#   | ping host 2              |                | ping host 1              |
#   +--------------------------+                +--------------------------+
. "$(dirname "$0")/../testlib.sh"

lab --hosts 2 -- '
echo "host $XENLAB_HOST is $XENLAB_IP"
n=0
until busybox ping -c 1 -W 1 "$XENLAB_PEER" >/dev/null 2>&1; do
    n=$((n + 1))
    [ $n -le 60 ] || { echo "no answer from $XENLAB_PEER"; exit 1; }
done
echo "reached $XENLAB_PEER"
'
expect_status 0
expect_lines '^host 1 is 10\.99\.0\.1$' '^host 2 is 10\.99\.0\.2$' \
    '^reached 10\.99\.0\.2$' '^reached 10\.99\.0\.1$'
