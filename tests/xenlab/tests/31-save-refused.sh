#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 31-save-refused.sh - on the hypervisor built from xen-patches (skipped
# without it), a guest that fault tolerance records is neither saved nor
# migrated, and the user is told why:
# - the series' xl (patch 16, libxl) refuses `xl save` and `xl migrate`
#   before it touches the guest, naming FT and `xl ft-disable`;
# - Debian's unpatched xl gets as far as asking Xen for log-dirty mode
#   (a live migration), or to suspend the guest (`xl save`), which Xen
#   refuses (patch 15), its log saying why;
# - a device model's suspend (XEN_DMOP_remote_shutdown, as QEMU asks on
#   the guest's behalf) is refused by Xen the same way.
# The guest stays recorded and running throughout; once FT is off, xl
# saves it.  The migrations go to a receiver that takes the stream and
# creates nothing.
. "$(dirname "$0")/../testlib.sh"

patched_image
lab_put tests/xlft-xen guests/idle.bin xenlab/xen-tools-patched
lab --xen "$image" -- '
. /xenft/dom0.sh
fit_cfg idle idle.bin "hz=50 report=25"
xl create /tmp/idle.cfg || exit 1
ticks 1
# A migration receiver that takes what comes and creates nothing.
cat > /tmp/rx.sh <<"EOC"
printf "xl migration receiver ready, send binary domain data.\n"
exec cat > /dev/null
EOC
cat > /tmp/try.sh <<"EOC"
px() {
    LD_LIBRARY_PATH=/xenft/xen-tools-patched/lib \
        /xenft/xen-tools-patched/bin/xl "$@"
}
px save idle /tmp/idle.save 2>&1
echo "patched save: $?"
rm -f /tmp/idle.save
px migrate -s "" idle "sh /tmp/rx.sh" 2>&1
echo "patched migrate: $?"
xl migrate -s "" idle "sh /tmp/rx.sh" 2>&1
echo "debian migrate: $?"
xl save idle /tmp/idle.save 2>&1
echo "debian save: $?"
rm -f /tmp/idle.save
n=$(xl dmesg | grep -c "not suspended (saved)")
/xenft/xlft-xen dm-suspend 1
[ $(xl dmesg | grep -c "not suspended (saved)") -gt $n ] &&
    echo "dm suspend refusal logged"
/xenft/xlft-xen ft-status 1
xl list idle > /dev/null && echo "still here"
exit 0
EOC
/xenft/xlft-xen --steps record-ring 1 "sh /tmp/try.sh" > /tmp/rr.txt 2>&1
echo "record-ring=$?"
cat /tmp/rr.txt
xl dmesg | grep -o "FT: d1 is recorded .*" | sort -u
ticks $(($(idle_ticked) + 2))
echo "guest ticks on"
xl save idle /tmp/idle.save && [ -s /tmp/idle.save ] &&
    echo "saved once FT is off"
xl destroy idle 2> /dev/null
exit 0
'
expect_status 0
expect_lines '^record-ring=0$' \
    'Domain 1:protected by record/replay fault tolerance \(recorded\): '\
'not saved or migrated while it is; end it with xl ft-disable' \
    '^patched save: [1-9]' '^patched migrate: [1-9]' \
    '^debian migrate: [1-9]' '^debian save: [1-9]' \
    '^dm-suspend: domain 1: refused: Device or resource busy$' \
    '^dm suspend refusal logged$' '^state record ' \
    '^still here$' \
    '^FT: d1 is recorded for fault tolerance: not saved or migrated '\
'until FT is disabled$' \
    '^FT: d1 is recorded for fault tolerance: not suspended \(saved\) '\
'until FT is disabled$' \
    '^guest ticks on$' '^saved once FT is off$'
n=$(grep -c "protected by record/replay fault tolerance" "$out")
[ "$n" -ge 2 ] || fail "libxl refused $n of save and migrate, not both"
exit 0
