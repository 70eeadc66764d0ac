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

/* Post every slot of 'rx' with a buffer from 'bufs' and start the card. */
static inline void nic_rx_start(struct nic_ring *rx,
                                uint8_t (*bufs)[NIC_BUF])
{
    for (int i = 0; i < NIC_SLOTS; i++) {
        rx->s[i].addr = (uint32_t)bufs[i];
        rx->s[i].len = NIC_BUF;
    }
    rx->avail = NIC_SLOTS;
    nic_w(NIC_RX_RING, (uint32_t)rx);
    nic_w(NIC_RX_SIZE, NIC_SLOTS);
    nic_w(NIC_CTRL, 1);
    nic_w(NIC_RX_KICK, rx->avail);
}

#endif /* XENFT_GUEST_NIC_H */
