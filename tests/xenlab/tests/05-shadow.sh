#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 05-shadow.sh - the 4.17.5 hypervisor build, which still has shadow
# paging, runs an HVM guest with hap=0 (what FT guests need) under
# Debian's current 4.17 tools.
. "$(dirname "$0")/../testlib.sh"

lab --xen 4.17.5 -- '
xl info | grep -E "^xen_(major|minor|extra)"
cat > /tmp/hvm.cfg <<EOC
name = "shadow"
type = "hvm"
hap = 0
memory = 32
vcpus = 1
vnc = 0
vga = "none"
EOC
xl create /tmp/hvm.cfg || exit 1
n=0
until xl dmesg | grep -q "(d1) SeaBIOS"; do
    n=$((n + 1))
    if [ $n -gt 120 ]; then
        echo "no SeaBIOS after 60 s"
        xl dmesg | tail
        exit 1
    fi
    sleep 0.5
done
echo seabios-ran
xl list -l shadow | grep -E "\"hap\"" | tr -d " ,"
xl destroy shadow
'
expect_status 0
expect_lines '^xen_minor +: 17$' '^xen_extra +: \.5' '^seabios-ran$' \
    '^"hap":"False"$'
