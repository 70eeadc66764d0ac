#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 22-hypercall-refused.sh - on the hypervisor built from xen-patches
# (skipped without it), a protected guest gets nothing from Xen that the
# log cannot see: the idle guest asks Xen its version with each line it
# prints (hypercall=1).  Before FT, Xen answers 4.17 (0x00040011); while
# it records (steps), every call is refused with -EPERM (0xffffffff), the
# same answer its copy would get, and Xen's log names the hypercall;
# once recording is off, Xen answers again: one run of answers, one of
# refusals, one of answers.
. "$(dirname "$0")/../testlib.sh"

patched_image
lab_put tests/xlft-xen guests/idle.bin
lab --xen "$image" -- '
. /xenft/dom0.sh
fit_cfg idle idle.bin "hz=50 report=25 hypercall=1"
xl create /tmp/idle.cfg || exit 1
answered() {
    grep -c "^idle: Xen answered $1\$" /tmp/idle.log
}
waiting 60 "an answer before FT" sh -c "[ \$(grep -c \
\"^idle: Xen answered 0x00040011\$\" /tmp/idle.log) -ge 1 ]"
echo "before: $(answered 0x00040011) answered, $(answered 0xffffffff) refused"
/xenft/xlft-xen --steps records 1 600 120 > /tmp/rec.txt
echo "records=$?"
grep "^records: " /tmp/rec.txt
n=$(answered 0x00040011)
echo "while recording: $(answered 0xffffffff) refused"
waiting 60 "an answer after FT" sh -c "[ \$(grep -c \
\"^idle: Xen answered 0x00040011\$\" /tmp/idle.log) -gt $n ]"
echo "after: answered again"
# Whole answers only: the guest may be half-way through its next line.
echo "runs: $(sed -n "s/^idle: Xen answered \(0x[0-9a-f]\{8\}\)\$/\1/p" \
    /tmp/idle.log | uniq | tr "\n" " ")"
xl dmesg | grep -o "FT: .*hypercall.*" | head -n 1
xl destroy idle
'
expect_status 0
expect_lines '^before: [1-9][0-9]* answered, 0 refused$' '^records=0$' \
    '^while recording: [1-9][0-9]* refused$' '^after: answered again$' \
    '^runs: 0x00040011 0xffffffff 0x00040011 $' \
    '^FT: d1: hypercall 17 refused: a protected guest uses no PV interface$'
exit 0
