#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 03-hvm.sh - an HVM guest with no disk (hvmloader, then SeaBIOS, which
# finds nothing to boot) is created with xl, runs, and is destroyed.
. "$(dirname "$0")/../testlib.sh"

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
    if [ $n -gt 120 ]; then
        echo "no SeaBIOS after 60 s"
        xl dmesg | tail
        exit 1
    fi
    sleep 0.5
done
echo seabios-ran
xl list hvm
xl destroy hvm || exit 1
if xl list hvm 2>/dev/null; then echo still-there; else echo destroyed; fi
'
expect_status 0
expect_lines '^seabios-ran$' '^hvm +1 +' '^destroyed$'
