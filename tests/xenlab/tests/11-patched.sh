#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 11-patched.sh - the hypervisor built from xen-patches (make check-xen
# XEN_SRC=... or verify.sh leaves it in build/xenlab/xen-patched.gz;
# without it the test is skipped): it boots in the lab with shadow
# paging, and on a shadow-paging HVM guest libxlft's xen backend reaches
# the FT domctl,
# which answers the status of a guest that records nothing yet; enables
# recording, maps the ring (whose header says its points count nothing,
# as recorded without a counter, on the lab's AMD CPU), binds its
# Xen-bound event channel in dom0
# (Xen's dump of event channels shows both ends joined, and the
# notification Xen raises on binding reaches dom0) and notifies it;
# after the disable, that port is refused with a message naming it.
# Xen itself checks the guest, whatever dom0 checks: it refuses one
# whose TSC is not emulated, one that shows RDRAND, and one with
# out-of-sync shadow page tables (oos must be 0), each with a
# line in its log naming the reason and libxlft's message naming the
# setting; it refuses a ring above 64 MiB (-E2BIG), and the TSC mode
# cannot be changed while FT is on (XEN_DOMCTL_settscinfo: -EBUSY), but
# can again once it is off.  A domain builder asking for recording
# before the domain's vCPU exists is refused (-EINVAL), and Xen lives
# on.
. "$(dirname "$0")/../testlib.sh"

patched_image
# The versions the ring must report are hvm/core's, which Xen compiles.
core=$(dirname "$0")/../../../hvm/core
abi=$(sed -n 's/^#define FT_ABI_VERSION *\([0-9]*\)u.*/\1/p' "$core/ft_abi.h")
logv=$(sed -n 's/^#define FT_LOG_VERSION *\([0-9]*\)u.*/\1/p' "$core/ft_log.h")
[ -n "$abi" ] && [ -n "$logv" ] ||
    fail "no FT_ABI_VERSION or FT_LOG_VERSION in $core"
lab_put tests/xlft-xen
lab --xen "$image" -- '
. /xenft/dom0.sh
xl info | grep -E "^xen_version"
xl dmesg | grep -o "Compiled-in support:.*SHADOW_PAGING" | head -n 1
# TSC not emulated (libxl default tsc_mode): Xen says so first.
hvm_create hvm "hap = 0"
/xenft/xlft-xen --unsafe-no-counter record-ring 1
echo "tsc-unfit=$?"
xl dmesg | grep -o "FT: d1 refused: .*" | head -n 1
xl destroy hvm
# The lab CPU shows the guest RDRAND, which SVM cannot intercept.
hvm_create hvm "hap = 0" "oos = 0" "tsc_mode = \"always_emulate\""
/xenft/xlft-xen --unsafe-no-counter record-ring 2
echo "unfit=$?"
xl dmesg | grep -o "FT: d2 refused: .*" | head -n 1
xl destroy hvm
hvm_create hvm "hap = 0" "oos = 0" "tsc_mode = \"always_emulate\"" \
    "cpuid = \"host,rdrand=0,rdseed=0\""
# Past hvmloader, whose hypercalls Xen refuses once FT is on.
seabios hvm
/xenft/xlft-xen --unsafe-no-counter --ring-data=134217728 record-ring 3
echo "ring-big=$?"
/xenft/xlft-xen ft-status 3
echo "ft-status=$?"
# While bound: both ends as Xen sees them (s=3: interdomain, x>0: Xen
# is the consumer).
cat > /tmp/ends.sh <<"EOC"
xl dmesg -c > /dev/null
xl debug-keys e
xl dmesg > /tmp/evtchn.txt
g=$XLFT_PORT d=$XLFT_DOM0_PORT
grep -Eq " $g \[.*s=3 n=[0-9]+ x=[1-9][0-9]* d=0 p=$d\$" /tmp/evtchn.txt &&
    echo "xen: guest port $g is Xen-bound to dom0"
grep -Eq " $d \[.*s=3 n=[0-9]+ x=0 d=3 p=$g\$" /tmp/evtchn.txt &&
    echo "xen: dom0 port $d is bound to the guest"
# While FT is on, the TSC mode stays as Xen checked it.
/xenft/xlft-xen tsc-emulate 3 2>&1
echo "tsc-busy=$?"
exit 0
EOC
/xenft/xlft-xen --unsafe-no-counter record-ring 3 "sh /tmp/ends.sh" \
    > /tmp/rr.txt
echo "record-ring=$?"
cat /tmp/rr.txt
port=$(sed -n "s/^enabled: .* port //p" /tmp/rr.txt)
/xenft/xlft-xen evtchn-bind 3 "${port:-0}"
echo "evtchn-bind=$?"
/xenft/xlft-xen tsc-emulate 3
echo "tsc-off=$?"
xl list hvm | awk "NR == 2 { print \"guest \" \$1 \" \" \$5 }"
xl destroy hvm
# Fit but for its out-of-sync shadows: Xen names the setting.
hvm_create hvm "hap = 0" "tsc_mode = \"always_emulate\"" \
    "cpuid = \"host,rdrand=0,rdseed=0\""
/xenft/xlft-xen --unsafe-no-counter record-ring 4
echo "oos-unfit=$?"
xl dmesg | grep -o "FT: d4 refused: .*" | head -n 1
xl destroy hvm
# A builder asking before the vCPU exists: refused, Xen lives on.
/xenft/xlft-xen --unsafe-no-counter early-record
echo "early=$?"
xl dmesg | grep -o "FT: d[0-9]* refused: it has no vCPU yet" | head -n 1
xl info | grep -E "^xen_version"
'
expect_status 0
expect_lines '^xen_version +: 4\.17\.7$' 'SHADOW_PAGING' \
    '^xlft-xen: domain 1: Xen refuses FT: TSC is not emulated \(tsc_mode must be always_emulate\)$' \
    '^tsc-unfit=1$' \
    '^FT: d1 refused: TSC is not emulated \(tsc_mode must be always_emulate\)$' \
    '^xlft-xen: domain 2 is unfit for recording: .*rdrand=0' '^unfit=1$' \
    '^FT: d2 refused: its CPUID policy shows RDRAND/RDSEED' \
    '^xlft-xen: domain 3: Xen refuses a ring of 134217728 bytes: it takes at most 64 MiB$' \
    '^ring-big=1$' \
    "^state off frames 0 port 0 abi $abi log $logv seq 0 count 0 stopped 0\$" '^ft-status=0$' \
    '^enabled: state record frames [0-9]+ port [1-9][0-9]*$' \
    "^ring: [0-9]+ bytes mapped, a record ring of ABI $abi counting none on AMD, [0-9]+ bytes" \
    '^disabled: state off$' '^record-ring=0$' '^guest hvm [-rb]+$' \
    '^evtchn: domain 3 port [1-9][0-9]* bound to dom0 port [0-9]+$' \
    '^evtchn: notified, 1 pending for dom0$' \
    '^xen: guest port [0-9]+ is Xen-bound to dom0$' \
    '^xen: dom0 port [0-9]+ is bound to the guest$' \
    '^cmd: status 0$' '^evtchn: unbound$' \
    '^xlft-xen: domain 3: cannot bind its event channel port [1-9][0-9]*: ' \
    '^evtchn-bind=1$' \
    '^xlft-xen: domain 3: Xen refuses to change its TSC mode while FT is on$' \
    '^tsc-busy=1$' '^tsc: domain 3 always emulates its TSC$' '^tsc-off=0$' \
    '^early: domain [0-9]+ created, no vCPU yet$' \
    '^xlft-xen: domain [0-9]+: Xen refuses FT: the domain has no vCPU yet$' \
    '^early: domain [0-9]+ destroyed$' '^early=0$' \
    '^FT: d[0-9]+ refused: it has no vCPU yet$' '^oos-unfit=1$' \
    '^seabios-ran$' \
    '^FT: d4 refused: out-of-sync shadow page tables are on \(oos must be 0\)$'
