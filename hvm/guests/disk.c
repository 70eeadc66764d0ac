// SPDX-License-Identifier: GPL-2.0-only
/*
 * disk.c - random writes and reads on the virtio disk (DEVICES.md):
 * write a pattern to a random place, read it back, compare, again and
 * again.
 *   seed=N     where to write and what (default 1)
 *   every=N    print a line every N rounds (default 10)
 *   hz=N       timer rate (default 100)
 */
#include "rt/vblk.h"

#define SECTORS     8           /* per request: 4 KiB */

static uint8_t wbuf[SECTORS * 512], rbuf[SECTORS * 512];

void guest_main(const char *cmdline)
{
    uint32_t x = arg_u32(cmdline, "seed", 1) * 2654435761u + 7;
    uint32_t every = arg_u32(cmdline, "every", 10);
    uint64_t sectors;

    irq_set(IRQ_TIMER, NULL);
    pit_set_hz(arg_u32(cmdline, "hz", 100));
    if (vblk_start(&sectors, "disk") || sectors <= SECTORS ||
        sectors > 0xffffffffu) {
        puts_uart("disk: no disk\n");
        for (;;)
            sti_hlt();
    }
    puts_uart("disk: ");
    put_dec((uint32_t)sectors);
    puts_uart(" sectors\n");

    for (uint32_t round = 1;; round++) {
        uint32_t sector, st;

        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        sector = x % ((uint32_t)sectors - SECTORS);
        for (uint32_t i = 0; i < sizeof(wbuf); i++)
            wbuf[i] = (uint8_t)(x >> (i & 24)) ^ (uint8_t)i;
        st = vblk_rw(VBLK_OUT, sector, wbuf, SECTORS);
        if (!st)
            st = vblk_rw(VBLK_IN, sector, rbuf, SECTORS);
        if (!st)
            for (uint32_t i = 0; i < sizeof(rbuf); i++)
                if (rbuf[i] != wbuf[i])
                    st = 100;
        if (st || round % every == 0) {
            puts_uart("disk: round ");
            put_dec(round);
            puts_uart(st ? " FAILED, status " : " ok\n");
            if (st) {
                put_dec(st);
                puts_uart("\n");
            }
        }
    }
}
