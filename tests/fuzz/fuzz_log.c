/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_log.c - libFuzzer target: the input is a stream of log records.
 *
 * 1. It is decoded record by record as a consumer would (ft_log_decode,
 *    ft_log_decode_head, ft_codec_advance), and with a NULL codec as
 *    ft_log_scan does, checking what hvm/core promises: a record's length
 *    does not depend on the codec state, a head never exceeds
 *    FT_LOG_HEAD_MAX, every strict prefix of a record is "more needed"
 *    rather than "malformed", and what the decoder accepts the encoder can
 *    write again with the same meaning.
 * 2. The same bytes go into a replay ring, in two publications, and are
 *    replayed by a vCPU that always does what the log says.  Such a vCPU
 *    must never diverge, and the replayer must hand out exactly the
 *    records the decoder sees, stopping where the decoder stops.
 * 3. The records decoded go through the recorder into a record ring,
 *    across the end of its data area, and must come out of the consumer
 *    side as exactly the bytes ft_log_encode writes for them.
 *
 * A broken invariant abort()s so that libFuzzer keeps the input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ft_log.h"
#include "ft_recorder.h"
#include "ft_replayer.h"
#include "ft_ring.h"
#include "records.h"
#define TEST_NAME "fuzz_log"
#include "testutil.h"

/* Rings have a tail page since ft_abi.h grew this; before, they had not. */
#ifndef FT_RING_MEM_SIZE
#define FT_RING_MEM_SIZE(data) (FT_RING_HDR_SIZE + (data))
#endif

/* Records whose every prefix length is tried; later ones get a sample. */
#define ALL_PREFIXES 8u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_point(const struct ft_point *a, const struct ft_point *b)
{
    return a->count == b->count && a->rip == b->rip && a->rcx == b->rcx;
}


/* A record is cut at 'len' bytes: the decoder must ask for more. */
static void check_prefix(const struct ft_codec *c, const uint8_t *p,
                         const struct ft_log_rec *r, uint32_t len)
{
    struct ft_log_rec t;

    if (len < r->head) {
        CHECK(ft_log_decode_head(c, p, len, &t) == FT_EMORE);
        CHECK(ft_log_decode(c, p, len, &t) == FT_EMORE);
    } else if (len < r->size) {
        /* Only DMA data can be missing once the head is there. */
        CHECK(r->kind == FT_K_DMA);
        CHECK(ft_log_decode_head(c, p, len, &t) == (int)r->size);
        CHECK(t.head == r->head && t.u.dma.data == NULL);
        CHECK(ft_log_decode(c, p, len, &t) == FT_EMORE);
    }
}

/* Record 'r', decoded from 'p' with state 'c', checked on its own. */
static void check_record(const struct ft_codec *c, const uint8_t *p,
                         const struct ft_log_rec *r, uint32_t index)
{
    uint8_t enc[FT_LOG_HEAD_MAX], enc2[FT_LOG_HEAD_MAX];
    struct ft_log_rec r2;
    struct ft_codec c1, c2;
    uint32_t dlen = r->kind == FT_K_DMA ? r->u.dma.len : 0;
    uint32_t len;
    int n, m;

    /* The consumer peeks FT_LOG_HEAD_MAX bytes to find any head. */
    CHECK(r->head >= 2 && r->head <= FT_LOG_HEAD_MAX);
    CHECK(r->size == r->head + dlen);
    if (r->kind == FT_K_DMA)
        CHECK(r->u.dma.data == p + r->head);

    /*
     * Whatever decodes can be encoded again.  Neither the same bytes nor
     * a length no greater is promised: the decoder also takes equivalent
     * forms (an over-long varint, an rcx delta of 0, ...), and when the
     * rip history holds one rip twice with different rcx values the
     * encoder's choice of slot can even cost a byte more.
     */
    n = ft_log_encode(c, r, enc);
    CHECK(n >= 2 && n <= (int)FT_LOG_HEAD_MAX);

    /* The encoder's form means the same, and is a fixed point. */
    m = ft_log_decode_head(c, enc, (uint32_t)n, &r2);
    CHECK(m == (int)(n + dlen) && r2.head == (uint32_t)n);
    CHECK(record_equal(r, &r2));
    CHECK(ft_log_encode(c, &r2, enc2) == n && !memcmp(enc, enc2, n));

    /*
     * Both forms move the state alike.  Compared as bytes, so that the
     * check does not depend on the struct's fields; both copies start
     * from the same bytes, padding included, and the update only stores
     * to members.
     */
    memcpy(&c1, c, sizeof(c1));
    memcpy(&c2, c, sizeof(c2));
    ft_codec_advance(&c1, r);
    ft_codec_advance(&c2, &r2);
    CHECK(!memcmp(&c1, &c2, sizeof(c1)));

    /* Cut anywhere, a record is incomplete, never malformed. */
    if (index < ALL_PREFIXES) {
        for (len = 0; len < r->size && len <= r->head; len++)
            check_prefix(c, p, r, len);
    } else {
        check_prefix(c, p, r, 1);
        check_prefix(c, p, r, r->head - 1);
        check_prefix(c, p, r, r->head);
    }
    if (dlen > 1)
        check_prefix(c, p, r, r->size - 1);
}

/* Part 1: the input as a stream, decoded with and without a codec. */
static void check_stream(const uint8_t *data, uint32_t size)
{
    struct ft_codec c;
    uint32_t off = 0, nrec = 0, zoff = 0, znrec = 0, scanned;
    int stop = FT_EMORE, zstop = FT_EMORE, n;

    ft_codec_init(&c);
    while (off < size) {
        const uint8_t *p = data + off;
        uint32_t left = size - off;
        struct ft_log_rec r, h, z;
        int nh = ft_log_decode_head(&c, p, left, &h);
        int nz = ft_log_decode(NULL, p, left, &z);

        n = ft_log_decode(&c, p, left, &r);
        CHECK(n != 0);

        /* decode is decode_head plus "the whole record is there". */
        if (nh > 0) {
            CHECK(h.head <= left && h.size >= h.head);
            if (h.kind != FT_K_DMA)
                CHECK(h.size == h.head);
            else if (h.size <= left)
                CHECK(h.u.dma.data == p + h.head);
            else
                CHECK(h.u.dma.data == NULL);
            CHECK(n == (h.size <= left ? nh : FT_EMORE));
        } else {
            CHECK(n == nh);
        }

        /*
         * A record's length never depends on the state, and without a
         * state the decoder can only be more permissive: it does not
         * know the size a repeated PIO or MMIO address had.
         */
        if (n > 0)
            CHECK(nz == n && z.kind == r.kind && z.head == r.head);
        else if (n == FT_EMORE)
            CHECK(nz == FT_EMORE);
        else
            CHECK(n == FT_EBADMSG);

        if (n < 0) {
            stop = n;
            break;
        }
        check_record(&c, p, &r, nrec);
        ft_codec_advance(&c, &r);
        off += (uint32_t)n;
        nrec++;
    }

    /* What ft_log_scan should find, computed the long way. */
    while (zoff < size) {
        struct ft_log_rec z;

        n = ft_log_decode(NULL, data + zoff, size - zoff, &z);
        if (n < 0) {
            zstop = n;
            break;
        }
        zoff += (uint32_t)n;
        znrec++;
    }
    n = ft_log_scan(data, size, &scanned);
    CHECK(scanned == znrec);
    if (zstop == FT_EMORE)
        CHECK(n == (int)zoff);
    else
        CHECK(n == zstop);

    /* Where the codec decoder stops for want of bytes, so does scan. */
    CHECK(off <= zoff && nrec <= znrec);
    if (stop == FT_EMORE)
        CHECK(n == (int)off && scanned == nrec);
}

/* The vCPU and what it checks the replayer against. */
struct vcpu {
    struct ft_replayer *rp;
    const struct ft_ring *ring;
    const uint8_t *data;         /* the input */
    uint32_t limit;              /* bytes of it published so far */
    uint32_t off;                /* bytes of it replayed so far */
    uint32_t nrec;               /* records replayed */
    uint64_t seq0;               /* replayer's sequence number at start */
    struct ft_codec codec;       /* a decoder running alongside */
    /* The DMA record being applied. */
    uint64_t dma_gpa;
    const uint8_t *dma_data;     /* its bytes in the input */
    uint32_t dma_len, dma_done, dma_calls;
};

static int dma_write(void *opaque, uint64_t gpa, const uint8_t *data,
                     uint32_t len)
{
    struct vcpu *v = opaque;
    const uint8_t *lo = v->ring->data, *hi = lo + v->ring->size;

    /* At most two pieces (the record may wrap), inside the data area. */
    CHECK(v->dma_calls < 2);
    CHECK(len > 0 && len <= v->dma_len - v->dma_done);
    CHECK(gpa == v->dma_gpa + v->dma_done);
    CHECK(data >= lo && data <= hi && len <= (uint32_t)(hi - data));
    CHECK(!memcmp(data, v->dma_data + v->dma_done, len));
    v->dma_done += len;
    v->dma_calls++;
    return 0;
}

/* The inputs a vCPU asking for 'want' would name (ft_replay_sync). */
static void make_io(const struct ft_log_rec *want, struct ft_log_rec *io)
{
    memset(io, 0, sizeof(*io));
    io->kind = want->kind;
    io->pt = want->pt;
    switch (want->kind) {
    case FT_K_MSR:
        io->u.msr.index = want->u.msr.index;
        break;
    case FT_K_PIO:
        io->u.pio.port = want->u.pio.port;
        io->u.pio.size = want->u.pio.size;
        break;
    case FT_K_MMIO:
        io->u.mmio.gpa = want->u.mmio.gpa;
        io->u.mmio.size = want->u.mmio.size;
        break;
    case FT_K_RAND:
        io->u.rand.seed = want->u.rand.seed;
        io->u.rand.size = want->u.rand.size;
        break;
    case FT_K_OUTPUT:
        io->u.output.id = want->u.output.id;
        break;
    default:
        break;
    }
}

/* Do what record 'want' says, as the vCPU would. */
static void obey(struct vcpu *v, const struct ft_log_rec *want)
{
    struct ft_point at = want->pt;
    struct ft_log_rec got;

    if (ft_log_kind_is_sync(want->kind)) {
        make_io(want, &got);
        CHECK(ft_replay_sync(v->rp, &at, &got) == FT_OK);
        CHECK(record_equal(&got, want));
        return;
    }

    /* A halted vCPU is woken at exactly the recorded point. */
    if (want->kind == FT_K_HLT_WAKE || want->kind == FT_K_EXTINT)
        CHECK(ft_replay_halted(v->rp, &at) == FT_OK);

    v->dma_gpa = want->u.dma.gpa;
    v->dma_len = want->kind == FT_K_DMA ? want->u.dma.len : 0;
    v->dma_data = v->data + v->off + want->head;
    v->dma_done = 0;
    v->dma_calls = 0;
    /* A string read's bytes: the instruction at the point asks for them. */
    if (want->kind == FT_K_DMA && want->u.dma.insn) {
        uint64_t items;

        CHECK(ft_replay_string(v->rp, &at, want->u.dma.gpa, 1,
                               want->u.dma.len, false, dma_write, v,
                               &items) == FT_OK);
        CHECK(items == want->u.dma.len && v->dma_done == v->dma_len);
        return;
    }
    CHECK(ft_replay_async(v->rp, &at, &got, dma_write, v) == FT_OK);
    CHECK(record_equal(&got, want));
    CHECK(v->dma_done == v->dma_len);
    if (want->kind == FT_K_SYNC)
        CHECK(ft_replay_check_hash(v->rp, &got, want->u.sync.hash) ==
              FT_OK);
}

static void check_diag_text(const struct ft_diag *d)
{
    static const size_t lens[] = { 1, 2, 9, 40, 256 };
    char buf[256];
    size_t i;

    for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        memset(buf, 'x', sizeof(buf));
        ft_diag_format(d, buf, lens[i]);
        CHECK(memchr(buf, '\0', lens[i]) != NULL);
    }
}

/*
 * Replay what has been published.  Returns FT_EAGAIN at the horizon or
 * the final error; checks each step against a decoder of the input.
 */
static int replay(struct vcpu *v)
{
    uint32_t step;

    /* Every record takes at least two bytes. */
    for (step = 0; step <= v->limit / 2 + 1; step++) {
        const struct ft_log_rec *next;
        struct ft_log_rec want;
        int rc = ft_replay_next(v->rp, &next);
        int n = ft_log_decode(&v->codec, v->data + v->off,
                              v->limit - v->off, &want);

        if (rc != FT_OK) {
            const struct ft_diag *d = ft_replay_diag(v->rp);

            CHECK(next == NULL);
            if (rc == FT_EAGAIN) {
                CHECK(n == FT_EMORE && v->off == v->limit);
                CHECK(d->reason == FT_DIAG_NONE);
                CHECK(ft_replay_drained(v->rp));
                return rc;
            }
            /*
             * A vCPU that obeys never diverges: only bad logs stop it,
             * and a record cut by the end of what was published is one
             * (the producer must publish whole records).
             */
            if (rc == FT_EPROTO)
                CHECK(n == FT_EMORE && v->off < v->limit);
            else
                CHECK(rc == FT_EBADMSG && n == FT_EBADMSG);
            CHECK(d->reason == FT_DIAG_MALFORMED && d->error == rc);
            CHECK(d->seq == v->seq0 + v->nrec + 1);
            CHECK(ft_ring_flags(v->ring) & FT_RING_F_BADLOG);
            CHECK(!(ft_ring_flags(v->ring) & FT_RING_F_DIVERGED));
            CHECK(!ft_replay_drained(v->rp));
            CHECK(ft_replay_next(v->rp, &next) == rc);
            check_diag_text(d);
            return rc;
        }
        CHECK(n > 0 && next != NULL);
        CHECK(record_equal(next, &want));
        CHECK(next->size == (uint32_t)n && next->head == want.head);

        obey(v, &want);
        ft_codec_advance(&v->codec, &want);
        v->off += (uint32_t)n;
        v->nrec++;
        CHECK(ft_replay_seq(v->rp) == v->seq0 + v->nrec);
    }
    CHECK(!"replay did not reach the horizon");
    return FT_EINVAL;
}

/* Part 2: the input through a replay ring and a replayer. */
static void check_replay(const uint8_t *data, uint32_t size)
{
    const uint32_t mem_size = FT_RING_MEM_SIZE(FT_RING_MIN_DATA);
    struct ft_ring cons, prod;
    struct ft_replayer rp;
    struct vcpu v;
    uint32_t n, split, nrec;
    bool stalled = false;
    uint8_t *mem = calloc(1, mem_size);
    int rc, s;

    CHECK(mem != NULL);
    /* The hypervisor owns a replay ring and consumes; ftd produces. */
    CHECK(ft_ring_init(&cons, mem, mem_size, FT_RING_REPLAY) == FT_OK);
    CHECK(ft_ring_set_kind(&cons, FT_COUNTER_STEPS, FT_CPU_FTVM) == FT_OK);
    CHECK(ft_ring_attach(&prod, mem, mem_size, FT_RING_REPLAY) == FT_OK);
    CHECK(cons.size == FT_RING_MIN_DATA);
    n = size < cons.size ? size : cons.size;

    /*
     * For even lengths, move both indices so that the middle of the
     * input lands on the end of the data area: heads and DMA data then
     * straddle the wrap.
     */
    if (n && n % 2 == 0) {
        uint32_t pad = cons.size - n / 2;

        CHECK(ft_ring_space(&prod) == (int)cons.size);
        ft_ring_publish(&prod, pad, 0);
        CHECK(!ft_ring_consume(&cons, pad, 0));
    }

    CHECK(ft_replay_init(&rp, &cons) == FT_OK);
    memset(&v, 0, sizeof(v));
    v.rp = &rp;
    v.ring = &cons;
    v.data = data;
    v.seq0 = ft_replay_seq(&rp);
    ft_codec_init(&v.codec);

    /*
     * First publication: the whole records (by structure) of the first
     * half, as ftd would publish them, so that the replayer meets an
     * empty ring, waits and is woken.
     */
    s = ft_log_scan(data, n / 2, &nrec);
    split = s > 0 ? (uint32_t)s : 0;
    if (s <= 0)
        nrec = 0;
    CHECK(ft_ring_space(&prod) == (int)cons.size);
    ft_ring_write(&prod, 0, data, split);
    ft_ring_publish(&prod, split, nrec);
    v.limit = split;
    rc = replay(&v);
    if (rc == FT_EAGAIN) {
        CHECK(v.off == split && ft_replay_drained(&rp));
        CHECK(ft_ring_wait(&cons) == FT_EAGAIN);
        CHECK(ft_ring_flags(&cons) & FT_RING_F_WAITING);
    }

    /* Second publication: the rest, whole records or not. */
    CHECK(ft_ring_space(&prod) >= (int)(n - split));
    ft_ring_write(&prod, 0, data + split, n - split);
    s = ft_log_scan(data + split, n - split, &nrec);
    ft_ring_publish(&prod, n - split, s > 0 ? nrec : 0);
    if (rc == FT_EAGAIN)
        CHECK(ft_ring_consumer_waiting(&prod));
    if (ft_ring_space(&prod) < (int)FT_LOG_HEAD_MAX) {
        /* Too full for another record: the producer stalls. */
        CHECK(ft_ring_stall(&prod, FT_LOG_HEAD_MAX) == FT_EFULL);
        stalled = true;
    }
    CHECK(!ft_replay_take_notify(&rp));
    if (rc == FT_EAGAIN) {
        uint32_t before = v.nrec;

        v.limit = n;
        rc = replay(&v);
        /* A record consumed while the producer is stalled wakes it. */
        CHECK(ft_replay_take_notify(&rp) == (stalled && v.nrec > before));
        CHECK(!ft_replay_take_notify(&rp));
    } else {
        /* Errors are final, whatever is published afterwards. */
        const struct ft_log_rec *next;

        CHECK(ft_replay_next(&rp, &next) == rc);
    }
    free(mem);
}

/* Part 3: the decoded records recorded again, through a record ring. */
static void check_recorder(const uint8_t *data, uint32_t size)
{
    static uint8_t out[FT_LOG_REC_MAX];
    const uint32_t mem_size = FT_RING_MEM_SIZE(FT_RING_MIN_DATA);
    struct ft_ring prod, cons;
    struct ft_recorder rec;
    struct ft_codec c;
    uint32_t off = 0, nrec = 0, pad;
    uint8_t *mem = calloc(1, mem_size);

    CHECK(mem != NULL);
    /* The hypervisor owns a record ring and produces; ftd consumes. */
    CHECK(ft_ring_init(&prod, mem, mem_size, FT_RING_RECORD) == FT_OK);
    CHECK(ft_ring_set_kind(&prod, FT_COUNTER_STEPS, FT_CPU_FTVM) == FT_OK);
    CHECK(ft_ring_attach(&cons, mem, mem_size, FT_RING_RECORD) == FT_OK);

    /* Start so that the middle of the input's records meets the end. */
    pad = prod.size - (size < prod.size ? size : prod.size) / 2;
    CHECK(ft_ring_space(&prod) == (int)prod.size);
    ft_ring_publish(&prod, pad, 0);
    CHECK(!ft_ring_consume(&cons, pad, 0));

    /* Zeroed first so that the states compare as bytes, padding too. */
    memset(&rec, 0, sizeof(rec));
    memset(&c, 0, sizeof(c));
    CHECK(ft_recorder_init(&rec, &prod) == FT_OK);
    ft_codec_init(&c);
    while (off < size) {
        uint8_t enc[FT_LOG_HEAD_MAX];
        struct ft_log_rec r;
        uint32_t dlen, got;
        bool notify;
        int n = ft_log_decode(&c, data + off, size - off, &r);

        if (n < 0)
            break;
        dlen = r.kind == FT_K_DMA ? r.u.dma.len : 0;
        CHECK(ft_record(&rec, &r) == FT_OK);
        CHECK(ft_recorder_seq(&rec) == nrec + 1);

        /* Exactly one record, the encoder's head and then the data. */
        n = ft_log_encode(&c, &r, enc);
        CHECK(n > 0);
        CHECK(ft_ring_read_records(&cons, out, sizeof(out), &got,
                                   &notify) == (int)(n + dlen));
        CHECK(got == 1 && !notify);
        CHECK(!memcmp(out, enc, n));
        CHECK(!dlen || !memcmp(out + n, r.u.dma.data, dlen));

        ft_codec_advance(&c, &r);
        CHECK(!memcmp(&rec.codec, &c, sizeof(c)));
        off += r.size;
        nrec++;
    }
    CHECK(ft_ring_avail(&cons) == 0);
    free(mem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The record API takes 32-bit lengths; fuzz inputs are far smaller. */
    uint32_t len = size > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)size;

    check_stream(data, len);
    check_replay(data, len);
    check_recorder(data, len);
    return 0;
}
