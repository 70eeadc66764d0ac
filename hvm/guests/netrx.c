// SPDX-License-Identifier: GPL-2.0-only
/*
 * netrx.c - bulk receive: every frame the card delivers is counted and
 * checksummed, and its buffer posted again.
 *   every=N    print a line every N frames (default 100)
 */
#include "rt/nic.h"

static struct nic_ring rx;
static uint8_t bufs[NIC_SLOTS][NIC_BUF];

static void on_nic(struct rt_frame *f)
{
    (void)f;
}

void guest_main(const char *cmdline)
{
    uint32_t every = arg_u32(cmdline, "every", 100);
    uint32_t frames = 0, next = every, a = 1, b = 0, seen = 0;
    uint64_t bytes = 0;

    if (nic_r(NIC_ID) != NIC_ID_VALUE) {
        puts_uart("netrx: no network card\n");
        for (;;)
            __asm__ volatile("cli; hlt");
    }
    irq_set(NIC_IRQ, on_nic);
    nic_rx_start(&rx, bufs);
    puts_uart("netrx: receiving\n");
    for (;;) {
        while (seen == rx.used) {
            sti_hlt();
            cli();
        }
        for (; seen != rx.used; seen++) {
            struct nic_slot *s = &rx.s[seen % NIC_SLOTS];
            const uint8_t *p = (const uint8_t *)s->addr;

            for (uint32_t i = 0; i < s->done; i++) {
                a += p[i];
                b += a;
            }
            bytes += s->done;
            frames++;
            rx.avail++;
        }
        nic_w(NIC_RX_KICK, rx.avail);
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
