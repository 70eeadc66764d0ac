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
cat > /tmp/hvm.cfg <<EOC
name = "hvm"
type = "hvm"
memory = 32
vcpus = 1
vnc = 0
vga = "none"
EOC
xl create /tmp/hvm.cfg || exit 1
n=0
until xl dmesg | grep -q "(d1) SeaBIOS"; do
    n=$((n + 1))
    [ $n -le 120 ] || { echo "no SeaBIOS after 60 s"; exit 1; }
    sleep 0.5
done
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
