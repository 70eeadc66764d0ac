// SPDX-License-Identifier: GPL-2.0-only
/*
 * virtio.c - virtio 1.0 over PCI (virtio 1.0, 4.1): the registers of
 * BAR 0 (common configuration, MSI-X table, ISR, device configuration,
 * notifications), feature negotiation and reset.
 *
 * A driver's mistake in what it asks of a queue puts the device in
 * DEVICE_NEEDS_RESET and stops its queues until the driver resets it;
 * that only ever happens at a guest access, so both copies agree on it.
 * The ISR reads 0: interrupts are MSI-X messages only, and a register
 * that clears on read would be a read with a side effect.
 */
#include <string.h>

#include "vio_impl.h"

static void le(uint8_t *p, uint64_t v, unsigned int n)
{
    for (unsigned int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

void vio_warn(struct vio_fn *f, unsigned int kind, const char *why)
{
    const struct vio_host *h = &f->bus->host;

    if (kind < 32 && (f->warned & (1u << kind)))
        return;
    if (kind < 32)
        f->warned |= 1u << kind;
    if (h->warn)
        h->warn(h->opaque, why);
}

void vio_fail(struct vio_fn *f, const char *why)
{
    if (f->broken)
        return;
    f->broken = true;
    f->status |= ST_NEEDS_RESET;
    vio_warn(f, 31, why);
    vio_signal(f, f->config_vector);
}

void vio_fn_reset(struct vio_fn *f)
{
    f->dfsel = f->gfsel = 0;
    f->gfeatures = 0;
    f->config_vector = VIO_NO_VECTOR;
    f->status = 0;
    f->qsel = 0;
    for (unsigned int i = 0; i < VIO_QUEUES; i++)
        f->q[i] = (struct vio_queue){ .size = VIO_QSIZE_MAX,
                                      .vector = VIO_NO_VECTOR };
    f->broken = false;
    f->warned &= ~(1u << 31);           /* a new reason is said again */
    f->epoch++;
}

bool vio_queue_live(const struct vio_fn *f, unsigned int qi)
{
    return qi < f->nqueues && f->q[qi].enable && !f->broken &&
           (f->status & ST_DRIVER_OK);
}

static void common_image(const struct vio_fn *f, uint8_t *p)
{
    const struct vio_queue *q = f->qsel < f->nqueues ? &f->q[f->qsel] : NULL;

    memset(p, 0, BAR_COMMON_LEN);
    le(p + 0x00, f->dfsel, 4);
    le(p + 0x04, f->dfsel < 2 ? f->features >> (32 * f->dfsel) : 0, 4);
    le(p + 0x08, f->gfsel, 4);
    le(p + 0x0c, f->gfsel < 2 ? f->gfeatures >> (32 * f->gfsel) : 0, 4);
    le(p + 0x10, f->config_vector, 2);
    le(p + 0x12, f->nqueues, 2);
    p[0x14] = f->status;
    p[0x15] = 0;                        /* config_generation */
    le(p + 0x16, f->qsel, 2);
    if (!q)
        return;                         /* queue_size 0: no such queue */
    le(p + 0x18, q->size, 2);
    le(p + 0x1a, q->vector, 2);
    le(p + 0x1c, q->enable, 2);
    le(p + 0x1e, f->qsel, 2);           /* queue_notify_off */
    le(p + 0x20, q->desc, 8);
    le(p + 0x28, q->avail, 8);
    le(p + 0x30, q->used, 8);
}

uint64_t vio_bar_read(struct vio_fn *f, uint32_t off, unsigned int size)
{
    uint8_t img[BAR_COMMON_LEN];
    const uint8_t *src = NULL;
    uint32_t at = 0, len = 0;
    uint64_t v = 0;

    if (size != 1 && size != 2 && size != 4 && size != 8)
        return 0;
    if (off < BAR_COMMON_LEN) {
        common_image(f, img);
        src = img;
        at = off;
        len = BAR_COMMON_LEN;
    } else if (off >= BAR_MSIX && off < BAR_MSIX + 16 * f->nvectors) {
        const struct vio_msix *m = &f->msix[(off - BAR_MSIX) / 16];
        unsigned int w = (off - BAR_MSIX) % 16;
        uint32_t words[4] = { m->addr_lo, m->addr_hi, m->data, m->ctrl };

        if ((w & 3) || size > 8 || w + size > 16)
            return 0;
        v = words[w / 4];
        if (size == 8)
            v |= (uint64_t)words[w / 4 + 1] << 32;
        return size >= 4 ? v : v & ((1u << (8 * size)) - 1);
    } else if (off >= BAR_PBA && off < BAR_PBA + 8) {
        v = f->pending >> (8 * (off - BAR_PBA));
    } else if (off >= BAR_DEVCFG && off < BAR_DEVCFG + BAR_DEVCFG_LEN) {
        for (unsigned int i = 0; i < size; i++)
            v |= (uint64_t)(f->kind == VIO_NET ?
                            vio_net_cfg(f, off - BAR_DEVCFG + i) :
                            vio_blk_cfg(f, off - BAR_DEVCFG + i)) << (8 * i);
        return v;
    }
    if (src) {
        for (unsigned int i = 0; i < size && at + i < len; i++)
            v |= (uint64_t)src[at + i] << (8 * i);
        return v;
    }
    return size == 8 ? v : v & ((1ull << (8 * size)) - 1);
}

/* Driver features are accepted only while it negotiates. */
static void set_status(struct vio_fn *f, uint8_t val)
{
    if (!val) {
        vio_fn_reset(f);
        return;
    }
    if ((val & ST_FEATURES_OK) && !(f->status & ST_FEATURES_OK) &&
        ((f->gfeatures & ~f->features) || !(f->gfeatures & F_VERSION_1)))
        val &= (uint8_t)~ST_FEATURES_OK;    /* refused: reads back clear */
    f->status = (uint8_t)(val | (f->status & ST_NEEDS_RESET));
}

static void set_addr(uint64_t *a, uint32_t off, unsigned int size,
                     uint64_t val)
{
    if (size == 8 && !(off & 7))
        *a = val;
    else if (size == 4 && !(off & 4))
        *a = (*a & ~0xffffffffull) | (uint32_t)val;
    else if (size == 4)
        *a = (*a & 0xffffffffull) | (uint64_t)(uint32_t)val << 32;
}

static void queue_write(struct vio_fn *f, uint32_t off, unsigned int size,
                        uint64_t val)
{
    struct vio_queue *q;

    if (f->qsel >= f->nqueues)
        return;
    q = &f->q[f->qsel];
    if (off == 0x1a && size == 2) {
        q->vector = val < f->nvectors ? (uint16_t)val : VIO_NO_VECTOR;
        return;
    }
    if (q->enable)
        return;                         /* set once enabled, till reset */
    if (off == 0x18 && size == 2) {
        if (val && val <= VIO_QSIZE_MAX && !(val & (val - 1)))
            q->size = (uint16_t)val;
        else
            vio_fail(f, "queue size is not a power of 2 up to 256");
    } else if (off == 0x1c && size == 2 && val == 1) {
        q->enable = 1;
    } else if (off >= 0x20 && off < 0x28) {
        set_addr(&q->desc, off, size, val);
    } else if (off >= 0x28 && off < 0x30) {
        set_addr(&q->avail, off, size, val);
    } else if (off >= 0x30 && off < 0x38) {
        set_addr(&q->used, off, size, val);
    }
}

static void common_write(struct vio_fn *f, uint32_t off, unsigned int size,
                         uint64_t val)
{
    switch (off) {
    case 0x00:
        if (size == 4)
            f->dfsel = (uint32_t)val;
        return;
    case 0x08:
        if (size == 4)
            f->gfsel = (uint32_t)val;
        return;
    case 0x0c:
        if (size == 4 && f->gfsel < 2 && !(f->status & ST_FEATURES_OK)) {
            unsigned int s = 32 * f->gfsel;

            f->gfeatures = (f->gfeatures & ~(0xffffffffull << s)) |
                           (uint64_t)(uint32_t)val << s;
        }
        return;
    case 0x10:
        if (size == 2)
            f->config_vector = val < f->nvectors ? (uint16_t)val
                                                 : VIO_NO_VECTOR;
        return;
    case 0x14:
        if (size == 1)
            set_status(f, (uint8_t)val);
        return;
    case 0x16:
        if (size == 2)
            f->qsel = (uint16_t)val;
        return;
    default:
        queue_write(f, off, size, val);
    }
}

static void msix_write(struct vio_fn *f, uint32_t off, unsigned int size,
                       uint64_t val)
{
    struct vio_msix *m = &f->msix[(off - BAR_MSIX) / 16];
    unsigned int w = (off - BAR_MSIX) % 16;
    uint32_t *words[4] = { &m->addr_lo, &m->addr_hi, &m->data, &m->ctrl };

    if ((w & 3) || (size != 4 && size != 8) || w + size > 16)
        return;
    *words[w / 4] = (uint32_t)val;
    if (size == 8)
        *words[w / 4 + 1] = (uint32_t)(val >> 32);
    m->ctrl &= 1;                       /* only the mask bit is defined */
    vio_msix_unmasked(f);
}

static void notify(struct vio_fn *f, unsigned int qi)
{
    const struct vio_host *h = &f->bus->host;

    if (qi >= f->nqueues || f->broken)
        return;
    if (!(f->status & ST_FEATURES_OK)) {
        vio_fail(f, "a queue was notified before FEATURES_OK");
        return;
    }
    if (!f->q[qi].enable) {
        vio_fail(f, "a queue was notified before it was enabled");
        return;
    }
    if (!(f->status & ST_DRIVER_OK))
        return;                         /* taken once the driver is ready */
    if (f->kind == VIO_NET)
        vio_net_notify(f, qi);
    else
        vio_blk_notify(f, qi);
    if (h->notified)
        h->notified(h->opaque, f->slot, qi);
}

void vio_bar_write(struct vio_fn *f, uint32_t off, unsigned int size,
                   uint64_t val)
{
    if (size != 1 && size != 2 && size != 4 && size != 8)
        return;
    if (off < BAR_COMMON_LEN)
        common_write(f, off, size, val);
    else if (off >= BAR_MSIX && off < BAR_MSIX + 16 * f->nvectors)
        msix_write(f, off, size, val);
    else if (off >= BAR_NOTIFY && off < BAR_NOTIFY + NOTIFY_MULT * 0x400 &&
             !(off % NOTIFY_MULT))
        notify(f, (off - BAR_NOTIFY) / NOTIFY_MULT);
}

void vio_go_live(struct vio_bus *bus)
{
    for (unsigned int i = 1; i < VIO_SLOTS; i++) {
        struct vio_fn *f = bus->fn[i];

        if (!f)
            continue;
        if (f->kind == VIO_BLK)
            vio_blk_resubmit(f);
        /* The primary's interrupts were its host's: none may have been
         * taken, so each is raised again (a driver looks, finds nothing
         * new or what it missed). */
        if (f->broken)
            vio_signal(f, f->config_vector);
        for (unsigned int k = 0; k < f->nqueues; k++) {
            if (vio_queue_live(f, k))
                vio_signal(f, f->q[k].vector);
        }
    }
}
