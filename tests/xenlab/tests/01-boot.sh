#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 01-boot.sh - dom0 boots on Xen 4.17, the toolstack answers, and the
# command's output and exit status come back to the host.
. "$(dirname "$0")/../testlib.sh"

lab -- 'xl info && xl list && echo output-came-back && exit 7'
expect_status 7
expect_lines '^xen_major +: 4$' '^xen_minor +: 17$' '^virt_caps +:.* hvm' \
    '^Domain-0 +0 ' '^output-came-back$'
