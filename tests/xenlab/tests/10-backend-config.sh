#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 10-backend-config.sh - libxlft's xen backend checks a running guest's
# configuration for FT: a guest unfit in every way is refused with each
# xl setting to change; a fit one (1 vCPU, hap=0, oos=0, always_emulate,
# no viridian, no platform device, no vif or disk of QEMU's) is
# accepted; one with QEMU's NIC and disk is refused for those; one booted
# from a kernel whose command line lacks nopv is refused for that alone.
# --xen 4.17.5: the stock hypervisor has no shadow paging, so no fit
# guest.
. "$(dirname "$0")/../testlib.sh"

lab_put tests/xlft-xen guests/idle.bin
lab --xen 4.17.5 -- '
. /xenft/dom0.sh
hvm_create unfit "vcpus = 2" "viridian = 1" \
    "vif = [ \"bridge=xenbr0,type=vif\" ]"
/xenft/xlft-xen check-config $(xl domid unfit)
echo "unfit=$?"
xl destroy unfit
hvm_create fit "hap = 0" "oos = 0" "tsc_mode = \"always_emulate\"" \
    "viridian = 0" \
    "xen_platform_pci = 0"
/xenft/xlft-xen check-config $(xl domid fit)
echo "fit=$?"
xl destroy fit
truncate -s 1M /tmp/d.img
hvm_create qdev "hap = 0" "oos = 0" "tsc_mode = \"always_emulate\"" \
    "viridian = 0" "xen_platform_pci = 0" \
    "vif = [ \"bridge=xenbr0,type=ioemu,model=e1000\" ]" \
    "disk = [ \"format=raw,vdev=hda,access=rw,backendtype=qdisk,\
target=/tmp/d.img\" ]"
/xenft/xlft-xen check-config $(xl domid qdev)
echo "qdev=$?"
xl destroy qdev
hvm_create knopv "hap = 0" "oos = 0" "tsc_mode = \"always_emulate\"" \
    "viridian = 0" "xen_platform_pci = 0" "kernel = \"/xenft/idle.bin\"" \
    "cmdline = \"hz=50\""
/xenft/xlft-xen check-config $(xl domid knopv)
echo "knopv=$?"
xl destroy knopv
/xenft/xlft-xen check-config 4242
echo "unknown=$?"
'
expect_status 0
expect_lines '^unfit=1$' '^fit=0$' '^knopv=1$' '^unknown=1$' \
    '^domain [0-9]+ is not fit for FT: ' \
    '2 vCPUs: FT replays one, set vcpus = 1' \
    'set hap = 0' 'set oos = 0' 'set tsc_mode = "always_emulate"' \
    'set viridian = 0' 'set xen_platform_pci = 0' \
    '1 vif device\(s\): QEMU.s and PV network devices write guest memory '\
'behind the log: remove vif = \[\.\.\.\], ftdm serves the network' \
    '^qdev=1$' \
    '^domain [0-9]+ is not fit for FT: 1 vif device\(s\): .*; 1 disk '\
'device\(s\): QEMU.s and PV disks write guest memory behind the log: '\
'remove disk = \[\.\.\.\], ftdm serves the disk$' \
    '^domain [0-9]+ is fit for FT$' '^domain 4242 does not exist$' \
    '^domain [0-9]+ is not fit for FT: a kernel booted without nopv uses '\
"Xen's PV clock and event channels: add nopv to cmdline\$"
