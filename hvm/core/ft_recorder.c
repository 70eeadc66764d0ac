/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ft_recorder.c - append records to the record ring.
 *
 * Records are encoded straight into the ring; only near the end of the
 * data area or of the free space does one go through a buffer.
 * The codec state advances only once a record is in the ring, so
 * FT_EFULL leaves everything as it was.
 *
 * append() is inlined into each per-kind call, where the kind is a
 * constant: the encoder's switch then folds away.
 */
#include "ft_log_impl.h"
#include "ft_recorder.h"

int ft_recorder_init(struct ft_recorder *rec, struct ft_ring *ring)
{
    if ( ring->seq )
        return FT_EINVAL;
    rec->ring = ring;
    ft_codec_init(&rec->codec);
    return FT_OK;
}

uint64_t ft_recorder_seq(const struct ft_recorder *rec)
{
    return rec->ring->seq;
}

/*
 * Near the end of the data area or of the free space, a record goes
 * through a buffer.  Rare, so out of line.  The record comes as words
 * rather than by address or value: either would make the common path
 * store the whole record on its stack first, to no use there.
 */
typedef char rec_words_fit[sizeof(((struct ft_log_rec *)0)->u) ==
                           sizeof(((struct ft_log_rec *)0)->u.w) ? 1 : -1];

static int __attribute__((__noinline__, __cold__))
append_slow(struct ft_recorder *rec, unsigned int kind,
            const struct ft_point *pt, uint64_t u0, uint64_t u1, uint64_t u2)
{
    struct ft_ring *ring = rec->ring;
    uint8_t head[FT_LOG_HEAD_MAX];
    struct ft_log_rec r;
    uint32_t dlen;
    int n, space;

    r.kind = (uint8_t)kind;
    r.pt = *pt;
    r.u.w[0] = u0;
    r.u.w[1] = u1;
    r.u.w[2] = u2;
    dlen = r.kind == FT_K_DMA ? r.u.dma.len : 0;
    n = ft_log_encode(&rec->codec, &r, head);
    if ( n < 0 )
        return n;
    space = ft_ring_space(ring);
    if ( space >= 0 && (uint32_t)space < n + dlen )
        space = ft_ring_stall(ring, n + dlen);
    if ( space < 0 )
        return space;
    ft_ring_write(ring, 0, head, (uint32_t)n);
    if ( dlen )
        ft_ring_write(ring, (uint32_t)n, r.u.dma.data, dlen);
    ft_ring_publish(ring, (uint32_t)n + dlen, 1);
    ft_codec_advance(&rec->codec, &r);
    return FT_OK;
}

static ft_always_inline int append(struct ft_recorder *rec,
                                   const struct ft_log_rec *r,
                                   const struct ft_point *pt)
{
    struct ft_ring *ring = rec->ring;
    uint32_t dlen = r->kind == FT_K_DMA ? r->u.dma.len : 0;
    int rc, slot;
    uint8_t *p;
    uint32_t n;

    /* Before any size is computed from it. */
    rc = ft_log_check_inline(&rec->codec, r);
    if ( rc < 0 )
        return rc;
    if ( dlen && !r->u.dma.data )
        return FT_EINVAL;

    if ( !ft_ring_reserve(ring, FT_LOG_HEAD_MAX + dlen) )
        return append_slow(rec, r->kind, pt, r->u.w[0], r->u.w[1],
                           r->u.w[2]);

    p = ft_ring_next(ring);
    slot = ft_rip_slot(&rec->codec, r->pt.rip);
    n = ft_log_encode_inline(&rec->codec, r, p, slot);
    if ( dlen )
        ft_ring_write(ring, n, r->u.dma.data, dlen);
    ft_ring_commit(ring, n + dlen, 1);
    ft_codec_advance_inline(&rec->codec, r, slot);
    return FT_OK;
}

int ft_record(struct ft_recorder *rec, const struct ft_log_rec *r)
{
    return append(rec, r, &r->pt);
}

static inline void at(struct ft_log_rec *r, unsigned int kind,
                      const struct ft_point *pt)
{
    r->kind = (uint8_t)kind;
    r->pt = *pt;
    /* Whole words go to append_slow, not only the kind's fields. */
    r->u.w[0] = r->u.w[1] = r->u.w[2] = 0;
}

int ft_record_extint(struct ft_recorder *rec, const struct ft_point *pt,
                     uint8_t vector, unsigned int src, bool timer)
{
    struct ft_log_rec r;

    at(&r, FT_K_EXTINT, pt);
    r.u.intr.vector = vector;
    r.u.intr.src = src < FT_INTR_NR ? (uint8_t)src : FT_INTR_NR;
    r.u.intr.timer = timer;
    return append(rec, &r, pt);
}

int ft_record_nmi(struct ft_recorder *rec, const struct ft_point *pt)
{
    struct ft_log_rec r;

    at(&r, FT_K_NMI, pt);
    return append(rec, &r, pt);
}

int ft_record_event(struct ft_recorder *rec, const struct ft_point *pt,
                    uint8_t type, uint8_t vector, uint8_t insn_len,
                    const uint32_t *errcode, const uint64_t *cr2)
{
    struct ft_log_rec r;

    at(&r, FT_K_EVENT, pt);
    r.u.event.type = type;
    r.u.event.vector = vector;
    r.u.event.insn_len = insn_len;
    r.u.event.has_errcode = errcode != NULL;
    r.u.event.errcode = errcode ? *errcode : 0;
    r.u.event.has_cr2 = cr2 != NULL;
    r.u.event.cr2 = cr2 ? *cr2 : 0;
    return append(rec, &r, pt);
}

int ft_record_tsc(struct ft_recorder *rec, const struct ft_point *pt,
                  uint64_t value)
{
    struct ft_log_rec r;

    at(&r, FT_K_TSC, pt);
    r.u.tsc.value = value;
    return append(rec, &r, pt);
}

int ft_record_msr(struct ft_recorder *rec, const struct ft_point *pt,
                  uint32_t index, uint64_t value)
{
    struct ft_log_rec r;

    at(&r, FT_K_MSR, pt);
    r.u.msr.index = index;
    r.u.msr.value = value;
    return append(rec, &r, pt);
}

int ft_record_pio(struct ft_recorder *rec, const struct ft_point *pt,
                  uint16_t port, uint8_t size, uint32_t value)
{
    struct ft_log_rec r;

    at(&r, FT_K_PIO, pt);
    r.u.pio.port = port;
    r.u.pio.size = size;
    r.u.pio.value = value;
    return append(rec, &r, pt);
}

int ft_record_mmio(struct ft_recorder *rec, const struct ft_point *pt,
                   uint64_t gpa, uint8_t size, uint64_t value)
{
    struct ft_log_rec r;

    at(&r, FT_K_MMIO, pt);
    r.u.mmio.gpa = gpa;
    r.u.mmio.size = size;
    r.u.mmio.value = value;
    return append(rec, &r, pt);
}

int ft_record_rand(struct ft_recorder *rec, const struct ft_point *pt,
                   bool seed, uint8_t size, uint64_t value)
{
    struct ft_log_rec r;

    at(&r, FT_K_RAND, pt);
    r.u.rand.seed = seed;
    r.u.rand.size = size;
    r.u.rand.value = value;
    return append(rec, &r, pt);
}

static int dma(struct ft_recorder *rec, const struct ft_point *pt,
               uint64_t gpa, const void *data, uint32_t len, bool insn)
{
    struct ft_log_rec r;

    at(&r, FT_K_DMA, pt);
    r.u.dma.gpa = gpa;
    r.u.dma.len = len;
    r.u.dma.data = data;
    r.u.dma.insn = insn;
    return append(rec, &r, pt);
}

int ft_record_dma(struct ft_recorder *rec, const struct ft_point *pt,
                  uint64_t gpa, const void *data, uint32_t len)
{
    return dma(rec, pt, gpa, data, len, false);
}

int ft_record_string(struct ft_recorder *rec, const struct ft_point *pt,
                     uint64_t gpa, const void *data, uint32_t len)
{
    return dma(rec, pt, gpa, data, len, true);
}

int ft_record_hlt_wake(struct ft_recorder *rec, const struct ft_point *pt)
{
    struct ft_log_rec r;

    at(&r, FT_K_HLT_WAKE, pt);
    return append(rec, &r, pt);
}

int ft_record_progress(struct ft_recorder *rec, const struct ft_point *pt)
{
    struct ft_log_rec r;

    at(&r, FT_K_PROGRESS, pt);
    return append(rec, &r, pt);
}

int ft_record_sync(struct ft_recorder *rec, const struct ft_point *pt,
                   uint64_t hash)
{
    struct ft_log_rec r;

    at(&r, FT_K_SYNC, pt);
    r.u.sync.hash = hash;
    return append(rec, &r, pt);
}

int ft_record_output(struct ft_recorder *rec, const struct ft_point *pt,
                     uint64_t id)
{
    struct ft_log_rec r;

    at(&r, FT_K_OUTPUT, pt);
    r.u.output.id = id;
    return append(rec, &r, pt);
}
