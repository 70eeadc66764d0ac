// SPDX-License-Identifier: GPL-2.0-only
/*
 * netrx.c - bulk receive: every frame the card delivers is counted and
 * checksummed, and its buffer posted again.
 *   every=N    print a line every N frames (default 100)
 */
#include "rt/vnet.h"

void guest_main(const char *cmdline)
{
    uint32_t every = arg_u32(cmdline, "every", 100);
    uint32_t frames = 0, next = every, a = 1, b = 0;
    uint64_t bytes = 0;
    uint8_t mac[6];

    if (vnet_start(mac, "netrx")) {
        for (;;)
            __asm__ volatile("cli; hlt");
    }
    puts_uart("netrx: receiving\n");
    for (;;) {
        uint8_t *p;
        uint32_t len;

        while (!vnet_rx(&p, &len)) {
            sti_hlt();
            cli();
        }
        for (uint32_t i = 0; i < len; i++) {
            a += p[i];
            b += a;
        }
        bytes += len;
        frames++;
        vnet_rx_done();
        if (frames >= next) {
            puts_uart("netrx: ");
            put_dec(frames);
            puts_uart(" frames, ");
            put_dec((uint32_t)bytes);
            puts_uart(" bytes, sum ");
            put_hex(a ^ b << 16);
            puts_uart("\n");
            next += every;
        }
    }
}
