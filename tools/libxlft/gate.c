// SPDX-License-Identifier: GPL-2.0-only
/*
 * gate.c - the output rule (xlft_gate.h).  Outputs wait in a FIFO in
 * production order; their tags never decrease, so releasing up to an
 * acknowledgement is popping from the head.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xlft_gate.h"

struct held {
    struct held *next;
    uint64_t seq, id;
    uint32_t kind;
    size_t len;
    unsigned char data[];
};

struct xlft_gate {
    struct held *head, *tail;
    size_t count, bytes;
    size_t max_bytes, max_outputs;
    uint64_t last_seq;          /* tag of the last output held */
    uint64_t acked;
    bool open;
    xlft_gate_emit_fn emit;
    void *opaque;
};

int xlft_gate_new(struct xlft_gate **gp, const struct xlft_gate_limits *lim,
                  xlft_gate_emit_fn emit, void *opaque)
{
    struct xlft_gate *g = calloc(1, sizeof(*g));

    *gp = NULL;
    if (!g)
        return -ENOMEM;
    g->max_bytes = lim && lim->max_bytes ? lim->max_bytes : 16u << 20;
    g->max_outputs = lim && lim->max_outputs ? lim->max_outputs : 65536;
    g->emit = emit;
    g->opaque = opaque;
    *gp = g;
    return 0;
}

void xlft_gate_free(struct xlft_gate *g)
{
    if (!g)
        return;
    while (g->head) {
        struct held *h = g->head;

        g->head = h->next;
        free(h);
    }
    free(g);
}

int xlft_gate_hold(struct xlft_gate *g, uint64_t seq, uint32_t kind,
                   uint64_t id, const void *data, size_t len)
{
    struct held *h;

    if (seq < g->last_seq || len > g->max_bytes)
        return -EINVAL;
    g->last_seq = seq;
    /* Open, and nothing older still waiting: straight out. */
    if (g->open && !g->head)
        return g->emit(g->opaque, kind, id, data, len);
    if (g->count + 1 > g->max_outputs || g->bytes + len > g->max_bytes)
        return -ENOBUFS;
    h = malloc(sizeof(*h) + len);
    if (!h)
        return -ENOMEM;
    h->next = NULL;
    h->seq = seq;
    h->id = id;
    h->kind = kind;
    h->len = len;
    if (len)
        memcpy(h->data, data, len);
    if (g->tail)
        g->tail->next = h;
    else
        g->head = h;
    g->tail = h;
    g->count++;
    g->bytes += len;
    return 0;
}

/* Emit from the head while 'ready' says so. */
static int drain(struct xlft_gate *g, bool all)
{
    int n = 0;

    while (g->head && (all || g->head->seq <= g->acked)) {
        struct held *h = g->head;
        int rc = g->emit(g->opaque, h->kind, h->id, h->data, h->len);

        if (rc)
            return rc;
        g->head = h->next;
        if (!g->head)
            g->tail = NULL;
        g->count--;
        g->bytes -= h->len;
        free(h);
        n++;
    }
    return n;
}

int xlft_gate_release(struct xlft_gate *g, uint64_t acked)
{
    if (acked > g->acked)
        g->acked = acked;
    return drain(g, g->open);
}

int xlft_gate_open(struct xlft_gate *g)
{
    g->open = true;
    return drain(g, true);
}

void xlft_gate_close(struct xlft_gate *g)
{
    g->open = false;
}

bool xlft_gate_is_open(const struct xlft_gate *g)
{
    return g->open;
}

size_t xlft_gate_held(const struct xlft_gate *g)
{
    return g->count;
}

uint64_t xlft_gate_next_seq(const struct xlft_gate *g)
{
    return g->head ? g->head->seq : UINT64_MAX;
}

size_t xlft_gate_held_bytes(const struct xlft_gate *g)
{
    return g->bytes;
}

uint64_t xlft_gate_acked(const struct xlft_gate *g)
{
    return g->acked;
}
