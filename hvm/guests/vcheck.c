// SPDX-License-Identifier: GPL-2.0-only
/*
 * vcheck.c - a virtio conformance guest: the initialisation sequence
 * of virtio 1.0 (3.1.1) on both devices, and a driver that gets it
 * wrong in one chosen way.  It prints what the device answered and
 * powers off, so that a run ends by itself.
 *   case=0   both devices initialised; a frame sent, a disk write, a
 *            read back, get-id and a flush
 *   case=1   a queue notified before FEATURES_OK
 *   case=2   a transmit descriptor pointing outside RAM
 *   case=3   a disk request whose chain loops
 *   case=4   features without VERSION_1 (FEATURES_OK is refused)
 *   case=5   case 3, then a reset, and the disk works again
 */
#include "ftvm_devices.h"
#include "rt/virtio.h"

#define NEEDS_RESET 0x40u

static struct vdev net, blk;
static struct vq txq, bq;
static struct vq_ring tx_ring, b_ring;
static uint8_t frame[12 + 60], sector[512], back[512];
static char id[20];
static struct {
    uint32_t type, reserved;
    uint64_t sector;
} hdr;
static volatile uint8_t status;

static void on_msi(struct rt_frame *f)
{
    (void)f;
}

static void say(const char *what, uint32_t v)
{
    puts_uart("vcheck: ");
    puts_uart(what);
    puts_uart(" ");
    put_hex(v);
    puts_uart("\n");
}

static uint8_t dev_status(struct vdev *d)
{
    return d->common[0x14];
}

static void power_off(void)
{
    outw(PM1A_CNT, PM1_SLP_EN);
    for (;;)
        __asm__ volatile("cli; hlt");
}

/* One request on the disk, chain 0; waits for it unless it loops. */
static uint8_t disk(uint32_t type, void *buf, uint32_t len, bool loop)
{
    struct vseg s[3] = {
        { &hdr, sizeof(hdr), 0 },
        { buf, len, type == 1 ? 0 : VD_WRITE },
        { (const void *)&status, 1, VD_WRITE },
    };
    unsigned int chain;
    uint32_t got;

    hdr.type = type;
    hdr.sector = 1;
    status = 0xff;
    vq_post(&bq, 0, s, len ? 3 : 2);
    if (!len)
        bq.r->desc[1] = bq.r->desc[2];
    if (loop)
        bq.r->desc[1].next = 0;         /* data leads back to the header */
    vq_kick(&bq);
    for (int n = 0; n < 1000 && !vq_used(&bq, &chain, &got); n++) {
        if (dev_status(&blk) & NEEDS_RESET)
            return 0xee;
        sti_hlt();
        cli();
    }
    return status;
}

static int start_blk(void)
{
    if (vdev_start(&blk, 0x1042, 0, 0x48, "vcheck") ||
        vq_start(&blk, &bq, 0, &b_ring))
        return -1;
    msi_set(0x49, on_msi);
    msi_set(0x48, on_msi);
    vdev_ready(&blk);
    return 0;
}

static void good(void)
{
    struct vseg s = { frame, sizeof(frame), 0 };
    unsigned int chain;
    uint32_t len;

    if (vdev_start(&net, 0x1041, 1u << 5, 0x40, "vcheck") ||
        vq_start(&net, &txq, 1, &tx_ring))
        power_off();
    msi_set(0x42, on_msi);
    vdev_ready(&net);
    say("net status", dev_status(&net));
    memset(frame + 12, 0xff, 6);
    frame[24] = 0x88;
    frame[25] = 0xb5;
    vq_post(&txq, 0, &s, 1);
    vq_kick(&txq);
    while (!vq_used(&txq, &chain, &len)) {
        sti_hlt();
        cli();
    }
    say("net sent, used length", len);
    if (start_blk())
        power_off();
    say("blk status", dev_status(&blk));
    for (int i = 0; i < 512; i++)
        sector[i] = (uint8_t)(i * 7);
    say("blk write", disk(1, sector, 512, false));
    say("blk read", disk(0, back, 512, false));
    say("blk same", !memcmp(sector, back, 512));
    say("blk get-id", disk(8, id, 20, false));
    puts_uart("vcheck: blk id ");
    puts_uart(id);
    puts_uart("\n");
    say("blk flush", disk(4, NULL, 0, false));
}

void guest_main(const char *cmdline)
{
    uint32_t which = arg_u32(cmdline, "case", 0);

    irq_set(IRQ_TIMER, NULL);
    pit_set_hz(100);
    switch (which) {
    case 0:
        good();
        break;
    case 1:
        if (vdev_start(&blk, 0x1042, 0, 0x48, "vcheck"))
            power_off();
        blk.common[0x14] = 0;
        blk.common[0x14] = 3;                   /* ACK, DRIVER */
        *(volatile uint16_t *)blk.notify = 0;
        say("early notify: status", dev_status(&blk));
        break;
    case 2: {
        struct vseg s = { (const void *)0xf0000000u, 72, 0 };

        if (vdev_start(&net, 0x1041, 1u << 5, 0x40, "vcheck") ||
            vq_start(&net, &txq, 1, &tx_ring))
            power_off();
        vdev_ready(&net);
        vq_post(&txq, 0, &s, 1);
        vq_kick(&txq);
        say("outside RAM: status", dev_status(&net));
        break;
    }
    case 3:
    case 5:
        if (start_blk())
            power_off();
        say("loop: request", disk(1, sector, 512, true));
        say("loop: status", dev_status(&blk));
        if (which == 5) {
            if (start_blk())
                power_off();
            say("after reset: status", dev_status(&blk));
            say("after reset: write", disk(1, sector, 512, false));
        }
        break;
    case 4:
        if (vdev_start(&blk, 0x1042, 0, 0x48, "vcheck"))
            power_off();
        blk.common[0x14] = 0;
        blk.common[0x14] = 3;
        *(volatile uint32_t *)(blk.common + 0x08) = 1;
        *(volatile uint32_t *)(blk.common + 0x0c) = 0;  /* no VERSION_1 */
        blk.common[0x14] = 3 | 8;
        say("no VERSION_1: status", dev_status(&blk));
        break;
    default:
        say("no such case", which);
    }
    power_off();
}
