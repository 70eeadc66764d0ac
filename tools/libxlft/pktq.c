// SPDX-License-Identifier: GPL-2.0-only
/*
 * pktq.c - the held packets of a network gate (xlft_pktq.h): a ring of
 * (id, tag) pairs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xlft_pktq.h"

int xlft_pktq_init(struct xlft_pktq *q, size_t cap)
{
    memset(q, 0, sizeof(*q));
    if (!cap)
        return -EINVAL;
    q->ent = calloc(cap, sizeof(*q->ent));
    if (!q->ent)
        return -ENOMEM;
    q->cap = cap;
    return 0;
}

void xlft_pktq_fini(struct xlft_pktq *q)
{
    free(q->ent);
    memset(q, 0, sizeof(*q));
}

int xlft_pktq_push(struct xlft_pktq *q, uint32_t id, uint64_t tag)
{
    struct xlft_pktq_ent *e;

    if (q->count == q->cap)
        return -ENOBUFS;
    if (q->count) {
        const struct xlft_pktq_ent *prev =
            &q->ent[(q->head + q->count - 1) % q->cap];

        /* Kernel ids wrap at 2^32: compare by distance. */
        if ((int32_t)(id - prev->id) <= 0)
            return -EINVAL;
    }
    if (tag < q->last_tag)
        tag = q->last_tag;
    q->last_tag = tag;
    e = &q->ent[(q->head + q->count) % q->cap];
    e->id = id;
    e->tag = tag;
    q->count++;
    return 0;
}

size_t xlft_pktq_upto(const struct xlft_pktq *q, uint64_t acked,
                      uint32_t *last)
{
    size_t n = 0;

    while (n < q->count && q->ent[(q->head + n) % q->cap].tag <= acked) {
        *last = q->ent[(q->head + n) % q->cap].id;
        n++;
    }
    return n;
}

void xlft_pktq_pop(struct xlft_pktq *q, size_t n)
{
    if (n > q->count)
        n = q->count;
    q->head = (q->head + n) % q->cap;
    q->count -= n;
}
