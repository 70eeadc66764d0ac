// SPDX-License-Identifier: GPL-2.0-only
/*
 * nettx.c - bulk transmit: frames of a given size, numbered, as fast as
 * the card takes them.
 *   count=N    frames to send (default 1000), then idle
 *   size=N     bytes per frame, 60 to 1514 (default 1000)
 *   every=N    print a line every N frames (default 100)
 */
#include "rt/nic.h"

static struct nic_ring tx;
static uint8_t bufs[NIC_SLOTS][NIC_BUF];

static void on_nic(struct rt_frame *f)
{
    (void)f;
}

void guest_main(const char *cmdline)
{
    uint32_t count = arg_u32(cmdline, "count", 1000);
    uint32_t size = arg_u32(cmdline, "size", 1000);
    uint32_t every = arg_u32(cmdline, "every", 100);
    uint32_t mac_lo, mac_hi;

    if (nic_r(NIC_ID) != NIC_ID_VALUE) {
        puts_uart("nettx: no network card\n");
        for (;;)
            __asm__ volatile("cli; hlt");
    }
    if (size < 60)
        size = 60;
    if (size > 1514)
        size = 1514;
    mac_lo = nic_r(NIC_MAC_LO);
    mac_hi = nic_r(NIC_MAC_HI);
    irq_set(NIC_IRQ, on_nic);
    nic_w(NIC_TX_RING, (uint32_t)&tx);
    nic_w(NIC_TX_SIZE, NIC_SLOTS);
    nic_w(NIC_CTRL, 1);
    puts_uart("nettx: sending\n");
    for (uint32_t n = 1; n <= count; n++) {
        uint8_t *f;

        while (tx.avail - tx.used == NIC_SLOTS) {
            sti_hlt();
            cli();
        }
        f = bufs[tx.avail % NIC_SLOTS];
        memset(f, 0xff, 6);                         /* broadcast */
        memcpy(f + 6, &mac_lo, 4);
        memcpy(f + 10, &mac_hi, 2);
        f[12] = 0x88;                               /* local experiment */
        f[13] = 0xb5;
        memcpy(f + 14, &n, 4);
        for (uint32_t i = 18; i < size; i++)
            f[i] = (uint8_t)(n + i);
        tx.s[tx.avail % NIC_SLOTS].addr = (uint32_t)f;
        tx.s[tx.avail % NIC_SLOTS].len = size;
        tx.avail++;
        nic_w(NIC_TX_KICK, tx.avail);
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
