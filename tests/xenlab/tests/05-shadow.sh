#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 05-shadow.sh - the 4.17.5 hypervisor build, which still has shadow
# paging, runs an HVM guest with hap=0 (what FT guests need) under
# Debian's current 4.17 tools.
. "$(dirname "$0")/../testlib.sh"

lab_put
lab --xen 4.17.5 -- '
. /xenft/dom0.sh
xl info | grep -E "^xen_(major|minor|extra)"
hvm_create shadow "hap = 0"
seabios shadow
xl list -l shadow | grep -E "\"hap\"" | tr -d " ,"
xl destroy shadow
'
expect_status 0
expect_lines '^xen_minor +: 17$' '^xen_extra +: \.5' '^seabios-ran$' \
    '^"hap":"False"$'
