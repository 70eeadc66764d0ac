/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_pktq.h - the packets a network gate holds, in arrival order: each
 * is a kernel queue id (the packet itself stays in the kernel) tagged
 * with the primary's log position when dom0 saw it.  A fixed array
 * allocated once: its capacity is the gate's bound.
 *
 * Tags never go down (a lower one is raised to the last tag: the packet
 * came after, so it may depend on every record the last one did); ids
 * strictly increase, as the kernel numbers a queue's packets.
 */
#ifndef XLFT_PKTQ_H
#define XLFT_PKTQ_H

#include <stddef.h>
#include <stdint.h>

struct xlft_pktq {
    struct xlft_pktq_ent {
        uint32_t id;
        uint64_t tag;
    } *ent;
    size_t cap, head, count;
    uint64_t last_tag;
};

int xlft_pktq_init(struct xlft_pktq *q, size_t cap);
void xlft_pktq_fini(struct xlft_pktq *q);

/* -ENOBUFS when full, -EINVAL if 'id' does not follow the last one. */
int xlft_pktq_push(struct xlft_pktq *q, uint32_t id, uint64_t tag);

/*
 * How many packets from the head have a tag of at most 'acked', and in
 * *last the id of the last of them (untouched if none): one batch
 * verdict covers them all.
 */
size_t xlft_pktq_upto(const struct xlft_pktq *q, uint64_t acked,
                      uint32_t *last);
/* Forget the first 'n' packets (their verdict was given). */
void xlft_pktq_pop(struct xlft_pktq *q, size_t n);

static inline size_t xlft_pktq_count(const struct xlft_pktq *q)
{
    return q->count;
}

#endif /* XLFT_PKTQ_H */
