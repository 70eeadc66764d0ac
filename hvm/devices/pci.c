// SPDX-License-Identifier: GPL-2.0-only
/*
 * pci.c - bus 0 of a PC: a host bridge, the functions' configuration
 * spaces behind mechanism 1 (0xCF8/0xCFC), their BARs, and MSI-X.
 *
 * A configuration space is 256 bytes with a mask of the bits a guest
 * may write, as real functions have; BAR sizing is the mask at work.
 * Everything a guest can change here is deterministic (it changes only
 * at the guest's own accesses), so all of it is state.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vio_impl.h"

#define PCI_COMMAND     0x04
#define CMD_MEM         0x0002u
#define PCI_BAR0        0x10
#define CAP_COMMON      0x40
#define CAP_NOTIFY      0x50
#define CAP_ISR         0x64
#define CAP_DEVICE      0x74
#define CAP_PCICFG      0x84
#define PCICFG_DATA     (CAP_PCICFG + 16)
#define CAP_MSIX        0x98
#define MSIX_CTRL       (CAP_MSIX + 2)
#define MSIX_ENABLE     0x8000u
#define MSIX_FMASK      0x4000u

static void put8(uint8_t *p, unsigned int off, uint8_t v)
{
    p[off] = v;
}

static void put16(uint8_t *p, unsigned int off, uint16_t v)
{
    p[off] = (uint8_t)v;
    p[off + 1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, unsigned int off, uint32_t v)
{
    put16(p, off, (uint16_t)v);
    put16(p, off + 2, (uint16_t)(v >> 16));
}

static uint32_t get32(const uint8_t *p, unsigned int off)
{
    return (uint32_t)p[off] | (uint32_t)p[off + 1] << 8 |
           (uint32_t)p[off + 2] << 16 | (uint32_t)p[off + 3] << 24;
}

static uint16_t get16(const uint8_t *p, unsigned int off)
{
    return (uint16_t)(p[off] | p[off + 1] << 8);
}

/* A virtio capability (virtio 1.0, 4.1.4): where a structure is. */
static void vcap(struct vio_fn *f, unsigned int at, unsigned int next,
                 unsigned int len, uint8_t type, uint32_t off, uint32_t size)
{
    put8(f->cfg, at, 0x09);             /* vendor-specific */
    put8(f->cfg, at + 1, (uint8_t)next);
    put8(f->cfg, at + 2, (uint8_t)len);
    put8(f->cfg, at + 3, type);
    put8(f->cfg, at + 4, 0);            /* BAR 0 */
    put32(f->cfg, at + 8, off);
    put32(f->cfg, at + 12, size);
}

void vio_cfg_init(struct vio_fn *f, uint16_t device_id, uint32_t class,
                  uint32_t bar)
{
    uint32_t bar_mask = ~(VIO_BAR_SIZE - 1);

    memset(f->cfg, 0, sizeof(f->cfg));
    memset(f->wmask, 0, sizeof(f->wmask));
    put16(f->cfg, 0x00, 0x1af4);
    put16(f->cfg, 0x02, device_id);
    put16(f->cfg, PCI_COMMAND, CMD_MEM);
    put16(f->wmask, PCI_COMMAND, 0x0406);  /* memory, bus master, INTx off */
    put16(f->cfg, 0x06, 0x0010);        /* a capability list */
    put8(f->cfg, 0x08, 1);              /* revision 1: virtio 1.0 only */
    put8(f->cfg, 0x09, (uint8_t)class);
    put16(f->cfg, 0x0a, (uint16_t)(class >> 8));
    put32(f->cfg, PCI_BAR0, bar & bar_mask);   /* 32-bit memory */
    put32(f->wmask, PCI_BAR0, bar_mask);
    put16(f->cfg, 0x2c, 0x1af4);
    put16(f->cfg, 0x2e, (uint16_t)(device_id - 0x1040));
    put8(f->cfg, 0x34, CAP_COMMON);
    put8(f->wmask, 0x3c, 0xff);         /* interrupt line; pin 0: none */

    vcap(f, CAP_COMMON, CAP_NOTIFY, 16, 1, BAR_COMMON, BAR_COMMON_LEN);
    vcap(f, CAP_NOTIFY, CAP_ISR, 20, 2, BAR_NOTIFY, 0x1000);
    put32(f->cfg, CAP_NOTIFY + 16, NOTIFY_MULT);
    vcap(f, CAP_ISR, CAP_DEVICE, 16, 3, BAR_ISR, 1);
    vcap(f, CAP_DEVICE, CAP_PCICFG, 16, 4, BAR_DEVCFG, BAR_DEVCFG_LEN);
    vcap(f, CAP_PCICFG, CAP_MSIX, 20, 5, 0, 0);
    put8(f->wmask, CAP_PCICFG + 4, 0xff);
    put32(f->wmask, CAP_PCICFG + 8, 0xffffffffu);
    put32(f->wmask, CAP_PCICFG + 12, 0xffffffffu);

    put8(f->cfg, CAP_MSIX, 0x11);
    put8(f->cfg, CAP_MSIX + 1, 0);
    put16(f->cfg, MSIX_CTRL, (uint16_t)(f->nvectors - 1));
    put16(f->wmask, MSIX_CTRL, MSIX_ENABLE | MSIX_FMASK);
    put32(f->cfg, CAP_MSIX + 4, BAR_MSIX);     /* BIR 0 */
    put32(f->cfg, CAP_MSIX + 8, BAR_PBA);
}

bool vio_msix_enabled(const struct vio_fn *f)
{
    return get16(f->cfg, MSIX_CTRL) & MSIX_ENABLE;
}

/* Messages held while masked leave once nothing masks them. */
void vio_msix_unmasked(struct vio_fn *f)
{
    const struct vio_host *h = &f->bus->host;

    if (!vio_msix_enabled(f) || (get16(f->cfg, MSIX_CTRL) & MSIX_FMASK))
        return;
    for (unsigned int v = 0; v < f->nvectors; v++) {
        const struct vio_msix *m = &f->msix[v];

        if (!(f->pending & (1ull << v)) || (m->ctrl & 1))
            continue;
        f->pending &= ~(1ull << v);
        h->msi(h->opaque, (uint64_t)m->addr_hi << 32 | m->addr_lo, m->data);
    }
}

void vio_signal(struct vio_fn *f, uint16_t vector)
{
    const struct vio_host *h = &f->bus->host;
    const struct vio_msix *m;

    if (vector >= f->nvectors || !vio_msix_enabled(f))
        return;                         /* no INTx: nothing to raise */
    m = &f->msix[vector];
    if ((get16(f->cfg, MSIX_CTRL) & MSIX_FMASK) || (m->ctrl & 1)) {
        f->pending |= 1ull << vector;
        return;
    }
    h->msi(h->opaque, (uint64_t)m->addr_hi << 32 | m->addr_lo, m->data);
}

static struct vio_fn *new_fn(struct vio_bus *bus, unsigned int slot,
                             enum vio_kind kind)
{
    struct vio_fn *f;

    if (slot >= VIO_SLOTS || bus->fn[slot])
        return NULL;
    f = calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    f->kind = kind;
    f->bus = bus;
    f->slot = slot;
    bus->fn[slot] = f;
    return f;
}

struct vio_bus *vio_bus_new(const struct vio_host *host)
{
    struct vio_bus *bus = calloc(1, sizeof(*bus));
    struct vio_fn *hb;

    if (!bus)
        return NULL;
    bus->host = *host;
    /* Allocated now, so that no guest access finds memory short. */
    bus->s = malloc(sizeof(*bus->s));
    hb = bus->s ? new_fn(bus, 0, VIO_NONE) : NULL;
    if (!hb) {
        free(bus->s);
        free(bus);
        return NULL;
    }
    /* An i440FX's identity: what firmware and kernels expect at 0:0.0. */
    put16(hb->cfg, 0x00, 0x8086);
    put16(hb->cfg, 0x02, 0x1237);
    put8(hb->cfg, 0x08, 0x02);
    put16(hb->cfg, 0x0a, 0x0600);       /* host bridge */
    return bus;
}

void vio_bus_free(struct vio_bus *bus)
{
    if (!bus)
        return;
    for (unsigned int i = 0; i < VIO_SLOTS; i++)
        free(bus->fn[i]);
    free(bus->s);
    free(bus);
}

static int add(struct vio_bus *bus, unsigned int slot, uint32_t bar,
               enum vio_kind kind, struct vio_fn **out)
{
    struct vio_fn *f;

    if (!slot || (bar & (VIO_BAR_SIZE - 1)) || !bar)
        return -EINVAL;
    f = new_fn(bus, slot, kind);
    if (!f)
        return -EINVAL;
    f->nqueues = kind == VIO_NET ? 2 : 1;
    f->nvectors = f->nqueues + 1;
    f->features = F_VERSION_1;
    vio_cfg_init(f, kind == VIO_NET ? 0x1041 : 0x1042,
                 kind == VIO_NET ? 0x020000 : 0x010000, bar);
    for (unsigned int v = 0; v < f->nvectors; v++)
        f->msix[v].ctrl = 1;            /* masked, as after a PCI reset */
    vio_fn_reset(f);
    f->epoch = 0;
    *out = f;
    return 0;
}

int vio_add_net(struct vio_bus *bus, unsigned int slot, uint32_t bar,
                const uint8_t mac[6])
{
    struct vio_fn *f;
    int rc = add(bus, slot, bar, VIO_NET, &f);

    if (rc)
        return rc;
    f->features |= 1ull << 5;           /* VIRTIO_NET_F_MAC */
    memcpy(f->mac, mac, 6);
    return 0;
}

int vio_add_blk(struct vio_bus *bus, unsigned int slot, uint32_t bar,
                uint64_t sectors, const char *serial)
{
    struct vio_fn *f;
    int rc = add(bus, slot, bar, VIO_BLK, &f);

    if (rc)
        return rc;
    f->features |= 1ull << 9;           /* VIRTIO_BLK_F_FLUSH */
    f->sectors = sectors;
    /* GET_ID's 20 bytes: NUL-padded, no NUL when all 20 are used. */
    memcpy(f->serial, serial, strnlen(serial, sizeof(f->serial)));
    return 0;
}

int vio_blk_set_capacity(struct vio_bus *bus, unsigned int slot,
                         uint64_t sectors)
{
    struct vio_fn *f = slot < VIO_SLOTS ? bus->fn[slot] : NULL;

    if (!f || f->kind != VIO_BLK)
        return -EINVAL;
    f->sectors = sectors;
    return 0;
}

bool vio_pio_claims(uint16_t port)
{
    return port == 0xcf8 || (port >= 0xcfc && port <= 0xcff);
}

/* The function in 'slot', or NULL. */
static struct vio_fn *slot_fn(const struct vio_bus *bus, unsigned int slot)
{
    return slot < VIO_SLOTS ? bus->fn[slot] : NULL;
}

/* The function the address latch selects, or NULL. */
static struct vio_fn *selected(struct vio_bus *bus)
{
    uint32_t a = bus->cf8;

    if (!(a & 0x80000000u) || (a >> 16 & 0xff) || (a >> 8 & 7))
        return NULL;
    return slot_fn(bus, (a >> 11) & 31);
}

static bool bar_live(const struct vio_fn *f, uint32_t *base)
{
    if (f->kind == VIO_NONE || !(get16(f->cfg, PCI_COMMAND) & CMD_MEM))
        return false;
    *base = get32(f->cfg, PCI_BAR0) & ~0xfu;
    return *base != 0;
}

/* The PCI configuration access capability: a window into BAR 0. */
static bool window(const struct vio_fn *f, uint32_t *off, unsigned int *len)
{
    *off = get32(f->cfg, CAP_PCICFG + 8);
    *len = get32(f->cfg, CAP_PCICFG + 12);
    return f->kind != VIO_NONE && f->cfg[CAP_PCICFG + 4] == 0 &&
           (*len == 1 || *len == 2 || *len == 4) &&
           *off <= VIO_BAR_SIZE - *len && !(*off & (*len - 1));
}

static uint32_t cfg_read(struct vio_fn *f, unsigned int reg,
                         unsigned int size)
{
    uint32_t v = 0, off;
    unsigned int len;

    if (reg == PCICFG_DATA && f->kind != VIO_NONE && window(f, &off, &len))
        return (uint32_t)vio_bar_read(f, off, len);
    for (unsigned int i = 0; i < size && reg + i < 256; i++)
        v |= (uint32_t)f->cfg[reg + i] << (8 * i);
    return v;
}

static void cfg_write(struct vio_fn *f, unsigned int reg, unsigned int size,
                      uint32_t val)
{
    uint16_t msix_was = get16(f->cfg, MSIX_CTRL);
    uint32_t off;
    unsigned int len;

    if (reg == PCICFG_DATA && f->kind != VIO_NONE) {
        if (window(f, &off, &len))
            vio_bar_write(f, off, len, val);
        return;
    }
    for (unsigned int i = 0; i < size && reg + i < 256; i++) {
        uint8_t m = f->wmask[reg + i], b = (uint8_t)(val >> (8 * i));

        f->cfg[reg + i] = (uint8_t)((f->cfg[reg + i] & ~m) | (b & m));
    }
    if (f->kind != VIO_NONE && get16(f->cfg, MSIX_CTRL) != msix_was)
        vio_msix_unmasked(f);
}

static uint32_t ones(unsigned int size)
{
    return size >= 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
}

/* A configuration access the function can take: a byte, word or dword. */
static bool cfg_fits(unsigned int reg, unsigned int size)
{
    return reg <= 255 && (size == 1 || size == 2 || size == 4);
}

uint32_t vio_pio_read(struct vio_bus *bus, uint16_t port, unsigned int size)
{
    struct vio_fn *f;

    if (port == 0xcf8)
        return size == 4 ? bus->cf8 : ones(size);
    f = selected(bus);
    if (!f)
        return ones(size);              /* no device: the bus floats */
    return cfg_read(f, (bus->cf8 & 0xfc) + (port - 0xcfc), size) &
           ones(size);
}

uint32_t vio_cfg_read(struct vio_bus *bus, unsigned int slot,
                      unsigned int reg, unsigned int size)
{
    struct vio_fn *f = slot_fn(bus, slot);

    if (!f || !cfg_fits(reg, size))
        return ones(size);
    return cfg_read(f, reg, size) & ones(size);
}

void vio_cfg_write(struct vio_bus *bus, unsigned int slot, unsigned int reg,
                   unsigned int size, uint32_t val)
{
    struct vio_fn *f = slot_fn(bus, slot);

    if (f && cfg_fits(reg, size))
        cfg_write(f, reg, size, val);
}

bool vio_bar_at(const struct vio_bus *bus, unsigned int slot,
                uint32_t *base)
{
    const struct vio_fn *f = slot_fn(bus, slot);

    return f && bar_live(f, base);
}

void vio_pio_write(struct vio_bus *bus, uint16_t port, unsigned int size,
                   uint32_t val)
{
    struct vio_fn *f;

    if (port == 0xcf8) {
        if (size == 4)
            bus->cf8 = val & 0x80fffffcu;
        return;
    }
    f = selected(bus);
    if (f)
        cfg_write(f, (bus->cf8 & 0xfc) + (port - 0xcfc), size, val);
}

static struct vio_fn *claim(struct vio_bus *bus, uint64_t gpa,
                            uint32_t *off)
{
    for (unsigned int i = 1; i < VIO_SLOTS; i++) {
        struct vio_fn *f = bus->fn[i];
        uint32_t base;

        if (f && bar_live(f, &base) && gpa >= base &&
            gpa - base < VIO_BAR_SIZE) {
            *off = (uint32_t)(gpa - base);
            return f;
        }
    }
    return NULL;
}

bool vio_mmio_read(struct vio_bus *bus, uint64_t gpa, unsigned int size,
                   uint64_t *val)
{
    uint32_t off;
    struct vio_fn *f = claim(bus, gpa, &off);

    if (!f)
        return false;
    *val = vio_bar_read(f, off, size);
    return true;
}

bool vio_mmio_write(struct vio_bus *bus, uint64_t gpa, unsigned int size,
                    uint64_t val)
{
    uint32_t off;
    struct vio_fn *f = claim(bus, gpa, &off);

    if (!f)
        return false;
    vio_bar_write(f, off, size, val);
    return true;
}
