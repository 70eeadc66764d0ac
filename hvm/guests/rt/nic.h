/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nic.h - ftvm's network card for guests (hvm/ftvm/DEVICES.md): rings
 * of buffers in guest memory, a kick to post them.  Its registers are
 * in hvm/ftvm/ftvm_devices.h.
 */
#ifndef XENFT_GUEST_NIC_H
#define XENFT_GUEST_NIC_H

#include "ftvm_devices.h"
#include "rt.h"

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
    return *(volatile uint32_t *)(NIC_MMIO + off);
}

static inline void nic_w(uint32_t off, uint32_t v)
{
    *(volatile uint32_t *)(NIC_MMIO + off) = v;
}

#endif /* XENFT_GUEST_NIC_H */
