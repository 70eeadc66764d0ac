// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_virtio.c - the device core (hvm/devices) against a host of RAM
 * alone: PCI configuration, the virtio initialisation sequence, both
 * devices' queues, a driver's mistakes, MSI-X masking, and the state
 * visitor naming the one field that differs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"
#include "fakeram.h"
#include "vio.h"

#define RAM     (1u << 20)
#define NET     1u
#define BLK     2u
#define NBAR    0xfeb00000u
#define BBAR    0xfeb04000u

static uint8_t ram[RAM];
static struct fakeram fram = { ram, RAM };
static unsigned int msis, txs, subs, warns;
static uint32_t msi_data;
static uint8_t tx_frame[4096];
static uint32_t tx_len;
static struct vio_blk_req sub;
static uint8_t sub_data[8192];
static char warned[256];

static void h_msi(void *o, uint64_t addr, uint32_t data)
{
    (void)o;
    CU_ASSERT_EQUAL(addr, 0xfee00000u);
    msis++;
    msi_data = data;
}

static void h_tx(void *o, const void *frame, uint32_t len)
{
    (void)o;
    txs++;
    tx_len = len;
    memcpy(tx_frame, frame, len < sizeof(tx_frame) ? len : sizeof(tx_frame));
}

static void h_submit(void *o, const struct vio_blk_req *r)
{
    (void)o;
    subs++;
    sub = *r;
    if (r->data && r->len <= sizeof(sub_data))
        memcpy(sub_data, r->data, r->len);
}

static void h_warn(void *o, const char *msg)
{
    (void)o;
    warns++;
    snprintf(warned, sizeof(warned), "%s", msg);
}

static struct vio_bus *bus;

static void setup(void)
{
    static const struct vio_host h = {
        .opaque = &fram, .ram_read = fakeram_read,
        .ram_write = fakeram_write, .ram_ok = fakeram_ok,
        .msi = h_msi, .net_tx = h_tx, .blk_submit = h_submit,
        .warn = h_warn,
    };
    static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };

    memset(ram, 0, sizeof(ram));
    msis = txs = subs = warns = 0;
    warned[0] = '\0';
    bus = vio_bus_new(&h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(bus);
    CU_ASSERT_EQUAL(vio_add_net(bus, NET, NBAR, mac), 0);
    CU_ASSERT_EQUAL(vio_add_blk(bus, BLK, BBAR, 64, "unit"), 0);
}

static void teardown(void)
{
    vio_bus_free(bus);
    bus = NULL;
}

static uint32_t cfg_r(unsigned int slot, unsigned int off, unsigned int n)
{
    vio_pio_write(bus, 0xcf8, 4, 0x80000000u | slot << 11 | (off & 0xfc));
    return vio_pio_read(bus, (uint16_t)(0xcfc + (off & 3)), n);
}

static void cfg_w(unsigned int slot, unsigned int off, unsigned int n,
                  uint32_t v)
{
    vio_pio_write(bus, 0xcf8, 4, 0x80000000u | slot << 11 | (off & 0xfc));
    vio_pio_write(bus, (uint16_t)(0xcfc + (off & 3)), n, v);
}

static uint64_t rd(uint32_t bar, uint32_t off, unsigned int n)
{
    uint64_t v = 0;

    CU_ASSERT_TRUE(vio_mmio_read(bus, bar + off, n, &v));
    return v;
}

static void wr(uint32_t bar, uint32_t off, unsigned int n, uint64_t v)
{
    CU_ASSERT_TRUE(vio_mmio_write(bus, bar + off, n, v));
}

/* Queue memory in RAM: desc at base, avail +0x1000, used +0x2000. */
struct q {
    uint32_t base;
    uint16_t avail;
};

static void put16(uint32_t a, uint16_t v)
{
    memcpy(ram + a, &v, 2);
}

static uint16_t get16(uint32_t a)
{
    uint16_t v;

    memcpy(&v, ram + a, 2);
    return v;
}

static void desc(struct q *q, uint16_t i, uint64_t addr, uint32_t len,
                 uint16_t flags, uint16_t next)
{
    uint8_t *d = ram + q->base + 16u * i;

    memcpy(d, &addr, 8);
    memcpy(d + 8, &len, 4);
    memcpy(d + 12, &flags, 2);
    memcpy(d + 14, &next, 2);
}

static void post(struct q *q, uint16_t head)
{
    put16(q->base + 0x1000 + 4 + 2u * (q->avail % 8), head);
    put16(q->base + 0x1000 + 2, ++q->avail);
}

static uint16_t used_idx(struct q *q)
{
    return get16(q->base + 0x2000 + 2);
}

static uint32_t used_len(struct q *q, uint16_t n)
{
    uint32_t v;

    memcpy(&v, ram + q->base + 0x2000 + 4 + 8u * (n % 8) + 4, 4);
    return v;
}

/* The driver's side of virtio 1.0, 3.1.1, up to FEATURES_OK. */
static void negotiate(uint32_t bar, uint32_t lo, uint32_t hi)
{
    wr(bar, 0x14, 1, 0);
    wr(bar, 0x14, 1, 1);
    wr(bar, 0x14, 1, 3);
    wr(bar, 0x08, 4, 0);
    wr(bar, 0x0c, 4, lo);
    wr(bar, 0x08, 4, 1);
    wr(bar, 0x0c, 4, hi);
    wr(bar, 0x14, 1, 3 | 8);
}

static void queue(uint32_t bar, uint16_t qi, struct q *q, uint16_t vec)
{
    wr(bar, 0x16, 2, qi);
    wr(bar, 0x18, 2, 8);
    wr(bar, 0x1a, 2, vec);
    wr(bar, 0x20, 8, q->base);
    wr(bar, 0x28, 8, q->base + 0x1000);
    wr(bar, 0x30, 8, q->base + 0x2000);
    wr(bar, 0x1c, 2, 1);
}

/* MSI-X on, vector v → data 0x40 + v, unmasked. */
static void msix(unsigned int slot, uint32_t bar, unsigned int nvec)
{
    for (unsigned int v = 0; v < nvec; v++) {
        wr(bar, 0x800 + 16 * v, 4, 0xfee00000u);
        wr(bar, 0x800 + 16 * v + 8, 4, 0x40 + v);
        wr(bar, 0x800 + 16 * v + 12, 4, 0);
    }
    cfg_w(slot, 0x9a, 2, 0x8000);
}

static void test_pci(void)
{
    CU_ASSERT_EQUAL(cfg_r(0, 0, 4), 0x12378086u);
    CU_ASSERT_EQUAL(cfg_r(NET, 0, 4), 0x10411af4u);
    CU_ASSERT_EQUAL(cfg_r(BLK, 0, 4), 0x10421af4u);
    CU_ASSERT_EQUAL(cfg_r(3, 0, 4), 0xffffffffu);
    CU_ASSERT_EQUAL(cfg_r(NET, 0x08, 1), 1);           /* revision */
    CU_ASSERT_EQUAL(cfg_r(NET, 0x10, 4), NBAR);
    /* Sizing: all ones read back as the size mask, then put back. */
    cfg_w(NET, 0x10, 4, 0xffffffffu);
    CU_ASSERT_EQUAL(cfg_r(NET, 0x10, 4), ~(VIO_BAR_SIZE - 1));
    cfg_w(NET, 0x10, 4, 0xf0000000u);
    CU_ASSERT_EQUAL(cfg_r(NET, 0x10, 4), 0xf0000000u);
    CU_ASSERT_TRUE(vio_mmio_read(bus, 0xf0000000u + 0x12, 2,
                                 &(uint64_t){ 0 }));
    CU_ASSERT_FALSE(vio_mmio_read(bus, NBAR, 4, &(uint64_t){ 0 }));
    /* Memory decoding off: the BAR answers nothing. */
    cfg_w(NET, 0x04, 2, 0);
    CU_ASSERT_FALSE(vio_mmio_read(bus, 0xf0000000u, 4, &(uint64_t){ 0 }));
    /* Vendor ID, capability pointer and pin are read-only. */
    cfg_w(BLK, 0x00, 2, 0x1234);
    CU_ASSERT_EQUAL(cfg_r(BLK, 0x00, 2), 0x1af4);
    CU_ASSERT_EQUAL(cfg_r(BLK, 0x34, 1), 0x40);
    CU_ASSERT_EQUAL(cfg_r(BLK, 0x3d, 1), 0);
    /* The PCI configuration access window reads BAR 0. */
    cfg_w(BLK, 0x84 + 4, 1, 0);
    cfg_w(BLK, 0x84 + 8, 4, 0x12);                     /* num_queues */
    cfg_w(BLK, 0x84 + 12, 4, 2);
    CU_ASSERT_EQUAL(cfg_r(BLK, 0x94, 2), 1);
}

/* Xen's way: each configuration access routed to its function. */
static void test_cfg_routed(void)
{
    uint32_t base;

    CU_ASSERT_EQUAL(vio_cfg_read(bus, NET, 0, 4), 0x10411af4u);
    CU_ASSERT_EQUAL(vio_cfg_read(bus, NET, 2, 2), 0x1041);
    CU_ASSERT_EQUAL(vio_cfg_read(bus, 3, 0, 2), 0xffff);   /* empty */
    CU_ASSERT_EQUAL(vio_cfg_read(bus, VIO_SLOTS, 0, 4), 0xffffffffu);
    CU_ASSERT_EQUAL(vio_cfg_read(bus, NET, 256, 1), 0xff);
    CU_ASSERT_EQUAL(vio_cfg_read(bus, NET, 0, 3), 0xffffff);
    /* Where the BAR decodes: nowhere while decoding is off or sized. */
    CU_ASSERT_TRUE(vio_bar_at(bus, NET, &base));
    CU_ASSERT_EQUAL(base, NBAR);
    vio_cfg_write(bus, NET, 0x04, 2, 0);
    CU_ASSERT_FALSE(vio_bar_at(bus, NET, &base));
    vio_cfg_write(bus, NET, 0x10, 4, 0xe0000000u);
    vio_cfg_write(bus, NET, 0x04, 2, 0x6);
    CU_ASSERT_TRUE(vio_bar_at(bus, NET, &base));
    CU_ASSERT_EQUAL(base, 0xe0000000u);
    CU_ASSERT_TRUE(vio_mmio_read(bus, 0xe0000014u, 1, &(uint64_t){ 0 }));
    vio_cfg_write(bus, NET, 0x10, 4, 0);
    CU_ASSERT_FALSE(vio_bar_at(bus, NET, &base));
    CU_ASSERT_FALSE(vio_bar_at(bus, 3, &base));
    CU_ASSERT_FALSE(vio_bar_at(bus, VIO_SLOTS, &base));
    /* The latch of mechanism 1 is not involved. */
    CU_ASSERT_EQUAL(vio_pio_read(bus, 0xcf8, 4), 0);
}

static void test_features(void)
{
    /* Without VERSION_1, FEATURES_OK is refused (reads back clear). */
    negotiate(NBAR, 1u << 5, 0);
    CU_ASSERT_EQUAL(rd(NBAR, 0x14, 1), 3);
    /* Asking for what is not offered: refused too. */
    negotiate(NBAR, 1u << 28, 1);
    CU_ASSERT_EQUAL(rd(NBAR, 0x14, 1), 3);
    negotiate(NBAR, 1u << 5, 1);
    CU_ASSERT_EQUAL(rd(NBAR, 0x14, 1), 11);
    wr(NBAR, 0x00, 4, 1);
    CU_ASSERT_EQUAL(rd(NBAR, 0x04, 4), 1);             /* VERSION_1 */
    CU_ASSERT_EQUAL(rd(NBAR, 0x2000, 1), 2);           /* MAC */
    CU_ASSERT_EQUAL(rd(NBAR, 0x2005, 1), 1);
    CU_ASSERT_EQUAL(rd(BBAR, 0x2000, 4), 64);          /* capacity */
    CU_ASSERT_EQUAL(rd(NBAR, 0x1000, 1), 0);           /* ISR */
}

static void test_notify_early(void)
{
    wr(NBAR, 0x14, 1, 3);
    wr(NBAR, 0x3004, 2, 1);
    CU_ASSERT_EQUAL(rd(NBAR, 0x14, 1) & 0x40, 0x40);
    CU_ASSERT_PTR_NOT_NULL(strstr(warned, "FEATURES_OK"));
    wr(NBAR, 0x14, 1, 0);                              /* reset */
    CU_ASSERT_EQUAL(rd(NBAR, 0x14, 1), 0);
}

static void start_net(struct q *rx, struct q *tx)
{
    negotiate(NBAR, 1u << 5, 1);
    wr(NBAR, 0x10, 2, 0);                              /* config vector */
    queue(NBAR, 0, rx, 1);
    queue(NBAR, 1, tx, 2);
    msix(NET, NBAR, 3);
    wr(NBAR, 0x14, 1, 15);
}

static void test_net(void)
{
    struct q rx = { 0x10000, 0 }, tx = { 0x20000, 0 };
    uint8_t frame[60];

    start_net(&rx, &tx);
    CU_ASSERT_FALSE(vio_net_can_rx(bus, NET));
    CU_ASSERT_EQUAL(vio_net_rx(bus, NET, frame, 60), -EAGAIN);
    CU_ASSERT_EQUAL(vio_net_rx(bus, BLK, frame, 60), -EINVAL);

    /* Transmit: header then frame, split over two descriptors. */
    for (int i = 0; i < 60; i++)
        ram[0x30000 + 12 + i] = (uint8_t)i;
    desc(&tx, 0, 0x30000, 40, 1, 1);
    desc(&tx, 1, 0x30000 + 40, 32, 0, 0);
    post(&tx, 0);
    wr(NBAR, 0x3004, 2, 1);
    CU_ASSERT_EQUAL(txs, 1);
    CU_ASSERT_EQUAL(tx_len, 60);
    CU_ASSERT_EQUAL(memcmp(tx_frame, ram + 0x30000 + 12, 60), 0);
    CU_ASSERT_EQUAL(used_idx(&tx), 1);
    CU_ASSERT_EQUAL(msis, 1);
    CU_ASSERT_EQUAL(msi_data, 0x42);

    /* Receive into a posted buffer: header, frame, length. */
    desc(&rx, 0, 0x40000, 2060, 2, 0);
    post(&rx, 0);
    CU_ASSERT_TRUE(vio_net_can_rx(bus, NET));
    memset(frame, 0xab, sizeof(frame));
    CU_ASSERT_EQUAL(vio_net_rx(bus, NET, frame, 60), 0);
    CU_ASSERT_EQUAL(used_idx(&rx), 1);
    CU_ASSERT_EQUAL(used_len(&rx, 0), 72);
    CU_ASSERT_EQUAL(ram[0x40000 + 10], 1);             /* num_buffers */
    CU_ASSERT_EQUAL(memcmp(ram + 0x40000 + 12, frame, 60), 0);
    CU_ASSERT_EQUAL(msi_data, 0x41);
    CU_ASSERT_FALSE(vio_net_can_rx(bus, NET));

    /* A receive buffer the device may not write: given back empty. */
    desc(&rx, 1, 0x40000, 2060, 0, 0);
    post(&rx, 1);
    CU_ASSERT_EQUAL(vio_net_rx(bus, NET, frame, 60), 0);
    CU_ASSERT_EQUAL(used_len(&rx, 1), 0);
    CU_ASSERT_EQUAL(rd(NBAR, 0x14, 1) & 0x40, 0);      /* not stopped */
    CU_ASSERT_EQUAL(warns, 1);
}

static void test_msix_mask(void)
{
    struct q rx = { 0x10000, 0 }, tx = { 0x20000, 0 };

    start_net(&rx, &tx);
    wr(NBAR, 0x800 + 16 * 2 + 12, 4, 1);               /* mask TX's */
    desc(&tx, 0, 0x30000, 80, 0, 0);
    post(&tx, 0);
    wr(NBAR, 0x3004, 2, 1);
    CU_ASSERT_EQUAL(txs, 1);
    CU_ASSERT_EQUAL(msis, 0);
    CU_ASSERT_EQUAL(rd(NBAR, 0xc00, 4), 4);            /* pending */
    wr(NBAR, 0x800 + 16 * 2 + 12, 4, 0);
    CU_ASSERT_EQUAL(msis, 1);
    CU_ASSERT_EQUAL(msi_data, 0x42);
    CU_ASSERT_EQUAL(rd(NBAR, 0xc00, 4), 0);
    /* No vector set for a queue: nothing is raised. */
    wr(NBAR, 0x16, 2, 1);
    wr(NBAR, 0x1a, 2, 0xffff);
    post(&tx, 0);
    wr(NBAR, 0x3004, 2, 1);
    CU_ASSERT_EQUAL(txs, 2);
    CU_ASSERT_EQUAL(msis, 1);
}

/* A driver's wrong chains stop the device with a reason, never hang. */
static void bad_chain(void (*make)(struct q *), const char *want)
{
    struct q rx = { 0x10000, 0 }, tx = { 0x20000, 0 };

    teardown();
    setup();
    start_net(&rx, &tx);
    make(&tx);
    wr(NBAR, 0x3004, 2, 1);
    CU_ASSERT_EQUAL(rd(NBAR, 0x14, 1) & 0x40, 0x40);
    CU_ASSERT_PTR_NOT_NULL(strstr(warned, want));
    if (!strstr(warned, want))
        fprintf(stderr, "\nwanted \"%s\", got \"%s\"\n", want, warned);
    CU_ASSERT_EQUAL(txs, 0);
    CU_ASSERT_EQUAL(msis, 1);                          /* config vector */
    CU_ASSERT_EQUAL(msi_data, 0x40);
    /* Stopped until reset: a good chain now goes nowhere. */
    desc(&tx, 0, 0x30000, 80, 0, 0);
    post(&tx, 0);
    wr(NBAR, 0x3004, 2, 1);
    CU_ASSERT_EQUAL(txs, 0);
}

static void loop(struct q *q)
{
    desc(q, 0, 0x30000, 40, 1, 1);
    desc(q, 1, 0x30000, 40, 1, 0);
    post(q, 0);
}

static void outside(struct q *q)
{
    desc(q, 0, RAM - 10, 40, 0, 0);
    post(q, 0);
}

static void wild_next(struct q *q)
{
    desc(q, 0, 0x30000, 40, 1, 9);
    post(q, 0);
}

static void indirect(struct q *q)
{
    desc(q, 0, 0x30000, 32, 4, 0);
    post(q, 0);
}

static void writable(struct q *q)
{
    desc(q, 0, 0x30000, 80, 2, 0);
    post(q, 0);
}

static void wild_avail(struct q *q)
{
    q->avail = 100;
    post(q, 0);
}

static void test_bad_chains(void)
{
    bad_chain(loop, "loops");
    bad_chain(outside, "outside RAM");
    bad_chain(wild_next, "beyond the queue");
    bad_chain(indirect, "indirect");
    bad_chain(writable, "device-writable");
    bad_chain(wild_avail, "avail index");
}

static void start_blk(struct q *q)
{
    negotiate(BBAR, 0, 1);
    queue(BBAR, 0, q, 1);
    msix(BLK, BBAR, 2);
    wr(BBAR, 0x14, 1, 15);
}

/* A request: header at 0x50000, data at 0x51000, status at 0x52000. */
static void request(struct q *q, uint32_t type, uint64_t sector,
                    uint32_t len, bool in)
{
    memcpy(ram + 0x50000, &type, 4);
    memcpy(ram + 0x50008, &sector, 8);
    ram[0x52000] = 0xff;
    desc(q, 0, 0x50000, 16, 1, 1);
    desc(q, 1, 0x51000, len, in ? 3 : 1, 2);
    desc(q, 2, 0x52000, 1, 2, 0);
    post(q, 0);
    wr(BBAR, 0x3000, 2, 0);
}

static void test_blk(void)
{
    struct q q = { 0x10000, 0 };
    uint8_t data[1024];
    struct vio_blk_req r;

    start_blk(&q);
    memset(ram + 0x51000, 0x5a, 1024);
    request(&q, VIO_BLK_T_OUT, 3, 1024, false);
    CU_ASSERT_EQUAL(subs, 1);
    CU_ASSERT_EQUAL(sub.type, VIO_BLK_T_OUT);
    CU_ASSERT_EQUAL(sub.status, VIO_BLK_S_OK);
    CU_ASSERT_EQUAL(sub.sector, 3);
    CU_ASSERT_EQUAL(sub.len, 1024);
    CU_ASSERT_EQUAL(memcmp(sub_data, ram + 0x51000, 1024), 0);
    CU_ASSERT_EQUAL(used_idx(&q), 0);                  /* in flight */
    r = sub;
    vio_blk_complete(bus, BLK, &r, VIO_BLK_S_OK, NULL);
    CU_ASSERT_EQUAL(used_idx(&q), 1);
    CU_ASSERT_EQUAL(ram[0x52000], 0);
    CU_ASSERT_EQUAL(used_len(&q, 0), 1);
    CU_ASSERT_EQUAL(msi_data, 0x41);
    /* A completion nobody waits for is dropped. */
    vio_blk_complete(bus, BLK, &r, VIO_BLK_S_OK, NULL);
    CU_ASSERT_EQUAL(used_idx(&q), 1);

    request(&q, VIO_BLK_T_IN, 5, 1024, true);
    CU_ASSERT_EQUAL(sub.type, VIO_BLK_T_IN);
    CU_ASSERT_EQUAL(sub.len, 1024);
    memset(data, 0x17, sizeof(data));
    r = sub;
    vio_blk_complete(bus, BLK, &r, VIO_BLK_S_OK, data);
    CU_ASSERT_EQUAL(memcmp(ram + 0x51000, data, 1024), 0);
    CU_ASSERT_EQUAL(used_len(&q, 1), 1025);

    /* Not whole sectors: the host is told to fail it. */
    request(&q, VIO_BLK_T_IN, 0, 1000, true);
    CU_ASSERT_EQUAL(sub.status, VIO_BLK_S_IOERR);
    CU_ASSERT_EQUAL(sub.len, 0);
    r = sub;
    vio_blk_complete(bus, BLK, &r, sub.status, NULL);
    CU_ASSERT_EQUAL(ram[0x52000], VIO_BLK_S_IOERR);

    request(&q, 77, 0, 512, true);
    CU_ASSERT_EQUAL(sub.status, VIO_BLK_S_UNSUPP);

    /* Reset with that request in flight: its completion is dropped. */
    r = sub;
    start_blk(&(struct q){ 0x10000, 0 });
    memset(ram + 0x12000, 0, 16);
    vio_blk_complete(bus, BLK, &r, VIO_BLK_S_OK, NULL);
    CU_ASSERT_EQUAL(get16(0x12002), 0);
}

static void test_go_live(void)
{
    struct q q = { 0x10000, 0 };

    start_blk(&q);
    request(&q, VIO_BLK_T_OUT, 1, 512, false);
    request(&q, VIO_BLK_T_FLUSH, 0, 0, false);
    CU_ASSERT_EQUAL(subs, 2);
    msis = subs = 0;
    vio_go_live(bus);
    CU_ASSERT_EQUAL(subs, 2);                  /* both again, in order */
    CU_ASSERT_EQUAL(sub.type, VIO_BLK_T_FLUSH);
    CU_ASSERT_EQUAL(msis, 1);                  /* the disk's one queue */
}

/* A peer's state with one field set to 'val' on load. */
struct forge {
    const char *name;
    uint64_t val;
};

static void forge(void *ctx, const char *name, uint64_t *val, bool host)
{
    const struct forge *f = ctx;

    (void)host;
    if (!strcmp(name, f->name))
        *val = f->val;
}

static void test_load_refused(void)
{
    static const struct forge bad[] = {
        { "pci2.queue0.size", 1024 }, { "pci2.queue0.size", 3 },
        { "pci2.queue0.size", 0 }, { "pci1.queue1.msix_vector", 7 },
        { "pci1.msix_config", 3 }, { "pci2.queue0.enable", 2 },
        { "pci2.kind", 1 }, { "pci.slots", 3 },
    };
    struct forge ok = { "pci2.queue0.size", 64 };

    for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        teardown();
        setup();
        CU_ASSERT_EQUAL(vio_visit(bus, forge, (void *)&bad[i], true),
                        -EINVAL);
    }
    teardown();
    setup();
    CU_ASSERT_EQUAL(vio_visit(bus, forge, &ok, true), 0);
}

/* A used index the guest moved past what was taken: going live stops
 * the device instead of resubmitting 65535 requests. */
static void test_go_live_wild_used(void)
{
    struct q q = { 0x10000, 0 };

    start_blk(&q);
    request(&q, VIO_BLK_T_OUT, 1, 512, false);
    put16(q.base + 0x2000 + 2, 2);             /* used = taken + 1 */
    subs = 0;
    vio_go_live(bus);
    CU_ASSERT_EQUAL(subs, 0);
    CU_ASSERT_EQUAL(rd(BBAR, 0x14, 1) & 0x40, 0x40);
}

struct fields {
    uint64_t val[512];
    char names[512][48];
    unsigned int n;
};

static void collect(void *ctx, const char *name, uint64_t *val, bool host)
{
    struct fields *f = ctx;

    if (host || f->n >= 512)
        return;
    f->val[f->n] = *val;
    snprintf(f->names[f->n], sizeof(f->names[0]), "%s", name);
    f->n++;
}

static void test_visit(void)
{
    static struct fields a, b;
    struct q q = { 0x10000, 0 };
    unsigned int diff = 0, at = 0;

    start_blk(&q);
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    CU_ASSERT_EQUAL(vio_visit(bus, collect, &a, false), 0);
    wr(BBAR, 0x16, 2, 0);
    wr(BBAR, 0x1a, 2, 0);                      /* one field changed */
    CU_ASSERT_EQUAL(vio_visit(bus, collect, &b, false), 0);
    CU_ASSERT_EQUAL(a.n, b.n);
    for (unsigned int i = 0; i < a.n && i < b.n; i++) {
        if (a.val[i] != b.val[i]) {
            diff++;
            at = i;
        }
    }
    CU_ASSERT_EQUAL(diff, 1);
    CU_ASSERT_STRING_EQUAL(b.names[at], "pci2.queue0.msix_vector");
}

/* The RARP a copy going live announces its guest's MAC with. */
static void test_announce(void)
{
    static const uint8_t mac[6] = { 0x00, 0x16, 0x3e, 1, 2, 3 };
    uint8_t f[VIO_NET_ANNOUNCE];

    memset(f, 0xaa, sizeof(f));
    vio_net_announce(mac, f);
    for (int i = 0; i < 6; i++)
        CU_ASSERT_EQUAL(f[i], 0xff);
    CU_ASSERT_EQUAL(memcmp(f + 6, mac, 6), 0);
    CU_ASSERT_EQUAL(f[12], 0x80);
    CU_ASSERT_EQUAL(f[13], 0x35);
    CU_ASSERT_EQUAL(f[21], 3);
    CU_ASSERT_EQUAL(memcmp(f + 22, mac, 6), 0);
    CU_ASSERT_EQUAL(memcmp(f + 32, mac, 6), 0);
    CU_ASSERT_EQUAL(f[59], 0);
}

void register_virtio_tests(void)
{
    CU_pSuite s = CU_add_suite_with_setup_and_teardown("virtio", NULL, NULL,
                                                        setup, teardown);

    CU_add_test(s, "PCI configuration and BAR sizing", test_pci);
    CU_add_test(s, "configuration routed to a function, BAR placed",
                test_cfg_routed);
    CU_add_test(s, "feature negotiation", test_features);
    CU_add_test(s, "a notify before FEATURES_OK", test_notify_early);
    CU_add_test(s, "virtio-net transmit and receive", test_net);
    CU_add_test(s, "MSI-X masking and pending bits", test_msix_mask);
    CU_add_test(s, "wrong chains stop the device", test_bad_chains);
    CU_add_test(s, "virtio-blk requests and completions", test_blk);
    CU_add_test(s, "going live resubmits what is in flight",
                test_go_live);
    CU_add_test(s, "the state visitor names a changed field", test_visit);
    CU_add_test(s, "a peer's impossible device state is refused",
                test_load_refused);
    CU_add_test(s, "going live with a wild used index stops the device",
                test_go_live_wild_used);
    CU_add_test(s, "a copy going live announces the MAC by RARP",
                test_announce);
}
