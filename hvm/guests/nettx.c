// SPDX-License-Identifier: GPL-2.0-only
/*
 * nettx.c - bulk transmit: frames of a given size, numbered, as fast as
 * the card takes them.
 *   count=N    frames to send (default 1000), then idle
 *   size=N     bytes per frame, 60 to 1514 (default 1000)
 *   every=N    print a line every N frames (default 100)
 */
#include "rt/vnet.h"

static uint8_t f[VNET_FRAME];

void guest_main(const char *cmdline)
{
    uint32_t count = arg_u32(cmdline, "count", 1000);
    uint32_t size = arg_u32(cmdline, "size", 1000);
    uint32_t every = arg_u32(cmdline, "every", 100);
    uint8_t mac[6];

    if (vnet_start(mac, "nettx")) {
        for (;;)
            __asm__ volatile("cli; hlt");
    }
    if (size < 60)
        size = 60;
    if (size > VNET_FRAME)
        size = VNET_FRAME;
    puts_uart("nettx: sending\n");
    for (uint32_t n = 1; n <= count; n++) {
        memset(f, 0xff, 6);                         /* broadcast */
        memcpy(f + 6, mac, 6);
        f[12] = 0x88;                               /* local experiment */
        f[13] = 0xb5;
        memcpy(f + 14, &n, 4);
        for (uint32_t i = 18; i < size; i++)
            f[i] = (uint8_t)(n + i);
        vnet_tx(f, size);
        if (n % every == 0) {
            puts_uart("nettx: ");
            put_dec(n);
            puts_uart(" frames sent\n");
        }
    }
    puts_uart("nettx: done\n");
    pit_set_hz(10);
    irq_set(IRQ_TIMER, NULL);
    for (;;)
        sti_hlt();
}
