/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * virtio.h - a small virtio 1.0 driver over PCI for xenft guests: find
 * a function on bus 0, negotiate, set up split virtqueues, MSI-X
 * through the local APIC (hvm/ftvm/DEVICES.md).  No feature beyond
 * VERSION_1 and what the caller asks for; no indirect descriptors, no
 * EVENT_IDX.  Interrupts: each queue gets its own vector.
 */
#ifndef XENFT_GUEST_VIRTIO_H
#define XENFT_GUEST_VIRTIO_H

#include "rt.h"

#define VQ_SIZE     32              /* descriptors per queue */
#define VQ_MAXSEG   4               /* descriptors per chain: 8 chains */
#define VQ_CHAINS   (VQ_SIZE / VQ_MAXSEG)

#define VD_WRITE    2u              /* a segment the device writes */

struct vq_desc {
    uint64_t addr;
    uint32_t len;
    uint16_t flags, next;
};

struct vq_ring {
    struct vq_desc desc[VQ_SIZE];
    struct {
        uint16_t flags, idx, ring[VQ_SIZE], used_event;
    } avail;
    struct {
        uint16_t flags, idx;
        struct { uint32_t id, len; } ring[VQ_SIZE];
        uint16_t avail_event;
    } used __attribute__((aligned(4)));
} __attribute__((aligned(16)));

struct vq {
    struct vq_ring *r;
    uint16_t index;                 /* queue number */
    uint16_t avail_idx, last_used;
    volatile uint16_t *notify;
};

struct vdev {
    unsigned int slot;
    volatile uint8_t *common, *devcfg, *notify;
    volatile uint32_t *msix;
    uint32_t notify_mult;
    uint8_t vector_base;            /* MSI vector of index 0 (config) */
};

/* A segment of a chain: address, length, VD_WRITE or 0. */
struct vseg {
    const void *addr;
    uint32_t len, flags;
};

/* PCI configuration mechanism 1. */
uint32_t pci_read32(unsigned int slot, unsigned int off);
void pci_write32(unsigned int slot, unsigned int off, uint32_t v);

/*
 * Find the virtio function with PCI device id 'device_id' on bus 0 and
 * bring it to FEATURES_OK with VERSION_1 and 'features' (the low 32
 * bits); its vectors start at 'vector_base' (16 of them at most).
 * 0, or -1 with a message on the console naming what failed.
 */
int vdev_start(struct vdev *d, uint16_t device_id, uint32_t features,
               uint8_t vector_base, const char *who);
/* Queue 'index' over 'r', interrupts on vector_base + 1 + index. */
int vq_start(struct vdev *d, struct vq *q, uint16_t index,
             struct vq_ring *r);
/* DRIVER_OK: the device may use its queues from here. */
void vdev_ready(struct vdev *d);

/* Post chain number 'chain' (0 .. VQ_CHAINS - 1) of up to VQ_MAXSEG
 * segments, readable ones first; the device learns of it at vq_kick. */
void vq_post(struct vq *q, unsigned int chain, const struct vseg *s,
             unsigned int n);
void vq_kick(struct vq *q);
/* The next chain the device has used: true, its number and length. */
bool vq_used(struct vq *q, unsigned int *chain, uint32_t *len);

/* A handler for MSI vector 'vector' (0x30 and up; EOI is done). */
void msi_set(uint8_t vector, rt_irq_fn fn);

#endif /* XENFT_GUEST_VIRTIO_H */
