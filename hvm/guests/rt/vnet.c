// SPDX-License-Identifier: GPL-2.0-only
/*
 * vnet.c - virtio-net for xenft guests (vnet.h).  Each receive chain is
 * one writable buffer of header and frame; chains are used in order, so
 * the next frame is always in the oldest posted chain.
 */
#include "vnet.h"

#define HDR     12u                 /* struct virtio_net_hdr, VERSION_1 */
#define BUF     (HDR + 2048u)

static struct vdev dev;
static struct vq rxq, txq;
static struct vq_ring rx_ring, tx_ring;
static uint8_t rx_buf[VQ_CHAINS][BUF], tx_buf[VQ_CHAINS][BUF];
static unsigned int rx_chain;       /* the one vnet_rx returned */
static uint16_t tx_sent, tx_done;

static void on_msi(struct rt_frame *f)
{
    (void)f;
}

static void post_rx(unsigned int chain)
{
    struct vseg s = { rx_buf[chain], BUF, VD_WRITE };

    vq_post(&rxq, chain, &s, 1);
}

int vnet_start(uint8_t mac[6], const char *who)
{
    if (vdev_start(&dev, 0x1041, 1u << 5, VNET_VECTOR, who) ||
        vq_start(&dev, &rxq, 0, &rx_ring) ||
        vq_start(&dev, &txq, 1, &tx_ring))
        return -1;
    for (int i = 0; i < 6; i++)
        mac[i] = dev.devcfg[i];
    msi_set(VNET_VECTOR + 1, on_msi);
    msi_set(VNET_VECTOR + 2, on_msi);
    vdev_ready(&dev);
    for (unsigned int c = 0; c < VQ_CHAINS; c++)
        post_rx(c);
    vq_kick(&rxq);
    return 0;
}

bool vnet_rx(uint8_t **frame, uint32_t *len)
{
    uint32_t n;

    if (!vq_used(&rxq, &rx_chain, &n))
        return false;
    *frame = rx_buf[rx_chain] + HDR;
    *len = n > HDR ? n - HDR : 0;
    return true;
}

void vnet_rx_done(void)
{
    post_rx(rx_chain);
    vq_kick(&rxq);
}

void vnet_tx(const void *frame, uint32_t len)
{
    unsigned int chain;
    uint32_t n;
    struct vseg s;

    for (;;) {
        while (vq_used(&txq, &chain, &n))
            tx_done++;
        if ((uint16_t)(tx_sent - tx_done) < VQ_CHAINS)
            break;
        sti_hlt();
        cli();
    }
    chain = tx_sent % VQ_CHAINS;
    memset(tx_buf[chain], 0, HDR);
    memcpy(tx_buf[chain] + HDR, frame, len);
    s = (struct vseg){ tx_buf[chain], HDR + len, 0 };
    vq_post(&txq, chain, &s, 1);
    tx_sent++;
    vq_kick(&txq);
}
