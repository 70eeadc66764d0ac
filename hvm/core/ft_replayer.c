/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ft_replayer.c - replay a log from the replay ring, stopping at the
 * first disagreement between the log and the vCPU.
 */
#include "ft_replayer.h"

static const struct ft_point no_point;
static const struct ft_diag no_diag;

/*
 * Describe why replay stops: 'log' is the record concerned (sequence
 * number 'seq', NULL if none could be decoded), 'at' what the vCPU did.
 */
static struct ft_diag *describe(struct ft_replayer *rp, uint32_t reason,
                                const struct ft_log_rec *log, uint64_t seq,
                                unsigned int vcpu_kind,
                                const struct ft_point *at)
{
    struct ft_diag *d = &rp->diag;

    d->seq = seq;
    d->reason = reason;
    d->log_kind = log ? log->kind : FT_K_NONE;
    d->log_pt = log ? log->pt : no_point;
    d->vcpu_kind = (uint8_t)vcpu_kind;
    d->vcpu_pt = at ? *at : no_point;
    d->param = FT_DIAG_P_NONE;
    d->log_val = 0;
    d->vcpu_val = 0;
    return d;
}

int ft_replay_init(struct ft_replayer *rp, struct ft_ring *ring)
{
    /* The codec state starts at the first record of a log, nowhere else. */
    if ( ring->seq )
        return FT_EINVAL;
    rp->ring = ring;
    ft_codec_init(&rp->codec);
    rp->have_next = false;
    rp->seq = 0;
    rp->sync_seq = 0;
    rp->error = 0;
    rp->notify = false;
    /* All of it, padding included: it is copied into the shared page. */
    rp->diag = no_diag;
    rp->diag.log_kind = rp->diag.vcpu_kind = FT_K_NONE;
    return FT_OK;
}

static inline bool same_point(const struct ft_point *a,
                              const struct ft_point *b)
{
    return a->count == b->count && a->rip == b->rip && a->rcx == b->rcx;
}

/* Stop replay for good and publish the diagnosis in the ring header. */
static int stop(struct ft_replayer *rp, int err)
{
    rp->error = err;
    rp->diag.error = err;
    rp->ring->hdr->diag = rp->diag;
    ft_ring_set_flags(rp->ring, err == FT_EDIVERGE ? FT_RING_F_DIVERGED
                                                   : FT_RING_F_BADLOG);
    return err;
}

/* The next record disagrees with what the vCPU did at 'at'. */
static int diverge(struct ft_replayer *rp, uint32_t reason,
                   unsigned int vcpu_kind, const struct ft_point *at)
{
    describe(rp, reason, &rp->next, rp->seq + 1, vcpu_kind, at);
    return stop(rp, FT_EDIVERGE);
}

static int mismatch(struct ft_replayer *rp, const struct ft_point *at,
                    unsigned int kind, unsigned int param,
                    uint64_t log_val, uint64_t vcpu_val)
{
    struct ft_diag *d = describe(rp, FT_DIAG_PARAM, &rp->next, rp->seq + 1,
                                 kind, at);

    d->param = (uint8_t)param;
    d->log_val = log_val;
    d->vcpu_val = vcpu_val;
    return stop(rp, FT_EDIVERGE);
}

static int malformed(struct ft_replayer *rp, int err)
{
    describe(rp, FT_DIAG_MALFORMED, NULL, rp->seq + 1, FT_K_NONE, NULL);
    return stop(rp, err);
}

/* Decode the next record if there is none pending. */
static int fill(struct ft_replayer *rp)
{
    uint8_t buf[FT_LOG_HEAD_MAX];
    int avail, rc;
    uint32_t n;

    if ( rp->error )
        return rp->error;
    if ( rp->have_next )
        return FT_OK;

    avail = ft_ring_avail(rp->ring);
    if ( avail < 0 )
        return malformed(rp, avail);
    if ( avail == 0 )
        return FT_EAGAIN;

    n = (uint32_t)avail < FT_LOG_HEAD_MAX ? (uint32_t)avail
                                          : FT_LOG_HEAD_MAX;
    ft_ring_peek(rp->ring, 0, buf, n);
    rc = ft_log_decode_head(&rp->codec, buf, n, &rp->next);
    /*
     * The producer publishes whole records only: a record that the
     * published bytes do not hold entirely breaks the ring's rules, and
     * waiting for the rest would wait for ever.
     */
    if ( rc == FT_EMORE ||
         (rc > 0 && rp->next.size > (uint32_t)avail) )
        return malformed(rp, FT_EPROTO);
    if ( rc < 0 )
        return malformed(rp, rc);
    if ( rp->next.kind == FT_K_DMA )
        rp->next.u.dma.data = NULL;  /* the data is read from the ring */
    rp->have_next = true;
    return FT_OK;
}

static void consume(struct ft_replayer *rp)
{
    if ( ft_ring_consume(rp->ring, rp->next.size, 1) )
        rp->notify = true;
    ft_codec_advance(&rp->codec, &rp->next);
    rp->seq++;
    if ( rp->next.kind == FT_K_SYNC )
        rp->sync_seq = rp->seq;
    rp->have_next = false;
}

int ft_replay_next(struct ft_replayer *rp, const struct ft_log_rec **next)
{
    int rc = fill(rp);

    *next = rc ? NULL : &rp->next;
    return rc;
}

/* Take the next record, at the vCPU's point: DMA writes its data first. */
static int take(struct ft_replayer *rp, const struct ft_point *at,
                struct ft_log_rec *ev, ft_dma_fn dma, void *opaque)
{
    const struct ft_log_rec *n = &rp->next;
    int rc;

    if ( n->kind == FT_K_DMA )
    {
        const uint8_t *p1, *p2;
        uint32_t l1, l2;

        ft_ring_span(rp->ring, n->head, n->u.dma.len, &p1, &l1, &p2, &l2);
        rc = dma(opaque, n->u.dma.gpa, p1, l1);
        if ( !rc && l2 )
            rc = dma(opaque, n->u.dma.gpa + l1, p2, l2);
        /* The secondary cannot do what the primary did: it diverges. */
        if ( rc )
            return mismatch(rp, at, n->kind, FT_DIAG_P_DMA, n->u.dma.gpa,
                            n->u.dma.gpa);
    }

    *ev = *n;
    consume(rp);
    return FT_OK;
}

int ft_replay_async(struct ft_replayer *rp, const struct ft_point *at,
                    struct ft_log_rec *ev, ft_dma_fn dma, void *opaque)
{
    const struct ft_log_rec *n = &rp->next;
    int rc = fill(rp);

    if ( rc )
        return rc;
    if ( ft_log_rec_is_sync(n) || (n->kind == FT_K_DMA && !dma) )
        return FT_EINVAL;
    if ( !same_point(at, &n->pt) )
        return diverge(rp, FT_DIAG_POINT, FT_K_NONE, at);
    return take(rp, at, ev, dma, opaque);
}

/* The parameters that identify a synchronous input must match. */
static int check_params(struct ft_replayer *rp, const struct ft_point *at,
                        const struct ft_log_rec *io)
{
    const struct ft_log_rec *n = &rp->next;

    switch ( n->kind )
    {
    case FT_K_MSR:
        if ( n->u.msr.index != io->u.msr.index )
            return mismatch(rp, at, io->kind, FT_DIAG_P_INDEX,
                            n->u.msr.index, io->u.msr.index);
        break;
    case FT_K_PIO:
        if ( n->u.pio.port != io->u.pio.port )
            return mismatch(rp, at, io->kind, FT_DIAG_P_PORT,
                            n->u.pio.port, io->u.pio.port);
        if ( n->u.pio.size != io->u.pio.size )
            return mismatch(rp, at, io->kind, FT_DIAG_P_SIZE,
                            n->u.pio.size, io->u.pio.size);
        break;
    case FT_K_MMIO:
        if ( n->u.mmio.gpa != io->u.mmio.gpa )
            return mismatch(rp, at, io->kind, FT_DIAG_P_GPA,
                            n->u.mmio.gpa, io->u.mmio.gpa);
        if ( n->u.mmio.size != io->u.mmio.size )
            return mismatch(rp, at, io->kind, FT_DIAG_P_SIZE,
                            n->u.mmio.size, io->u.mmio.size);
        break;
    case FT_K_RAND:
        if ( n->u.rand.seed != io->u.rand.seed )
            return mismatch(rp, at, io->kind, FT_DIAG_P_SEED,
                            n->u.rand.seed, io->u.rand.seed);
        if ( n->u.rand.size != io->u.rand.size )
            return mismatch(rp, at, io->kind, FT_DIAG_P_SIZE,
                            n->u.rand.size, io->u.rand.size);
        break;
    case FT_K_OUTPUT:
        if ( n->u.output.id != io->u.output.id )
            return mismatch(rp, at, io->kind, FT_DIAG_P_ID,
                            n->u.output.id, io->u.output.id);
        break;
    default:
        break;
    }
    return FT_OK;
}

int ft_replay_sync(struct ft_replayer *rp, const struct ft_point *at,
                   struct ft_log_rec *io)
{
    const struct ft_log_rec *n = &rp->next;
    int rc = fill(rp);

    if ( rc )
        return rc;
    if ( !ft_log_kind_is_sync(io->kind) )
        return FT_EINVAL;
    if ( n->kind != io->kind )
        return diverge(rp, FT_DIAG_KIND, io->kind, at);
    if ( !same_point(at, &n->pt) )
        return diverge(rp, FT_DIAG_POINT, io->kind, at);
    rc = check_params(rp, at, io);
    if ( rc )
        return rc;

    io->pt = n->pt;
    io->u = n->u;
    consume(rp);
    return FT_OK;
}

int ft_replay_string(struct ft_replayer *rp, const struct ft_point *at,
                     uint64_t gpa, uint32_t size, uint64_t reps, bool down,
                     ft_dma_fn dma, void *opaque, uint64_t *done)
{
    const struct ft_log_rec *n = &rp->next;
    struct ft_log_rec ev;
    uint64_t items, first;
    int rc = fill(rp);

    *done = 0;
    if ( rc )
        return rc;
    if ( !size || !dma || !reps )
        return FT_EINVAL;
    /*
     * The primary logs every string read into RAM, or stops: a device
     * model's DMA at this point is not this instruction's.
     */
    if ( n->kind != FT_K_DMA || !n->u.dma.insn )
        return diverge(rp, FT_DIAG_KIND, FT_K_STRING, at);
    if ( !same_point(at, &n->pt) )
        return diverge(rp, FT_DIAG_POINT, FT_K_STRING, at);

    /* Another instruction's bytes, or memory the vCPU never wrote. */
    items = n->u.dma.len / size;
    if ( n->u.dma.len % size || items > reps )
        return mismatch(rp, at, FT_K_STRING, FT_DIAG_P_SIZE, n->u.dma.len,
                        reps * size);
    first = down ? gpa - (items - 1) * size : gpa;
    if ( n->u.dma.gpa != first )
        return mismatch(rp, at, FT_K_STRING, FT_DIAG_P_GPA, n->u.dma.gpa,
                        first);

    rc = take(rp, at, &ev, dma, opaque);
    if ( !rc )
        *done = items;
    return rc;
}

int ft_replay_guard(struct ft_replayer *rp, const struct ft_point *at,
                    uint64_t skid, enum ft_guard *guard, uint64_t *target)
{
    const struct ft_log_rec *n = &rp->next;
    int rc = ft_replay_overrun(rp, at);

    *guard = FT_GUARD_NONE;
    *target = 0;
    if ( rc )
        return rc;
    if ( ft_log_rec_is_sync(n) )
        return FT_OK;
    if ( n->pt.count - at->count > skid )
    {
        *guard = FT_GUARD_COUNT;
        *target = n->pt.count - skid;
    }
    else
        *guard = FT_GUARD_STEP;
    return FT_OK;
}

int ft_replay_check_hash(struct ft_replayer *rp, const struct ft_log_rec *ev,
                         uint64_t actual)
{
    struct ft_diag *d;

    if ( rp->error )
        return rp->error;
    if ( ev->kind != FT_K_SYNC )
        return FT_EINVAL;
    if ( ev->u.sync.hash == actual )
        return FT_OK;

    /* The sync record, not the next one (nor the last consumed). */
    d = describe(rp, FT_DIAG_HASH, ev, rp->sync_seq, FT_K_SYNC, &ev->pt);
    d->log_val = ev->u.sync.hash;
    d->vcpu_val = actual;
    return stop(rp, FT_EDIVERGE);
}

int ft_replay_halted(struct ft_replayer *rp, const struct ft_point *at)
{
    const struct ft_log_rec *n = &rp->next;
    int rc = fill(rp);

    if ( rc )
        return rc;
    if ( ft_log_rec_is_sync(n) )
        return diverge(rp, FT_DIAG_KIND, FT_K_HALTED, at);
    if ( !same_point(at, &n->pt) )
        return diverge(rp, FT_DIAG_POINT, FT_K_HALTED, at);
    return FT_OK;
}

int ft_replay_overrun(struct ft_replayer *rp, const struct ft_point *at)
{
    const struct ft_log_rec *n = &rp->next;
    int rc = fill(rp);

    if ( rc )
        return rc;
    if ( at->count > n->pt.count )
        return diverge(rp, FT_DIAG_POINT, FT_K_NONE, at);
    return FT_OK;
}

bool ft_replay_drained(struct ft_replayer *rp)
{
    return !rp->error && !rp->have_next && ft_ring_avail(rp->ring) == 0;
}

bool ft_replay_take_notify(struct ft_replayer *rp)
{
    bool n = rp->notify;

    rp->notify = false;
    return n;
}

uint64_t ft_replay_seq(const struct ft_replayer *rp)
{
    return rp->seq;
}

const struct ft_diag *ft_replay_diag(const struct ft_replayer *rp)
{
    return &rp->diag;
}
