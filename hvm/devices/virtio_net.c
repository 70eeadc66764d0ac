// SPDX-License-Identifier: GPL-2.0-only
/*
 * virtio_net.c - virtio-net (virtio 1.0, 5.1): one receive queue (0),
 * one transmit queue (1), the MAC in its configuration, no offloads.
 *
 * Transmission happens at the notify, on both copies alike: each frame
 * is an output there and its buffer is used at once.  Reception is a
 * completion: the host puts a frame into the next posted buffer at a
 * point of its choosing, and only the host that records does it.  So a
 * queue keeps no index of its own: what has been taken equals the used
 * index in guest RAM.  A bad receive buffer cannot stop the device
 * (that would be a state change only the recording copy makes): it is
 * given back empty and the driver is told so once.
 */
#include <errno.h>
#include <string.h>

#include "vio_impl.h"

#define RXQ     0
#define TXQ     1

uint8_t vio_net_cfg(const struct vio_fn *f, uint32_t off)
{
    if (off < 6)
        return f->mac[off];
    return 0;                           /* status: no F_STATUS */
}

static void transmit(struct vio_fn *f)
{
    const struct vio_host *h = &f->bus->host;
    struct vio_queue *q = &f->q[TXQ];
    uint8_t *frame = f->bus->s->frame;
    struct vio_chain *c = &f->bus->s->tx;
    uint16_t avail, used;
    const char *why;

    if (vq_avail_idx(f, q, &avail) || vq_used_idx(f, q, &used)) {
        vio_fail(f, "the transmit queue's rings are outside RAM");
        return;
    }
    if ((uint16_t)(avail - used) > q->size) {
        vio_fail(f, "the transmit avail index is beyond its queue");
        return;
    }
    for (; used != avail; used++) {
        uint16_t head;
        uint64_t len;

        if (vq_head(f, q, used, &head)) {
            vio_fail(f, "a transmit head is beyond its queue");
            return;
        }
        if (vq_chain(f, q, head, c, &why)) {
            vio_fail(f, why);
            return;
        }
        if (c->nw) {
            vio_fail(f, "a transmit buffer is device-writable");
            return;
        }
        len = c->rlen > VIO_NET_HDR ? c->rlen - VIO_NET_HDR : 0;
        if (len < 14 || len > VIO_NET_FRAME_MAX)
            vio_warn(f, 0, "virtio-net: a transmitted frame shorter than "
                     "14 or longer than 2048 bytes was dropped");
        else if (!vq_gather(f, c, VIO_NET_HDR, frame, (uint32_t)len))
            h->net_tx(h->opaque, frame, (uint32_t)len);
        if (vq_put_used(f, q, used, head, 0)) {
            vio_fail(f, "the transmit used ring is outside RAM");
            return;
        }
    }
    vio_signal(f, q->vector);
}

void vio_net_notify(struct vio_fn *f, unsigned int qi)
{
    if (qi == TXQ)
        transmit(f);
}

static struct vio_fn *net_fn(struct vio_bus *bus, unsigned int slot)
{
    struct vio_fn *f = slot < VIO_SLOTS ? bus->fn[slot] : NULL;

    return f && f->kind == VIO_NET ? f : NULL;
}

bool vio_net_can_rx(struct vio_bus *bus, unsigned int slot)
{
    struct vio_fn *f = net_fn(bus, slot);
    uint16_t avail, used;

    return f && vio_queue_live(f, RXQ) &&
           !vq_avail_idx(f, &f->q[RXQ], &avail) &&
           !vq_used_idx(f, &f->q[RXQ], &used) && avail != used;
}

int vio_net_rx(struct vio_bus *bus, unsigned int slot, const void *frame,
               uint32_t len)
{
    struct vio_fn *f = net_fn(bus, slot);
    uint8_t *buf;
    struct vio_chain *c;
    struct vio_queue *q;
    uint16_t used, head;
    const char *why;
    uint32_t put = 0;

    if (!f)
        return -EINVAL;
    buf = bus->s->rx_buf;
    c = &bus->s->rx;
    if (!vio_net_can_rx(bus, slot))
        return -EAGAIN;
    q = &f->q[RXQ];
    if (vq_used_idx(f, q, &used) || vq_head(f, q, used, &head))
        return -EAGAIN;
    if (vq_chain(f, q, head, c, &why) || c->nr ||
        c->wlen < VIO_NET_HDR + 14) {
        vio_warn(f, 1, "virtio-net: a receive buffer that is not "
                 "writable, too small or malformed was given back empty");
    } else {
        /* Cut to the buffer, as a NIC does; header and frame in one
         * write, so one record when the buffer is one segment. */
        if (len > VIO_NET_FRAME_MAX)
            len = VIO_NET_FRAME_MAX;
        if (len > c->wlen - VIO_NET_HDR)
            len = (uint32_t)(c->wlen - VIO_NET_HDR);
        memset(buf, 0, VIO_NET_HDR);
        buf[10] = 1;                    /* num_buffers */
        memcpy(buf + VIO_NET_HDR, frame, len);
        if (!vq_scatter(f, c, 0, buf, VIO_NET_HDR + len))
            put = VIO_NET_HDR + len;
    }
    if (vq_put_used(f, q, used, head, put))
        return -EAGAIN;
    vio_signal(f, q->vector);
    return 0;
}

void vio_net_announce(const uint8_t mac[6], uint8_t frame[VIO_NET_ANNOUNCE])
{
    memset(frame, 0, VIO_NET_ANNOUNCE);
    memset(frame, 0xff, 6);
    memcpy(frame + 6, mac, 6);
    frame[12] = 0x80;               /* ethertype RARP */
    frame[13] = 0x35;
    frame[15] = 1;                  /* Ethernet */
    frame[16] = 0x08;               /* IPv4 */
    frame[18] = 6;
    frame[19] = 4;
    frame[21] = 3;                  /* reverse request */
    memcpy(frame + 22, mac, 6);
    memcpy(frame + 32, mac, 6);
}
