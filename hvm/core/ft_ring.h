/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ft_ring.h - single-producer single-consumer byte ring of log records
 * in shared memory (layout and rules: ft_abi.h).
 *
 * struct ft_ring is each side's private handle.  It keeps its own copy
 * of the sizes and of the index it owns, so nothing the other side
 * writes into the shared header can make this side access memory
 * outside the ring.
 *
 * Exported to dom0: ftd consumes the record ring and produces the
 * replay ring, libxlft attaches to both.
 */
#ifndef FT_RING_H
#define FT_RING_H

#include "ft_abi.h"
#include "ft_atomic.h"

struct ft_ring {
    struct ft_ring_hdr *hdr;
    uint8_t *data;
    uint32_t size;               /* data area, power of two */
    uint32_t prod;               /* producer: what it has published */
    uint32_t cons;               /* consumer: what it has consumed */
    uint32_t room;               /* producer: contiguous bytes known free */
    uint64_t seq;                /* last record published or consumed */
    uint32_t waiting;            /* FT_RING_F_* flag this side has set */
    uint32_t counter;            /* FT_COUNTER_*, as attached or set */
    uint32_t cpu;                /* FT_CPU_* */
};

/*
 * Owner side: lay out a ring in 'mem' ('mem_size' bytes, the header page
 * included; the data area is the largest power of two that fits, at least
 * FT_RING_MIN_DATA).  FT_EINVAL if it is too small or 'role' unknown.
 */
int ft_ring_init(struct ft_ring *r, void *mem, uint32_t mem_size,
                 uint32_t role);

/*
 * Owner side, before the ring is shared: what the points of its records
 * count (FT_COUNTER_*) and on which CPU (FT_CPU_*).  A ring left without
 * it says FT_CPU_UNKNOWN, which ft_ring_attach refuses.  FT_EINVAL for a
 * value not defined.  Apart from ft_ring_init because a hypervisor may
 * settle its counter only after laying the ring out.
 */
int ft_ring_set_kind(struct ft_ring *r, uint32_t counter, uint32_t cpu);

/* Whether 'counter' and 'cpu' are values of FT_COUNTER_* and FT_CPU_*. */
bool ft_kind_defined(uint32_t counter, uint32_t cpu);

/* "none", "branches", "steps"; "Intel", "AMD", "ftvm"; "?" if undefined. */
const char *ft_counter_name(uint32_t counter);
const char *ft_cpu_name(uint32_t cpu);

/*
 * Other side: check a ring laid out by ft_ring_init in 'mem' and take a
 * handle on it (r->counter and r->cpu say what its points count).
 * FT_EPROTONOSUPPORT for another ABI or log version, FT_EPROTO for a
 * header that does not describe a ring of this 'role' fitting in
 * 'mem_size' bytes, or whose counter or CPU is not defined.
 */
int ft_ring_attach(struct ft_ring *r, void *mem, uint32_t mem_size,
                   uint32_t role);

/* Producer. */

/* Bytes free, or FT_EPROTO if the consumer's index is impossible. */
static inline int ft_ring_space(struct ft_ring *r)
{
    uint32_t cons = ft_load_acquire(&r->hdr->cons);
    uint32_t space, contig;

    if ( r->prod - cons > r->size )
    {
        r->room = 0;
        return FT_EPROTO;
    }
    space = r->size - (r->prod - cons);
    contig = r->size - (r->prod & (r->size - 1));
    r->room = space < contig ? space : contig;
    return (int)space;
}

/*
 * True if 'len' free bytes are contiguous at ft_ring_next; false if not
 * (the caller then uses ft_ring_space and ft_ring_write).  Inline, as
 * are ft_ring_next and ft_ring_commit: they are on the path of every
 * record.
 */
static inline bool ft_ring_reserve(struct ft_ring *r, uint32_t len)
{
    /* 'room' can only understate: recompute it when it looks short. */
    return r->room >= len || (ft_ring_space(r) >= 0 && r->room >= len);
}

/* Where the next record goes. */
static inline uint8_t *ft_ring_next(const struct ft_ring *r)
{
    return r->data + (r->prod & (r->size - 1));
}

/*
 * Copy into the unpublished area, 'off' bytes past the last record.  The
 * producer publishes only what it checked was free (ft_ring_reserve or
 * ft_ring_space).
 */
void ft_ring_write(struct ft_ring *r, uint32_t off, const void *src,
                   uint32_t len);

static inline void ft_ring_publish_(struct ft_ring *r, uint32_t len,
                                    uint32_t nrec, bool reserved)
{
    struct ft_ring_hdr *h = r->hdr;
    uint32_t prod = r->prod + len;
    uint64_t seq = r->seq + nrec;

    r->prod = prod;
    r->seq = seq;
    if ( reserved )
        r->room -= len;
    else
        r->room = len <= r->room ? r->room - len : 0;
    ft_store64(&h->prod_seq, seq);
    ft_store_release(&h->prod, prod);
    if ( r->waiting )
    {
        ft_flag_clear(&h->flags, r->waiting);
        r->waiting = 0;
    }
}

/*
 * Make 'len' bytes holding 'nrec' whole records visible to the consumer,
 * bytes that ft_ring_space found free.
 */
static inline void ft_ring_publish(struct ft_ring *r, uint32_t len,
                                   uint32_t nrec)
{
    ft_ring_publish_(r, len, nrec, false);
}

/*
 * The same for at most the 'len' bytes the last ft_ring_reserve gave:
 * they are known contiguous, so the room left needs no clamping (the
 * record path saves its compare and select).
 */
static inline void ft_ring_commit(struct ft_ring *r, uint32_t len,
                                  uint32_t nrec)
{
    ft_ring_publish_(r, len, nrec, true);
}

/*
 * The ring has less than 'need' bytes free: mark the producer stalled.
 * Returns FT_OK if space appeared meanwhile (the flag is cleared again),
 * FT_EFULL if the producer must wait for the consumer's notification.
 */
int ft_ring_stall(struct ft_ring *r, uint32_t need);

/* True if the consumer has flagged that it waits for records. */
bool ft_ring_consumer_waiting(struct ft_ring *r);

/* Consumer. */

/*
 * Bytes published and not consumed, or FT_EPROTO.  A consumer that finds
 * some is awake and no longer asks to be woken (the flag is cleared): it
 * is to take them now.
 */
int ft_ring_avail(struct ft_ring *r);

/*
 * The same count for a consumer that only looks: the wait it asked for
 * stands, so that the producer's signal for those bytes still comes.
 */
int ft_ring_unread(const struct ft_ring *r);

/* Copy 'len' published bytes starting 'off' bytes past the consumer. */
void ft_ring_peek(const struct ft_ring *r, uint32_t off, void *dst,
                  uint32_t len);

/*
 * The same bytes without copying: one or two pieces (the second when the
 * range wraps; *len2 is 0 otherwise).
 */
void ft_ring_span(const struct ft_ring *r, uint32_t off, uint32_t len,
                  const uint8_t **p1, uint32_t *len1,
                  const uint8_t **p2, uint32_t *len2);

/*
 * Release 'len' bytes holding 'nrec' records.  Returns true if the
 * producer is stalled and must be notified.  This is where a consumer
 * learns of a stall: the flag is read after the release and a full
 * barrier, so a producer that stalls meanwhile is never missed, which
 * a separate look at the flag could not promise.
 */
bool ft_ring_consume(struct ft_ring *r, uint32_t len, uint32_t nrec);

/*
 * Copy out as many whole records as fit in 'cap' bytes (cap must be at
 * least FT_LOG_REC_MAX) and consume them.  Returns the bytes copied and
 * sets *nrec; *notify says whether to wake the producer.  FT_EBADMSG if
 * the ring holds a malformed record, FT_EPROTO if it holds a partial one.
 */
int ft_ring_read_records(struct ft_ring *r, uint8_t *dst, uint32_t cap,
                         uint32_t *nrec, bool *notify);

/*
 * No records: mark the consumer waiting.  FT_OK if records appeared
 * meanwhile (flag cleared), FT_EAGAIN if it must wait for a notification.
 */
int ft_ring_wait(struct ft_ring *r);

/* Either side. */
uint32_t ft_ring_flags(const struct ft_ring *r);
void ft_ring_set_flags(struct ft_ring *r, uint32_t bits);
void ft_ring_clear_flags(struct ft_ring *r, uint32_t bits);
void ft_ring_set_ack(struct ft_ring *r, uint64_t seq);
uint64_t ft_ring_ack(const struct ft_ring *r);
/* The consumer's position: the last record it has consumed (replayed). */
uint64_t ft_ring_cons_seq(const struct ft_ring *r);

#endif /* FT_RING_H */
