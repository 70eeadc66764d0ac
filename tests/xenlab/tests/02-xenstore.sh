#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 02-xenstore.sh - xenstore in dom0: write, read, list and remove keys
# under /libxl/<domid>/ft/, where ftd keeps its status.
. "$(dirname "$0")/../testlib.sh"

lab -- '
set -e
xenstore-write /libxl/0/ft/state test /libxl/0/ft/role primary
echo "state=$(xenstore-read /libxl/0/ft/state)"
xenstore-ls /libxl/0/ft
xenstore-rm /libxl/0/ft
if xenstore-exists /libxl/0/ft; then echo still-there; else echo removed; fi
'
expect_status 0
expect_lines '^state=test$' '^state = "test"$' '^role = "primary"$' '^removed$'
