#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 06-migrate.sh - live migration of an HVM guest from host 1 to host 2
# over the lab's network, as xl does it (xl migrate / migrate-receive).
#
#   +---- QEMU: Xen host 1 ----+  one network   +---- QEMU: Xen host 2 ----+
#   | dom0 xenbr0 10.99.0.1    +----------------+ dom0 xenbr0 10.99.0.2    |
#   | guest mig, then gone     |                | socat :8002 migrate-recv |
#   | xl migrate -> :8002      |                | says ready on :8001      |
#   | waits for :8001 ready    |                | guest mig arrives        |
#   +--------------------------+                +--------------------------+
. "$(dirname "$0")/../testlib.sh"

lab_put
lab --hosts 2 -- '
. /xenft/dom0.sh
if [ "$XENLAB_HOST" = 2 ]; then
    socat TCP-LISTEN:8002,reuseaddr EXEC:"xl migrate-receive" &
    rx=$!
    # Host 1 waits for this before it migrates.
    echo ready | socat -u - TCP-LISTEN:8001,reuseaddr
    wait $rx || { echo "migrate-receive failed"; exit 1; }
    xl list mig || exit 1
    echo arrived
    xl destroy mig
    exit 0
fi
hvm_create mig
# Past its firmware: a save while hvmloader still ran failed once, Xen
# refusing to map one of its frames (0x48c00) to the sender.
seabios mig
peer_ready
xl migrate -s "" mig "socat - TCP:$XENLAB_PEER:8002" || exit 1
if xl list mig 2>/dev/null; then echo still-here; else echo left; fi
'
expect_status 0
expect_lines '^left$' '^mig +[0-9]+ ' '^arrived$'
