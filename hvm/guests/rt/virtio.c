// SPDX-License-Identifier: GPL-2.0-only
/*
 * virtio.c - virtio 1.0 over PCI for xenft guests (virtio.h): the
 * initialisation sequence of virtio 1.0, 3.1.1, in its order.
 */
#include "ftvm_devices.h"
#include "virtio.h"

#define ST_ACK          1u
#define ST_DRIVER       2u
#define ST_DRIVER_OK    4u
#define ST_FEATURES_OK  8u

#define CFG_COMMON      1
#define CFG_NOTIFY      2
#define CFG_DEVICE      4

/* Common configuration offsets (virtio 1.0, 4.1.4.3). */
#define C_DFSEL         0x00
#define C_GFSEL         0x08
#define C_GF            0x0c
#define C_MSIX_CONFIG   0x10
#define C_STATUS        0x14
#define C_QSEL          0x16
#define C_QSIZE         0x18
#define C_QMSIX         0x1a
#define C_QENABLE       0x1c
#define C_QNOTIFY_OFF   0x1e
#define C_QDESC         0x20
#define C_QAVAIL        0x28
#define C_QUSED         0x30

uint32_t pci_read32(unsigned int slot, unsigned int off)
{
    outl(0xcf8, 0x80000000u | slot << 11 | (off & 0xfc));
    return inl(0xcfc);
}

void pci_write32(unsigned int slot, unsigned int off, uint32_t v)
{
    outl(0xcf8, 0x80000000u | slot << 11 | (off & 0xfc));
    outl(0xcfc, v);
}

static void w8(volatile uint8_t *b, unsigned int off, uint8_t v)
{
    *(volatile uint8_t *)(b + off) = v;
}

static void w16(volatile uint8_t *b, unsigned int off, uint16_t v)
{
    *(volatile uint16_t *)(b + off) = v;
}

static void w32(volatile uint8_t *b, unsigned int off, uint32_t v)
{
    *(volatile uint32_t *)(b + off) = v;
}

static uint8_t r8(volatile uint8_t *b, unsigned int off)
{
    return *(volatile uint8_t *)(b + off);
}

static uint16_t r16(volatile uint8_t *b, unsigned int off)
{
    return *(volatile uint16_t *)(b + off);
}

static int fail(const char *who, const char *what)
{
    puts_uart(who);
    puts_uart(": ");
    puts_uart(what);
    puts_uart("\n");
    return -1;
}

static void lapic_enable(void)
{
    volatile uint32_t *svr = (volatile uint32_t *)(LAPIC_BASE + LAPIC_SVR);

    *svr = LAPIC_SVR_ON | 0xff;
}

/* Walk the capability list: virtio structures and MSI-X. */
static int caps(struct vdev *d, uint32_t bar)
{
    unsigned int at = pci_read32(d->slot, 0x34) & 0xfc;

    for (int n = 0; at && n < 48; n++) {
        uint32_t h = pci_read32(d->slot, at);
        uint8_t id = (uint8_t)h, type = (uint8_t)(h >> 24);
        uint32_t off = pci_read32(d->slot, at + 8);

        if (id == 0x09 && (pci_read32(d->slot, at + 4) & 0xff) == 0) {
            if (type == CFG_COMMON)
                d->common = (volatile uint8_t *)(bar + off);
            else if (type == CFG_NOTIFY) {
                d->notify = (volatile uint8_t *)(bar + off);
                d->notify_mult = pci_read32(d->slot, at + 16);
            } else if (type == CFG_DEVICE)
                d->devcfg = (volatile uint8_t *)(bar + off);
        } else if (id == 0x11) {
            uint32_t t = pci_read32(d->slot, at + 4);
            unsigned int nvec = ((h >> 16) & 0x7ff) + 1;

            if (t & 7)
                return -1;              /* the table is in BAR 0 here */
            d->msix = (volatile uint32_t *)(bar + (t & ~7u));
            for (unsigned int v = 0; v < nvec && v < 16; v++) {
                d->msix[4 * v] = MSI_ADDR;
                d->msix[4 * v + 1] = 0;
                d->msix[4 * v + 2] = (uint32_t)d->vector_base + v;
                d->msix[4 * v + 3] = 0;         /* unmasked */
            }
            pci_write32(d->slot, at, h | 0x80000000u);  /* enable */
        }
        at = (h >> 8) & 0xfc;
    }
    return d->common && d->notify && d->devcfg && d->msix ? 0 : -1;
}

int vdev_start(struct vdev *d, uint16_t device_id, uint32_t features,
               uint8_t vector_base, const char *who)
{
    uint32_t bar;

    *d = (struct vdev){ .vector_base = vector_base };
    for (d->slot = 0; d->slot < 32; d->slot++) {
        if (pci_read32(d->slot, 0) == (0x1af4u | (uint32_t)device_id << 16))
            break;
    }
    if (d->slot == 32)
        return fail(who, "no such virtio device on PCI bus 0");
    bar = pci_read32(d->slot, 0x10) & ~0xfu;
    if (!bar)
        return fail(who, "its BAR 0 is not assigned");
    pci_write32(d->slot, 0x04, pci_read32(d->slot, 0x04) | 0x6);
    lapic_enable();
    if (caps(d, bar))
        return fail(who, "its capabilities are not virtio 1.0's with "
                    "MSI-X in BAR 0");
    w8(d->common, C_STATUS, 0);                     /* reset */
    while (r8(d->common, C_STATUS))
        ;
    w8(d->common, C_STATUS, ST_ACK);
    w8(d->common, C_STATUS, ST_ACK | ST_DRIVER);
    w32(d->common, C_DFSEL, 1);
    if (!(*(volatile uint32_t *)(d->common + 4) & 1))
        return fail(who, "the device does not offer VERSION_1");
    w32(d->common, C_DFSEL, 0);
    if ((*(volatile uint32_t *)(d->common + 4) & features) != features)
        return fail(who, "the device does not offer the features needed");
    w32(d->common, C_GFSEL, 0);
    w32(d->common, C_GF, features);
    w32(d->common, C_GFSEL, 1);
    w32(d->common, C_GF, 1);                        /* VERSION_1 */
    w8(d->common, C_STATUS, ST_ACK | ST_DRIVER | ST_FEATURES_OK);
    if (!(r8(d->common, C_STATUS) & ST_FEATURES_OK))
        return fail(who, "the device refused our features");
    w16(d->common, C_MSIX_CONFIG, 0);
    return 0;
}

int vq_start(struct vdev *d, struct vq *q, uint16_t index,
             struct vq_ring *r)
{
    uint32_t off;

    w16(d->common, C_QSEL, index);
    if (r16(d->common, C_QSIZE) < VQ_SIZE)
        return -1;
    memset(r, 0, sizeof(*r));
    *q = (struct vq){ .r = r, .index = index };
    w16(d->common, C_QSIZE, VQ_SIZE);
    w16(d->common, C_QMSIX, (uint16_t)(1 + index));
    w32(d->common, C_QDESC, (uint32_t)r->desc);
    w32(d->common, C_QDESC + 4, 0);
    w32(d->common, C_QAVAIL, (uint32_t)&r->avail);
    w32(d->common, C_QAVAIL + 4, 0);
    w32(d->common, C_QUSED, (uint32_t)&r->used);
    w32(d->common, C_QUSED + 4, 0);
    off = r16(d->common, C_QNOTIFY_OFF);
    q->notify = (volatile uint16_t *)(d->notify + off * d->notify_mult);
    w16(d->common, C_QENABLE, 1);
    return 0;
}

void vdev_ready(struct vdev *d)
{
    w8(d->common, C_STATUS, r8(d->common, C_STATUS) | ST_DRIVER_OK);
}

void vq_post(struct vq *q, unsigned int chain, const struct vseg *s,
             unsigned int n)
{
    unsigned int first = chain * VQ_MAXSEG;

    for (unsigned int i = 0; i < n; i++) {
        struct vq_desc *d = &q->r->desc[first + i];

        d->addr = (uint32_t)s[i].addr;
        d->len = s[i].len;
        d->flags = (uint16_t)(s[i].flags | (i + 1 < n ? 1u : 0u));
        d->next = (uint16_t)(first + i + 1);
    }
    q->r->avail.ring[q->avail_idx % VQ_SIZE] = (uint16_t)first;
    __asm__ volatile("" : : : "memory");            /* ring, then index */
    q->avail_idx++;
    *(volatile uint16_t *)&q->r->avail.idx = q->avail_idx;
}

void vq_kick(struct vq *q)
{
    __asm__ volatile("" : : : "memory");
    *q->notify = q->index;
}

bool vq_used(struct vq *q, unsigned int *chain, uint32_t *len)
{
    uint16_t idx = *(volatile uint16_t *)&q->r->used.idx;

    if (idx == q->last_used)
        return false;
    __asm__ volatile("" : : : "memory");            /* index, then ring */
    *chain = q->r->used.ring[q->last_used % VQ_SIZE].id / VQ_MAXSEG;
    *len = q->r->used.ring[q->last_used % VQ_SIZE].len;
    q->last_used++;
    return true;
}
