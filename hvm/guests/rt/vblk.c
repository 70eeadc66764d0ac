// SPDX-License-Identifier: GPL-2.0-only
/*
 * vblk.c - virtio-blk for xenft guests (vblk.h): header, data, status,
 * three descriptors of chain 0.
 */
#include "vblk.h"

static struct vdev dev;
static struct vq q;
static struct vq_ring ring;
static struct {
    uint32_t type, reserved;
    uint64_t sector;
} hdr;
static volatile uint8_t status;

static void on_msi(struct rt_frame *f)
{
    (void)f;
}

int vblk_start(uint64_t *sectors, const char *who)
{
    if (vdev_start(&dev, 0x1042, 0, VBLK_VECTOR, who) ||
        vq_start(&dev, &q, 0, &ring))
        return -1;
    *sectors = *(volatile uint32_t *)dev.devcfg |
               (uint64_t)*(volatile uint32_t *)(dev.devcfg + 4) << 32;
    msi_set(VBLK_VECTOR + 1, on_msi);
    vdev_ready(&dev);
    return 0;
}

uint8_t vblk_rw(uint32_t type, uint64_t sector, void *buf, uint32_t count)
{
    struct vseg s[3] = {
        { &hdr, sizeof(hdr), 0 },
        { buf, count * 512, type == VBLK_IN ? VD_WRITE : 0 },
        { (const void *)&status, 1, VD_WRITE },
    };
    unsigned int chain;
    uint32_t len;

    hdr.type = type;
    hdr.reserved = 0;
    hdr.sector = sector;
    status = 0xff;
    vq_post(&q, 0, s, 3);
    vq_kick(&q);
    while (!vq_used(&q, &chain, &len)) {
        sti_hlt();
        cli();
    }
    return status;
}
