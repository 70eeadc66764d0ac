// SPDX-License-Identifier: GPL-2.0-only
/*
 * virtio_blk.c - virtio-blk (virtio 1.0, 5.2): one request queue; read,
 * write, flush and get-id.
 *
 * A request is taken at the notify, on both copies alike: its header
 * and a write's data are read then, and the host gets it to perform.
 * Its completion comes later, in order, and only where the host records
 * (the copy gets it from the log).  The queue counts what it has taken;
 * what is in flight is that count less the used index in guest RAM, and
 * each in-flight request is still in guest RAM where the driver posted
 * it (a driver must not touch it until it is used).  So a completion
 * and a copy going live both find their requests there again, and the
 * device holds nothing the copy lacks.
 */
#include <string.h>

#include "vio_impl.h"

uint8_t vio_blk_cfg(const struct vio_fn *f, uint32_t off)
{
    if (off < 8)
        return (uint8_t)(f->sectors >> (8 * off));     /* capacity */
    return 0;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/*
 * The request whose chain is 'c': what it asks, checked.  A malformed
 * chain is the driver's error (-1, 'why'); a request that cannot be
 * done (a length that is not whole sectors, or too big) completes
 * with an error status.
 */
static int parse(struct vio_fn *f, const struct vio_chain *c,
                 struct vio_blk_req *r, const char **why)
{
    uint8_t h[16];
    uint64_t data;

    if (c->rlen < 16 || vq_gather(f, c, 0, h, 16)) {
        *why = "a request without its 16-byte header";
        return -1;
    }
    if (!c->wlen) {
        *why = "a request without a status byte";
        return -1;
    }
    *r = (struct vio_blk_req){ .head = c->head, .epoch = f->epoch,
                               .status = VIO_BLK_S_OK };
    r->type = (uint32_t)h[0] | (uint32_t)h[1] << 8 |
              (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
    r->sector = le64(h + 8);
    switch (r->type) {
    case VIO_BLK_T_IN:
        data = c->wlen - 1;
        if (c->rlen != 16)
            r->status = VIO_BLK_S_IOERR;
        break;
    case VIO_BLK_T_OUT:
        data = c->rlen - 16;
        if (c->wlen != 1)
            r->status = VIO_BLK_S_IOERR;
        break;
    case VIO_BLK_T_FLUSH:
    case VIO_BLK_T_GET_ID:
        return 0;
    default:
        r->status = VIO_BLK_S_UNSUPP;
        return 0;
    }
    /* The disk's end is the host's to check: a copy has no disk. */
    if (data % VIO_BLK_SECTOR || data > VIO_BLK_MAX)
        r->status = VIO_BLK_S_IOERR;
    if (r->status == VIO_BLK_S_OK)
        r->len = (uint32_t)data;
    return 0;
}

/* Give request 'n' (by queue order) to the host: taken now or again. */
static int submit(struct vio_fn *f, uint16_t n)
{
    const struct vio_host *h = &f->bus->host;
    struct vio_queue *q = &f->q[0];
    struct vio_chain *c = &f->bus->s->submit;
    uint8_t *buf = f->bus->s->blk_data;
    struct vio_blk_req r;
    const char *why;
    uint16_t head;

    if (vq_head(f, q, n, &head)) {
        vio_fail(f, "virtio-blk: a request head is beyond its queue");
        return -1;
    }
    if (vq_chain(f, q, head, c, &why) || parse(f, c, &r, &why)) {
        vio_fail(f, why);
        return -1;
    }
    if (r.type == VIO_BLK_T_OUT && r.len) {
        if (vq_gather(f, c, 16, buf, r.len))
            r.status = VIO_BLK_S_IOERR;
        r.data = buf;
    }
    if (r.status != VIO_BLK_S_OK)
        r.len = 0;
    h->blk_submit(h->opaque, &r);
    return 0;
}

void vio_blk_notify(struct vio_fn *f, unsigned int qi)
{
    struct vio_queue *q = &f->q[qi];
    uint16_t avail, used;

    if (vq_avail_idx(f, q, &avail) || vq_used_idx(f, q, &used)) {
        vio_fail(f, "virtio-blk: the queue's rings are outside RAM");
        return;
    }
    if ((uint16_t)(avail - used) > q->size ||
        (uint16_t)(q->taken - used) > (uint16_t)(avail - used)) {
        vio_fail(f, "virtio-blk: the avail index is beyond its queue");
        return;
    }
    while (q->taken != avail && !f->broken && !submit(f, q->taken))
        q->taken++;
}

void vio_blk_resubmit(struct vio_fn *f)
{
    struct vio_queue *q = &f->q[0];
    uint16_t used;

    if (!vio_queue_live(f, 0) || vq_used_idx(f, q, &used))
        return;
    if ((uint16_t)(q->taken - used) > q->size) {
        vio_fail(f, "virtio-blk: the used index is beyond what was taken");
        return;
    }
    for (uint16_t n = used; n != q->taken && !f->broken; n++)
        submit(f, n);
}

bool vio_blk_current(const struct vio_bus *bus, unsigned int slot,
                     const struct vio_blk_req *req)
{
    const struct vio_fn *f = slot < VIO_SLOTS ? bus->fn[slot] : NULL;

    return f && f->kind == VIO_BLK && req->epoch == f->epoch;
}

void vio_blk_complete(struct vio_bus *bus, unsigned int slot,
                      const struct vio_blk_req *req, uint32_t status,
                      const void *data)
{
    struct vio_fn *f = slot < VIO_SLOTS ? bus->fn[slot] : NULL;
    struct vio_chain *c = &bus->s->complete;
    struct vio_queue *q;
    uint16_t used, head;
    const char *why;
    uint32_t put = 0;
    uint8_t st = (uint8_t)status;

    if (!f || f->kind != VIO_BLK || req->epoch != f->epoch ||
        !vio_queue_live(f, 0))
        return;                         /* reset since: nobody waits */
    q = &f->q[0];
    if (vq_used_idx(f, q, &used) || used == q->taken ||
        vq_head(f, q, used, &head) || head != req->head ||
        vq_chain(f, q, head, c, &why)) {
        vio_warn(f, 2, "virtio-blk: a request changed in guest RAM while "
                 "in flight; its completion was dropped");
        return;
    }
    if (status == VIO_BLK_S_OK && req->type == VIO_BLK_T_IN && req->len) {
        if (vq_scatter(f, c, 0, data, req->len))
            st = VIO_BLK_S_IOERR;
        else
            put = req->len;
    } else if (status == VIO_BLK_S_OK && req->type == VIO_BLK_T_GET_ID) {
        put = c->wlen - 1 < sizeof(f->serial) ? (uint32_t)c->wlen - 1
                                             : sizeof(f->serial);
        if (vq_scatter(f, c, 0, f->serial, put))
            put = 0;
    }
    if (vq_scatter(f, c, c->wlen - 1, &st, 1) ||
        vq_put_used(f, q, used, head, put + 1)) {
        vio_warn(f, 3, "virtio-blk: a completion could not be written");
        return;
    }
    vio_signal(f, q->vector);
}
