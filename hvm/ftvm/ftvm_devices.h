/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ftvm_devices.h - where ftvm's disk, network card and ACPI power
 * control are and what their registers are (DEVICES.md says what they
 * do).  Shared by ftvm and by
 * the guests' drivers, so the two sides cannot disagree; nothing here
 * needs any other header.
 */
#ifndef FTVM_DEVICES_H
#define FTVM_DEVICES_H

#define DISK_MMIO       0xfeb01000u
#define DISK_IRQ        14
#define DISK_ID         0x00
#define DISK_SECTORS    0x04
#define DISK_RING       0x10
#define DISK_SIZE       0x14
#define DISK_CTRL       0x18
#define DISK_KICK       0x1c
#define DISK_ID_VALUE   0x4b534458u     /* "XDSK" */
#define DISK_OP_READ    1u
#define DISK_OP_WRITE   2u

#define NIC_MMIO        0xfeb00000u
#define NIC_IRQ         10
#define NIC_ID          0x00
#define NIC_MAC_LO      0x04
#define NIC_MAC_HI      0x08
#define NIC_RX_RING     0x10
#define NIC_RX_SIZE     0x14
#define NIC_TX_RING     0x18
#define NIC_TX_SIZE     0x1c
#define NIC_CTRL        0x20
#define NIC_RX_KICK     0x24
#define NIC_TX_KICK     0x28
#define NIC_ID_VALUE    0x43494e58u     /* "XNIC" */

/* ACPI PM1a control, at QEMU's pc machine's port: SLP_EN with SLP_TYP 0
 * (soft off, S5) powers the guest off. */
#define PM1A_CNT        0x604
#define PM1_SLP_EN      (1u << 13)
#define PM1_SLP_TYP(v)  (((v) >> 10) & 7u)

#endif /* FTVM_DEVICES_H */
