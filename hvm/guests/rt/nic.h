/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nic.h - ftvm's network card for guests (hvm/ftvm/DEVICES.md): rings
 * of buffers in guest memory, a kick to post them.
 */
#ifndef XENFT_GUEST_NIC_H
#define XENFT_GUEST_NIC_H

#include "rt.h"

#define NIC         0xfeb00000u
#define NIC_ID      0x00
#define NIC_MAC_LO  0x04
#define NIC_MAC_HI  0x08
#define NIC_RX_RING 0x10
#define NIC_RX_SIZE 0x14
#define NIC_TX_RING 0x18
#define NIC_TX_SIZE 0x1c
#define NIC_CTRL    0x20
#define NIC_RX_KICK 0x24
#define NIC_TX_KICK 0x28
#define NIC_ID_XNIC 0x43494e58u
#define IRQ_NIC     10
#define NIC_SLOTS   32
#define NIC_BUF     2048

struct nic_slot {
    uint32_t addr, len, done, pad;
};

struct nic_ring {
    volatile uint32_t avail, used;
    struct nic_slot s[NIC_SLOTS];
} __attribute__((aligned(16)));

static inline uint32_t nic_r(uint32_t off)
{
    return *(volatile uint32_t *)(NIC + off);
}

static inline void nic_w(uint32_t off, uint32_t v)
{
    *(volatile uint32_t *)(NIC + off) = v;
}

#endif /* XENFT_GUEST_NIC_H */
