#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 11-patched.sh - the hypervisor built from xen-patches (verify.sh leaves
# it in build/xenlab/xen-patched.gz; CI cannot fetch Xen, so without it
# the test is skipped): it boots in the lab with shadow paging, and on a
# shadow-paging HVM guest libxlft's xen backend reaches the FT domctl,
# which answers the status of a guest that records nothing yet.
. "$(dirname "$0")/../testlib.sh"

image=$XL_OUT/xen-patched.gz
if [ ! -f "$image" ]; then
    echo "SKIP: no $image (xen-patches/verify.sh XEN-TREE builds it)"
    exit 77
fi
lab_put tests/xlft-xen
lab --xen "$image" -- '
xl info | grep -E "^xen_version"
xl dmesg | grep -o "Compiled-in support:.*SHADOW_PAGING" | head -n 1
cat > /tmp/hvm.cfg <<EOC
name = "hvm"
type = "hvm"
memory = 32
vcpus = 1
hap = 0
vnc = 0
vga = "none"
EOC
xl create /tmp/hvm.cfg || exit 1
/xenft/xlft-xen ft-status 1
echo "ft-status=$?"
/xenft/xlft-xen record-ring 1
echo "record-ring=$?"
xl list hvm | awk "NR == 2 { print \"guest \" \$1 \" \" \$5 }"
xl destroy hvm
'
expect_status 0
expect '^xen_version +: 4\.17\.7$' 'SHADOW_PAGING' \
    '^state off frames 0 port 0 abi 1 log 1 seq 0$' '^ft-status=0$' \
    '^enabled: state record frames [0-9]+ port [1-9][0-9]*$' \
    '^ring: [0-9]+ bytes mapped, a record ring of ABI 1, [0-9]+ bytes' \
    '^disabled: state off$' '^record-ring=0$' '^guest hvm [-rb]+$'
