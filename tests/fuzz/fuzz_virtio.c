/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_virtio.c - libFuzzer target: whatever a guest does to the
 * device core (hvm/devices) - configuration cycles, BAR accesses, what
 * it leaves in its RAM for the queues - and whatever the host feeds it
 * (frames, completions, going live), the core must never crash, hang,
 * touch memory outside the guest's RAM or leave a sanitizer report.
 *
 * The input is a program of steps, each an opcode byte and its operands
 * (little-endian), read until the input ends:
 *   0 addr32            write the configuration address (0xCF8)
 *   1 port8 size8 val32 configuration data write (0xCFC + port % 4)
 *   2 port8 size8       configuration data read
 *   3 fn8 off16 size8 val64   write BAR 0 of function fn % 2 + 1
 *   4 fn8 off16 size8   read it
 *   5 at16 len8 bytes   store bytes into guest RAM at 'at'
 *   6 len8 bytes        a frame received (net)
 *   7 status8           complete the oldest disk request (status % 3)
 *   8                   the copy goes live
 *   9                   visit the state (the hash a sync takes)
 * Seeds: the initialisation of both devices, a frame each way, a disk
 * write and read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vio.h"
#include "fakeram.h"

#define TEST_NAME "fuzz_virtio"
#include "testutil.h"

#define RAM     65536u

static uint8_t ram[RAM];
static struct fakeram fram = { ram, RAM };
static volatile uint64_t sink;          /* what was read, so it is read */
static struct vio_blk_req inflight[VIO_QSIZE_MAX];
static unsigned int nin;

static void h_msi(void *o, uint64_t addr, uint32_t data)
{
    (void)o;
    (void)addr;
    (void)data;
}

/* Every byte the core hands over must be readable: ASan checks. */
static void touch(const void *p, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        sink += ((const uint8_t *)p)[i];
}

static void h_tx(void *o, const void *frame, uint32_t len)
{
    (void)o;
    CHECK(len >= 14 && len <= VIO_NET_FRAME_MAX);
    touch(frame, len);
}

static void h_submit(void *o, const struct vio_blk_req *r)
{
    (void)o;
    CHECK(r->len <= VIO_BLK_MAX && r->len % VIO_BLK_SECTOR == 0);
    if (r->type == VIO_BLK_T_OUT && r->len)
        CHECK(r->data != NULL);
    if (r->type == VIO_BLK_T_OUT && r->len)
        touch(r->data, r->len);
    if (nin < VIO_QSIZE_MAX)
        inflight[nin++] = *r;
}

static void visit(void *ctx, const char *name, uint64_t *val, bool host)
{
    (void)name;
    if (!host)
        *(uint64_t *)ctx ^= *val;
}

struct in {
    const uint8_t *p;
    size_t n;
};

static uint64_t take(struct in *in, unsigned int bytes)
{
    uint64_t v = 0;

    for (unsigned int i = 0; i < bytes && in->n; i++, in->p++, in->n--)
        v |= (uint64_t)*in->p << (8 * i);
    return v;
}

static unsigned int size_of(uint64_t sel)
{
    static const unsigned int sizes[] = { 1, 2, 4, 8, 3 };

    return sizes[sel % 5];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct vio_host h = {
        .opaque = &fram, .ram_read = fakeram_read,
        .ram_write = fakeram_write, .ram_ok = fakeram_ok,
        .msi = h_msi, .net_tx = h_tx, .blk_submit = h_submit,
    };
    static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
    static uint8_t frame[256];
    struct in in = { data, size };
    struct vio_bus *bus = vio_bus_new(&h);
    uint64_t v, acc = 0;

    CHECK(bus != NULL);
    CHECK(!vio_add_net(bus, 1, 0xfeb00000u, mac));
    CHECK(!vio_add_blk(bus, 2, 0xfeb04000u, 16, "fuzz"));
    memset(ram, 0, sizeof(ram));
    nin = 0;
    for (unsigned int steps = 0; in.n && steps < 4096; steps++) {
        unsigned int op = (unsigned int)take(&in, 1) % 10, fn, sz;
        uint32_t off;

        switch (op) {
        case 0:
            vio_pio_write(bus, 0xcf8, 4, (uint32_t)take(&in, 4));
            break;
        case 1:
            off = (uint32_t)take(&in, 1) % 4;
            sz = size_of(take(&in, 1));
            vio_pio_write(bus, (uint16_t)(0xcfc + off), sz > 4 ? 4 : sz,
                          (uint32_t)take(&in, 4));
            break;
        case 2:
            off = (uint32_t)take(&in, 1) % 4;
            sz = size_of(take(&in, 1));
            acc ^= vio_pio_read(bus, (uint16_t)(0xcfc + off),
                                sz > 4 ? 4 : sz);
            break;
        case 3:
            fn = (unsigned int)take(&in, 1) % 2;
            off = (uint32_t)take(&in, 2);
            sz = size_of(take(&in, 1));
            vio_mmio_write(bus, (fn ? 0xfeb04000u : 0xfeb00000u) + off, sz,
                           take(&in, 8));
            break;
        case 4:
            fn = (unsigned int)take(&in, 1) % 2;
            off = (uint32_t)take(&in, 2);
            sz = size_of(take(&in, 1));
            if (vio_mmio_read(bus, (fn ? 0xfeb04000u : 0xfeb00000u) + off,
                              sz, &v))
                acc ^= v;
            break;
        case 5:
            off = (uint32_t)take(&in, 2);
            sz = (unsigned int)take(&in, 1);
            while (sz-- && in.n)
                ram[off++ % RAM] = (uint8_t)take(&in, 1);
            break;
        case 6:
            sz = (unsigned int)take(&in, 1);
            memset(frame, 0, sizeof(frame));
            for (unsigned int i = 0; i < sz && in.n; i++)
                frame[i] = (uint8_t)take(&in, 1);
            vio_net_rx(bus, 1, frame, sz);
            break;
        case 7:
            v = take(&in, 1) % 3;
            if (nin) {
                static uint8_t rd[VIO_BLK_MAX];
                struct vio_blk_req r = inflight[0];

                memmove(inflight, inflight + 1, --nin * sizeof(*inflight));
                vio_blk_complete(bus, 2, &r, (uint32_t)v, rd);
            }
            break;
        case 8:
            vio_go_live(bus);
            break;
        default:
            CHECK(vio_visit(bus, visit, &acc, false) == 0);
            break;
        }
    }
    vio_bus_free(bus);
    sink ^= acc;
    return 0;
}
