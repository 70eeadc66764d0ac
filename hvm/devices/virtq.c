// SPDX-License-Identifier: GPL-2.0-only
/*
 * virtq.c - split virtqueues in guest RAM (virtio 1.0, 2.4): indices,
 * descriptor chains, and the used ring.
 *
 * A chain is walked at most the queue's size of descriptors, so a chain
 * that loops ends there; every segment must lie in guest RAM, readable
 * ones before writable ones; indirect descriptors are not offered.
 */
#include "vio_impl.h"

#define D_NEXT      1u
#define D_WRITE     2u
#define D_INDIRECT  4u

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16;
}

int vq_read16(struct vio_fn *f, uint64_t gpa, uint16_t *v)
{
    const struct vio_host *h = &f->bus->host;
    uint8_t b[2];
    int rc = h->ram_read(h->opaque, gpa, b, 2);

    *v = rc ? 0 : get16(b);
    return rc;
}

int vq_avail_idx(struct vio_fn *f, const struct vio_queue *q, uint16_t *idx)
{
    return vq_read16(f, q->avail + 2, idx);
}

int vq_used_idx(struct vio_fn *f, const struct vio_queue *q, uint16_t *idx)
{
    return vq_read16(f, q->used + 2, idx);
}

/* The head of the n-th chain made available. */
int vq_head(struct vio_fn *f, const struct vio_queue *q, uint16_t n,
            uint16_t *head)
{
    int rc = vq_read16(f, q->avail + 4 + 2ull * (n & (q->size - 1)), head);

    if (!rc && *head >= q->size)
        rc = -1;
    return rc;
}

int vq_chain(struct vio_fn *f, const struct vio_queue *q, uint16_t head,
             struct vio_chain *c, const char **why)
{
    const struct vio_host *h = &f->bus->host;
    uint16_t i = head;

    c->head = head;
    c->nr = c->nw = 0;
    c->rlen = c->wlen = 0;
    for (unsigned int n = 0; n < q->size; n++) {
        uint8_t d[16];
        uint64_t addr;
        uint32_t len;
        uint16_t flags;

        if (h->ram_read(h->opaque, q->desc + 16ull * i, d, sizeof(d))) {
            *why = "the descriptor table is outside RAM";
            return -1;
        }
        addr = (uint64_t)get32(d) | (uint64_t)get32(d + 4) << 32;
        len = get32(d + 8);
        flags = get16(d + 12);
        if (flags & D_INDIRECT) {
            *why = "an indirect descriptor (not offered)";
            return -1;
        }
        if (len && !h->ram_ok(h->opaque, addr, len)) {
            *why = "a descriptor points outside RAM";
            return -1;
        }
        if (!(flags & D_WRITE) && c->nw) {
            *why = "a readable descriptor follows a writable one";
            return -1;
        }
        if (len) {
            c->seg[c->nr + c->nw] = (struct vio_seg){ addr, len };
            if (flags & D_WRITE) {
                c->nw++;
                c->wlen += len;
            } else {
                c->nr++;
                c->rlen += len;
            }
        }
        if (!(flags & D_NEXT))
            return 0;
        i = get16(d + 14);
        if (i >= q->size) {
            *why = "a descriptor's next is beyond the queue";
            return -1;
        }
    }
    *why = "a descriptor chain loops (longer than its queue)";
    return -1;
}

/* Copy between a buffer and segments first..first+n, 'skip' bytes in. */
static int copy(struct vio_fn *f, const struct vio_chain *c,
                unsigned int first, unsigned int n, uint64_t skip,
                void *rbuf, const void *wbuf, uint32_t len)
{
    const struct vio_host *h = &f->bus->host;
    uint32_t done = 0;

    for (unsigned int s = first; s < first + n && done < len; s++) {
        const struct vio_seg *g = &c->seg[s];
        uint32_t at, k;
        int rc;

        if (skip >= g->len) {
            skip -= g->len;
            continue;
        }
        at = (uint32_t)skip;
        skip = 0;
        k = g->len - at < len - done ? g->len - at : len - done;
        rc = rbuf ? h->ram_read(h->opaque, g->gpa + at,
                                (uint8_t *)rbuf + done, k)
                  : h->ram_write(h->opaque, g->gpa + at,
                                 (const uint8_t *)wbuf + done, k);
        if (rc)
            return rc;
        done += k;
    }
    return done == len ? 0 : -1;
}

int vq_gather(struct vio_fn *f, const struct vio_chain *c, uint64_t skip,
              void *buf, uint32_t len)
{
    return copy(f, c, 0, c->nr, skip, buf, NULL, len);
}

int vq_scatter(struct vio_fn *f, const struct vio_chain *c, uint64_t skip,
               const void *buf, uint32_t len)
{
    return copy(f, c, c->nr, c->nw, skip, NULL, buf, len);
}

/* The n-th used element, then the index past it (the driver's signal). */
int vq_put_used(struct vio_fn *f, const struct vio_queue *q, uint16_t n,
                uint16_t head, uint32_t len)
{
    const struct vio_host *h = &f->bus->host;
    uint8_t e[8] = { (uint8_t)head, (uint8_t)(head >> 8), 0, 0,
                     (uint8_t)len, (uint8_t)(len >> 8),
                     (uint8_t)(len >> 16), (uint8_t)(len >> 24) };
    uint16_t next = (uint16_t)(n + 1);
    uint8_t idx[2] = { (uint8_t)next, (uint8_t)(next >> 8) };
    int rc = h->ram_write(h->opaque,
                          q->used + 4 + 8ull * (n & (q->size - 1)), e, 8);

    return rc ? rc : h->ram_write(h->opaque, q->used + 2, idx, 2);
}
