/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ftvm_devices.h - where ftvm's PCI functions, local APIC and ACPI
 * power control are (DEVICES.md says what they do).  Shared by ftvm and
 * by the guests' drivers, so the two sides cannot disagree; nothing
 * here needs any other header.  A driver finds its device by scanning
 * bus 0 and reads its BAR, as on any PC; the addresses below are what
 * ftvm assigns at reset, the firmware's part.
 */
#ifndef FTVM_DEVICES_H
#define FTVM_DEVICES_H

#define PCI_SLOT_NET    1           /* 00:01.0 virtio-net */
#define PCI_SLOT_BLK    2           /* 00:02.0 virtio-blk */
#define NET_BAR         0xfeb00000u
#define BLK_BAR         0xfeb04000u
/* BARs decode only inside the PCI hole, below the local APIC page. */
#define PCI_HOLE        0xf0000000u
#define PCI_HOLE_END    0xfec00000u

#define LAPIC_BASE      0xfee00000u
#define LAPIC_ID        0x020
#define LAPIC_VER       0x030
#define LAPIC_TPR       0x080
#define LAPIC_EOI       0x0b0
#define LAPIC_SVR       0x0f0
#define LAPIC_ISR       0x100       /* 8 registers, 0x10 apart */
#define LAPIC_IRR       0x200
#define LAPIC_SVR_ON    0x100u      /* APIC software enable */
/* An MSI message to this CPU: address, and data = vector (fixed). */
#define MSI_ADDR        0xfee00000u

/* ACPI PM1a control, at QEMU's pc machine's port: SLP_EN with SLP_TYP 0
 * (soft off, S5) powers the guest off. */
#define PM1A_CNT        0x604
#define PM1_SLP_EN      (1u << 13)
#define PM1_SLP_TYP(v)  (((v) >> 10) & 7u)

#endif /* FTVM_DEVICES_H */
