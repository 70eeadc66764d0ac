/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_gate.h - the output rule: an output the outside world can see (a
 * transmitted frame, a disk write, console bytes) leaves the primary only
 * once the secondary holds every log record up to the one at which the
 * output was produced.  Then, whatever happens to the primary, the
 * secondary can reproduce the output: nobody ever sees an output that
 * the surviving copy does not explain.
 *
 * The gate holds outputs in the order they were produced, each tagged
 * with its record sequence number and output id, and emits them through
 * a callback as acknowledgements arrive.  Its memory is bounded: a full
 * gate refuses new outputs with -ENOBUFS and the producer waits (the
 * guest stalls; nothing is dropped).  When the secondary is lost the
 * gate is opened: what it holds is emitted and new outputs pass at
 * once, until it is closed again by a new secondary.
 *
 * Not thread-safe: one thread holds, releases and emits.
 */
#ifndef XLFT_GATE_H
#define XLFT_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xlft_gate;

/*
 * Emit one output: 0, or -errno to keep it held and try again at the
 * next release (say, -EAGAIN from a full device queue).
 */
typedef int (*xlft_gate_emit_fn)(void *opaque, uint32_t kind, uint64_t id,
                                 const void *data, size_t len);

struct xlft_gate_limits {
    size_t max_bytes;       /* data held at most (0: 16 MiB) */
    size_t max_outputs;     /* outputs held at most (0: 65536) */
};

int xlft_gate_new(struct xlft_gate **g, const struct xlft_gate_limits *lim,
                  xlft_gate_emit_fn emit, void *opaque);
void xlft_gate_free(struct xlft_gate *g);

/*
 * An output produced at record 'seq' (never below an earlier output's).
 * Open gate: emitted now (its result returned).  -ENOBUFS if the limits
 * would be passed, -EINVAL if 'seq' goes backwards or 'len' alone is
 * larger than the byte limit, -ENOMEM.
 */
int xlft_gate_hold(struct xlft_gate *g, uint64_t seq, uint32_t kind,
                   uint64_t id, const void *data, size_t len);

/*
 * The secondary holds every record up to 'acked': emit, in order, the
 * outputs tagged up to it.  The number emitted, or the first emit error
 * (that output and those after it stay held).  'acked' below an earlier
 * one is ignored: acknowledgements never go back.
 */
int xlft_gate_release(struct xlft_gate *g, uint64_t acked);

/* Unprotected: emit everything held, pass new outputs at once. */
int xlft_gate_open(struct xlft_gate *g);
/* Protected again (a new secondary holds the log from here). */
void xlft_gate_close(struct xlft_gate *g);
bool xlft_gate_is_open(const struct xlft_gate *g);

size_t xlft_gate_held(const struct xlft_gate *g);         /* outputs */
/* The record the oldest held output waits for; UINT64_MAX if none. */
uint64_t xlft_gate_next_seq(const struct xlft_gate *g);
size_t xlft_gate_held_bytes(const struct xlft_gate *g);
uint64_t xlft_gate_acked(const struct xlft_gate *g);

#endif /* XLFT_GATE_H */
