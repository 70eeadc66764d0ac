#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 09-backend-noft.sh - on Debian's stock hypervisor (no xen-patches) the
# FT status domctl of libxlft's xen backend fails cleanly on a running
# HVM guest, saying the hypervisor has no FT support; state=error and
# that message land in xenstore; the guest keeps running.
. "$(dirname "$0")/../testlib.sh"

lab_put tests/xlft-xen
lab -- '
. /xenft/dom0.sh
hvm_create hvm
seabios hvm
/xenft/xlft-xen ft-status 1
echo "ft-status=$?"
echo "state=$(xenstore-read /libxl/1/ft/state)"
echo "error=$(xenstore-read /libxl/1/ft/error)"
xl list hvm | awk "NR == 2 { print \"guest \" \$1 \" \" \$2 \" \" \$5 }"
xl destroy hvm
'
expect_status 0
msg='domain 1: hypervisor has no FT support \(apply xen-patches\)'
expect_lines "^xlft-xen: $msg\$" \
    '^ft-status=1$' '^state=error$' \
    "^error=$msg\$" \
    '^guest hvm 1 [-rb]+$'
