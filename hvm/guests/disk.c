// SPDX-License-Identifier: GPL-2.0-only
/*
 * disk.c - random writes and reads on ftvm's disk (DEVICES.md): write a
 * pattern to a random place, read it back, compare, again and again.
 *   seed=N     where to write and what (default 1)
 *   every=N    print a line every N rounds (default 10)
 *   hz=N       timer rate (default 100)
 */
#include "ftvm_devices.h"
#include "rt/rt.h"

#define SLOTS       8
#define SECTORS     8           /* per request: 4 KiB */

struct slot {
    uint32_t op, sector, count, addr, status, pad[3];
};

static struct {
    volatile uint32_t avail, used;
    struct slot s[SLOTS];
} ring __attribute__((aligned(16)));

static uint8_t wbuf[SECTORS * 512], rbuf[SECTORS * 512];
static volatile uint32_t irqs;

static inline uint32_t reg_r(uint32_t off)
{
    return *(volatile uint32_t *)(DISK_MMIO + off);
}

static inline void reg_w(uint32_t off, uint32_t v)
{
    *(volatile uint32_t *)(DISK_MMIO + off) = v;
}

static void on_disk(struct rt_frame *f)
{
    (void)f;
    irqs++;
}

/* Post one request and sleep until the disk has answered it. */
static uint32_t request(uint32_t op, uint32_t sector, void *buf)
{
    struct slot *s = &ring.s[ring.avail % SLOTS];
    uint32_t want = ring.avail + 1;

    s->op = op;
    s->sector = sector;
    s->count = SECTORS;
    s->addr = (uint32_t)buf;
    s->status = 0xffffffffu;
    ring.avail = want;
    reg_w(DISK_KICK, want);
    while (ring.used != want) {
        sti_hlt();
        cli();
    }
    return s->status;
}

void guest_main(const char *cmdline)
{
    uint32_t x = arg_u32(cmdline, "seed", 1) * 2654435761u + 7;
    uint32_t every = arg_u32(cmdline, "every", 10), sectors;

    irq_set(IRQ_TIMER, NULL);
    pit_set_hz(arg_u32(cmdline, "hz", 100));
    sectors = reg_r(DISK_SECTORS);
    if (reg_r(DISK_ID) != DISK_ID_VALUE || sectors <= SECTORS) {
        puts_uart("disk: no disk\n");
        for (;;)
            sti_hlt();
    }
    puts_uart("disk: ");
    put_dec(sectors);
    puts_uart(" sectors\n");
    irq_set(DISK_IRQ, on_disk);
    reg_w(DISK_RING, (uint32_t)&ring);
    reg_w(DISK_SIZE, SLOTS);
    reg_w(DISK_CTRL, 1);

    for (uint32_t round = 1;; round++) {
        uint32_t sector, st;

        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        sector = x % (sectors - SECTORS);
        for (uint32_t i = 0; i < sizeof(wbuf); i++)
            wbuf[i] = (uint8_t)(x >> (i & 24)) ^ (uint8_t)i;
        st = request(DISK_OP_WRITE, sector, wbuf);
        if (!st)
            st = request(DISK_OP_READ, sector, rbuf);
        if (!st)
            for (uint32_t i = 0; i < sizeof(rbuf); i++)
                if (rbuf[i] != wbuf[i])
                    st = 100;
        if (st || round % every == 0) {
            puts_uart("disk: round ");
            put_dec(round);
            puts_uart(st ? " FAILED, status " : " ok, irqs ");
            put_dec(st ? st : irqs);
            puts_uart("\n");
        }
    }
}
