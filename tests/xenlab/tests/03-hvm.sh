#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 03-hvm.sh - an HVM guest with no disk (hvmloader, then SeaBIOS, which
# finds nothing to boot) is created with xl, runs, and is destroyed.
. "$(dirname "$0")/../testlib.sh"

lab_put
lab -- '
. /xenft/dom0.sh
hvm_create hvm
seabios hvm
xl list hvm
xl destroy hvm || exit 1
if xl list hvm 2>/dev/null; then echo still-there; else echo destroyed; fi
'
expect_status 0
expect_lines '^seabios-ran$' '^hvm +1 +' '^destroyed$'
