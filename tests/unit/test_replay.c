// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_replay.c - the replayer: a faithful vCPU replays a log to the
 * end; every way of leaving the recorded path is caught, diagnosed with
 * the right record, and final.
 */
#include <string.h>

#include "ft_recorder.h"
#include "ft_replayer.h"
#include "unit.h"

struct rig {
    void *mem;
    uint32_t mem_size;
    struct ft_ring own;          /* hypervisor: consumes (REPLAY) */
    struct ft_ring peer;         /* ftd: produces */
    struct ft_recorder rec;      /* writes the log into the ring */
    struct ft_replayer rp;
};

static void rig_new(struct rig *g)
{
    g->mem = ring_mem_new(FT_RING_MIN_DATA, &g->mem_size);
    CU_ASSERT_FATAL(g->mem != NULL);
    ASSERT_RC(ft_ring_init(&g->own, g->mem, g->mem_size, FT_RING_REPLAY),
              FT_OK);
    ASSERT_RC(ft_ring_set_kind(&g->own, FT_COUNTER_STEPS, FT_CPU_FTVM),
              FT_OK);
    ASSERT_RC(ft_ring_attach(&g->peer, g->mem, g->mem_size, FT_RING_REPLAY),
              FT_OK);
    ASSERT_RC(ft_recorder_init(&g->rec, &g->peer), FT_OK);
    ASSERT_RC(ft_replay_init(&g->rp, &g->own), FT_OK);
}

/* An execution point, as a pointer to a compound literal. */
#define P(count, rip, rcx) (&(struct ft_point){ (count), (rip), (rcx) })

/* Guest memory for DMA. */
static uint8_t guest[1 << 16];

static int dma_write(void *opaque, uint64_t gpa, const uint8_t *data,
                     uint32_t len)
{
    int *calls = opaque;

    if (gpa + len > sizeof(guest))
        return FT_EINVAL;
    memcpy(guest + gpa, data, len);
    (*calls)++;
    return FT_OK;
}

static void test_faithful(void)
{
    struct rig g;
    struct ft_log_rec io, ev;
    const struct ft_log_rec *next;
    uint8_t data[3000];
    int calls = 0;
    uint32_t moved = 0;

    rig_new(&g);
    for (unsigned int i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(i ^ 0x5a);

    /* Horizon: nothing logged yet. */
    ASSERT_RC(ft_replay_next(&g.rp, &next), FT_EAGAIN);
    CU_ASSERT_PTR_NULL(next);

    /* Push the ring's indices close to the end so the DMA wraps. */
    moved = FT_RING_MIN_DATA - 1500;
    g.peer.prod = g.peer.cons = moved;
    g.peer.room = 0;
    g.peer.hdr->prod = g.peer.hdr->cons = moved;
    g.own.prod = g.own.cons = moved;

    ASSERT_RC(ft_record_tsc(&g.rec, P(100, 0x1000, 0), 5000), FT_OK);
    ASSERT_RC(ft_record_pio(&g.rec, P(150, 0x1010, 0), 0x3fd, 1, 0x60),
              FT_OK);
    ASSERT_RC(ft_record_dma(&g.rec, P(200, 0x1020, 0), 0x100, data,
                            sizeof(data)), FT_OK);
    ASSERT_RC(ft_record_extint(&g.rec, P(200, 0x1020, 0), 0x20,
                               FT_INTR_PIC, true), FT_OK);
    ASSERT_RC(ft_record_mmio(&g.rec, P(260, 0x2000, 5), 0xfebf0008, 4,
                             0xdeadbeef), FT_OK);
    ASSERT_RC(ft_record_msr(&g.rec, P(270, 0x2004, 5), 0x10, 1ull << 40),
              FT_OK);
    ASSERT_RC(ft_record_rand(&g.rec, P(280, 0x2008, 5), true, 8,
                             0x0123456789abcdefull), FT_OK);
    ASSERT_RC(ft_record_output(&g.rec, P(290, 0x200c, 5), 1), FT_OK);
    ASSERT_RC(ft_record_sync(&g.rec, P(300, 0x2010, 5), 0xabcdef), FT_OK);
    ASSERT_RC(ft_record_hlt_wake(&g.rec, P(310, 0x2020, 0)), FT_OK);
    ASSERT_RC(ft_record_nmi(&g.rec, P(310, 0x2021, 0)), FT_OK);
    ASSERT_RC(ft_record_progress(&g.rec, P(400, 0x3000, 0)), FT_OK);

    /* The vCPU: a TSC read at exactly the recorded point. */
    ASSERT_RC(ft_replay_next(&g.rp, &next), FT_OK);
    CU_ASSERT_EQUAL(next->kind, FT_K_TSC);
    CU_ASSERT_EQUAL(next->pt.count, 100);
    memset(&io, 0, sizeof(io));
    io.kind = FT_K_TSC;
    ASSERT_RC(ft_replay_sync(&g.rp, P(100, 0x1000, 0), &io), FT_OK);
    CU_ASSERT_EQUAL(io.u.tsc.value, 5000);

    io.kind = FT_K_PIO;
    io.u.pio.port = 0x3fd;
    io.u.pio.size = 1;
    ASSERT_RC(ft_replay_sync(&g.rp, P(150, 0x1010, 0), &io), FT_OK);
    CU_ASSERT_EQUAL(io.u.pio.value, 0x60);

    /* DMA across the end of the ring: data arrives whole, in order. */
    ASSERT_RC(ft_replay_next(&g.rp, &next), FT_OK);
    CU_ASSERT_EQUAL(next->kind, FT_K_DMA);
    ASSERT_RC(ft_replay_async(&g.rp, P(200, 0x1020, 0), &ev, NULL, NULL),
              FT_EINVAL);
    ASSERT_RC(ft_replay_async(&g.rp, P(200, 0x1020, 0), &ev, dma_write,
                              &calls), FT_OK);
    CU_ASSERT_EQUAL(calls, 2);
    CU_ASSERT(memcmp(guest + 0x100, data, sizeof(data)) == 0);
    CU_ASSERT_EQUAL(ev.u.dma.len, sizeof(data));

    ASSERT_RC(ft_replay_async(&g.rp, P(200, 0x1020, 0), &ev, NULL, NULL),
              FT_OK);
    CU_ASSERT_EQUAL(ev.kind, FT_K_EXTINT);
    CU_ASSERT_EQUAL(ev.u.intr.vector, 0x20);
    CU_ASSERT_EQUAL(ev.u.intr.src, FT_INTR_PIC);
    CU_ASSERT(ev.u.intr.timer);

    io.kind = FT_K_MMIO;
    io.u.mmio.gpa = 0xfebf0008;
    io.u.mmio.size = 4;
    ASSERT_RC(ft_replay_sync(&g.rp, P(260, 0x2000, 5), &io), FT_OK);
    CU_ASSERT_EQUAL(io.u.mmio.value, 0xdeadbeef);
    io.kind = FT_K_MSR;
    io.u.msr.index = 0x10;
    ASSERT_RC(ft_replay_sync(&g.rp, P(270, 0x2004, 5), &io), FT_OK);
    CU_ASSERT_EQUAL(io.u.msr.value, 1ull << 40);
    io.kind = FT_K_RAND;
    io.u.rand.seed = true;
    io.u.rand.size = 8;
    ASSERT_RC(ft_replay_sync(&g.rp, P(280, 0x2008, 5), &io), FT_OK);
    CU_ASSERT_EQUAL(io.u.rand.value, 0x0123456789abcdefull);
    io.kind = FT_K_OUTPUT;
    io.u.output.id = 1;
    ASSERT_RC(ft_replay_sync(&g.rp, P(290, 0x200c, 5), &io), FT_OK);

    /* A synchronous record is not taken as an asynchronous event. */
    ASSERT_RC(ft_replay_async(&g.rp, P(300, 0x2010, 5), &ev, NULL, NULL),
              FT_OK);
    CU_ASSERT_EQUAL(ev.kind, FT_K_SYNC);
    ASSERT_RC(ft_replay_check_hash(&g.rp, &ev, 0xabcdef), FT_OK);

    /* Halted at the point of the wake-up: fine. */
    ASSERT_RC(ft_replay_halted(&g.rp, P(310, 0x2020, 0)), FT_OK);
    ASSERT_RC(ft_replay_async(&g.rp, P(310, 0x2020, 0), &ev, NULL, NULL),
              FT_OK);
    CU_ASSERT_EQUAL(ev.kind, FT_K_HLT_WAKE);
    ASSERT_RC(ft_replay_async(&g.rp, P(310, 0x2021, 0), &ev, NULL, NULL),
              FT_OK);
    CU_ASSERT_EQUAL(ev.kind, FT_K_NMI);
    CU_ASSERT(!ft_replay_drained(&g.rp));
    ASSERT_RC(ft_replay_async(&g.rp, P(400, 0x3000, 0), &ev, NULL, NULL),
              FT_OK);
    CU_ASSERT(ft_replay_drained(&g.rp));
    CU_ASSERT_EQUAL(ft_replay_seq(&g.rp), 12);
    ASSERT_RC(ft_replay_next(&g.rp, &next), FT_EAGAIN);
    CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->reason, FT_DIAG_NONE);
    CU_ASSERT_EQUAL(ft_ring_flags(&g.own) &
                    (FT_RING_F_DIVERGED | FT_RING_F_BADLOG), 0);
    free(g.mem);
}

/*
 * One divergence case: a log of a TSC read at 100 then a port read at
 * 200, and a vCPU that does something else at the second.
 */
struct dcase {
    const char *name;
    unsigned int vcpu_kind;      /* FT_K_HALTED: the vCPU halts */
    struct ft_point at;
    uint16_t port;
    uint8_t size;
    uint32_t reason;
    uint8_t param;
    const char *words;           /* expected in the formatted diagnosis */
};

static void run_case(const struct dcase *c)
{
    struct rig g;
    struct ft_log_rec io;
    const struct ft_diag *d;
    char text[256];
    int rc;

    rig_new(&g);
    ft_record_tsc(&g.rec, P(100, 0x1000, 0), 1);
    ft_record_pio(&g.rec, P(200, 0x1010, 3), 0x60, 1, 0x1c);

    memset(&io, 0, sizeof(io));
    io.kind = FT_K_TSC;
    ASSERT_RC(ft_replay_sync(&g.rp, P(100, 0x1000, 0), &io), FT_OK);

    memset(&io, 0, sizeof(io));
    io.kind = (uint8_t)c->vcpu_kind;
    io.u.pio.port = c->port;
    io.u.pio.size = c->size;
    if (c->vcpu_kind == FT_K_HALTED)
        rc = ft_replay_halted(&g.rp, &c->at);
    else
        rc = ft_replay_sync(&g.rp, &c->at, &io);
    ASSERT_RC(rc, FT_EDIVERGE);

    d = ft_replay_diag(&g.rp);
    CU_ASSERT_EQUAL(d->seq, 2);
    CU_ASSERT_EQUAL(d->reason, c->reason);
    CU_ASSERT_EQUAL(d->param, c->param);
    CU_ASSERT_EQUAL(d->log_kind, FT_K_PIO);
    CU_ASSERT_EQUAL(d->log_pt.count, 200);
    CU_ASSERT_EQUAL(d->log_pt.rcx, 3);
    CU_ASSERT_EQUAL(d->vcpu_kind, c->vcpu_kind);
    CU_ASSERT_EQUAL(d->vcpu_pt.count, c->at.count);
    CU_ASSERT_EQUAL(d->vcpu_pt.rip, c->at.rip);
    /* Published for dom0 too. */
    CU_ASSERT(ft_ring_flags(&g.peer) & FT_RING_F_DIVERGED);
    CU_ASSERT(memcmp(&g.peer.hdr->diag, d, sizeof(*d)) == 0);

    ft_diag_format(d, text, sizeof(text));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "record 2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, c->words));
    if (!strstr(text, c->words))
        fprintf(stderr, "\n%s: diagnosis was: %s\n", c->name, text);

    /* Final: the log cannot be resumed past a divergence. */
    io.kind = FT_K_PIO;
    io.u.pio.port = 0x60;
    io.u.pio.size = 1;
    ASSERT_RC(ft_replay_sync(&g.rp, P(200, 0x1010, 3), &io), FT_EDIVERGE);
    ASSERT_RC(ft_replay_next(&g.rp, &(const struct ft_log_rec *){ NULL }),
              FT_EDIVERGE);
    CU_ASSERT(!ft_replay_drained(&g.rp));
    free(g.mem);
}

static void test_divergence(void)
{
    static const struct dcase cases[] = {
        { "other kind", FT_K_TSC, { 200, 0x1010, 3 }, 0, 0,
          FT_DIAG_KIND, FT_DIAG_P_NONE, "vCPU did TSC read" },
        { "count early", FT_K_PIO, { 199, 0x1010, 3 }, 0x60, 1,
          FT_DIAG_POINT, FT_DIAG_P_NONE, "vCPU did port read at count=199" },
        { "count late", FT_K_PIO, { 201, 0x1010, 3 }, 0x60, 1,
          FT_DIAG_POINT, FT_DIAG_P_NONE, "count=201" },
        { "other rip", FT_K_PIO, { 200, 0x1011, 3 }, 0x60, 1,
          FT_DIAG_POINT, FT_DIAG_P_NONE, "rip=0x1011" },
        { "other rcx", FT_K_PIO, { 200, 0x1010, 2 }, 0x60, 1,
          FT_DIAG_POINT, FT_DIAG_P_NONE, "rcx=0x2" },
        { "other port", FT_K_PIO, { 200, 0x1010, 3 }, 0x64, 1,
          FT_DIAG_PARAM, FT_DIAG_P_PORT, "log has port 0x60, vCPU 0x64" },
        { "other size", FT_K_PIO, { 200, 0x1010, 3 }, 0x60, 2,
          FT_DIAG_PARAM, FT_DIAG_P_SIZE, "log has size 0x1, vCPU 0x2" },
        { "halted", FT_K_HALTED, { 200, 0x1010, 3 }, 0, 0,
          FT_DIAG_KIND, FT_DIAG_P_NONE, "vCPU halt at" },
    };

    for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_case(&cases[i]);
}

/* Parameters of the other synchronous kinds, and asynchronous points. */
static void test_divergence_kinds(void)
{
    struct rig g;
    struct ft_log_rec io, ev;
    const struct ft_diag *d;

    rig_new(&g);
    ft_record_mmio(&g.rec, P(1, 1, 1), 0xfee000b0, 4, 0);
    memset(&io, 0, sizeof(io));
    io.kind = FT_K_MMIO;
    io.u.mmio.gpa = 0xfee000b4;
    io.u.mmio.size = 4;
    ASSERT_RC(ft_replay_sync(&g.rp, P(1, 1, 1), &io), FT_EDIVERGE);
    CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->param, FT_DIAG_P_GPA);
    CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->log_val, 0xfee000b0);
    CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->vcpu_val, 0xfee000b4);
    free(g.mem);

    rig_new(&g);
    ft_record_msr(&g.rec, P(1, 1, 1), 0x10, 0);
    io.kind = FT_K_MSR;
    io.u.msr.index = 0x6e0;
    ASSERT_RC(ft_replay_sync(&g.rp, P(1, 1, 1), &io), FT_EDIVERGE);
    CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->param, FT_DIAG_P_INDEX);
    free(g.mem);

    rig_new(&g);
    ft_record_rand(&g.rec, P(1, 1, 1), false, 4, 9);
    io.kind = FT_K_RAND;
    io.u.rand.seed = true;
    io.u.rand.size = 4;
    ASSERT_RC(ft_replay_sync(&g.rp, P(1, 1, 1), &io), FT_EDIVERGE);
    CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->param, FT_DIAG_P_SEED);
    free(g.mem);

    rig_new(&g);
    ft_record_output(&g.rec, P(1, 1, 1), 41);
    io.kind = FT_K_OUTPUT;
    io.u.output.id = 42;
    ASSERT_RC(ft_replay_sync(&g.rp, P(1, 1, 1), &io), FT_EDIVERGE);
    CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->param, FT_DIAG_P_ID);
    free(g.mem);

    /* An interrupt delivered one instruction late. */
    rig_new(&g);
    ft_record_extint(&g.rec, P(50, 0x100, 0), 0x20, FT_INTR_PIC, false);
    ASSERT_RC(ft_replay_async(&g.rp, P(51, 0x102, 0), &ev, NULL, NULL),
              FT_EDIVERGE);
    d = ft_replay_diag(&g.rp);
    CU_ASSERT_EQUAL(d->reason, FT_DIAG_POINT);
    CU_ASSERT_EQUAL(d->log_kind, FT_K_EXTINT);
    CU_ASSERT_EQUAL(d->seq, 1);
    free(g.mem);

    /* Asking for an asynchronous event where the log has a read. */
    rig_new(&g);
    ft_record_tsc(&g.rec, P(50, 0x100, 0), 1);
    ASSERT_RC(ft_replay_async(&g.rp, P(50, 0x100, 0), &ev, NULL, NULL),
              FT_EINVAL);
    io.kind = FT_K_NMI;
    ASSERT_RC(ft_replay_sync(&g.rp, P(50, 0x100, 0), &io), FT_EINVAL);
    free(g.mem);
}

static void test_hash_mismatch(void)
{
    struct rig g;
    struct ft_log_rec ev;
    const struct ft_diag *d;
    char text[256];

    rig_new(&g);
    ft_record_nmi(&g.rec, P(10, 0x10, 0));
    ft_record_sync(&g.rec, P(20, 0x20, 0), 0x1111);
    ft_record_nmi(&g.rec, P(30, 0x30, 0));
    ASSERT_RC(ft_replay_async(&g.rp, P(10, 0x10, 0), &ev, NULL, NULL),
              FT_OK);
    ASSERT_RC(ft_replay_async(&g.rp, P(20, 0x20, 0), &ev, NULL, NULL),
              FT_OK);
    ASSERT_RC(ft_replay_check_hash(&g.rp, &ev, 0x2222), FT_EDIVERGE);
    d = ft_replay_diag(&g.rp);
    CU_ASSERT_EQUAL(d->reason, FT_DIAG_HASH);
    CU_ASSERT_EQUAL(d->seq, 2);
    CU_ASSERT_EQUAL(d->log_val, 0x1111);
    CU_ASSERT_EQUAL(d->vcpu_val, 0x2222);
    CU_ASSERT_EQUAL(d->log_pt.count, 20);
    ft_diag_format(d, text, sizeof(text));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "record 2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "0x2222"));
    ASSERT_RC(ft_replay_async(&g.rp, P(30, 0x30, 0), &ev, NULL, NULL),
              FT_EDIVERGE);
    free(g.mem);
}

static void test_malformed_in_ring(void)
{
    struct rig g;
    const struct ft_log_rec *next;
    struct ft_log_rec ev;
    char text[128];
    uint8_t bad[] = { 0x0d, 0, 0 };

    rig_new(&g);
    ft_record_nmi(&g.rec, P(1, 1, 1));
    ft_ring_write(&g.peer, 0, bad, sizeof(bad));
    ft_ring_publish(&g.peer, sizeof(bad), 1);
    ASSERT_RC(ft_replay_async(&g.rp, P(1, 1, 1), &ev, NULL, NULL), FT_OK);
    ASSERT_RC(ft_replay_next(&g.rp, &next), FT_EBADMSG);
    CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->reason, FT_DIAG_MALFORMED);
    CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->seq, 2);
    CU_ASSERT(ft_ring_flags(&g.peer) & FT_RING_F_BADLOG);
    ft_diag_format(ft_replay_diag(&g.rp), text, sizeof(text));
    CU_ASSERT_STRING_EQUAL(text, "malformed log at record 2: "
                                 "malformed record");
    /* A tiny buffer still gets a terminated, truncated line. */
    ft_diag_format(ft_replay_diag(&g.rp), text, 8);
    CU_ASSERT_STRING_EQUAL(text, "malform");
    free(g.mem);

    /* A DMA that cannot be applied stops replay too. */
    rig_new(&g);
    uint8_t data[16] = { 0 };
    int calls = 0;
    ft_record_dma(&g.rec, P(1, 1, 1), sizeof(guest) - 8, data, 16);
    ASSERT_RC(ft_replay_async(&g.rp, P(1, 1, 1), &ev, dma_write, &calls),
              FT_EDIVERGE);
    CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->param, FT_DIAG_P_DMA);
    CU_ASSERT(ft_ring_flags(&g.peer) & FT_RING_F_DIVERGED);
    ASSERT_RC(ft_replay_next(&g.rp, &next), FT_EDIVERGE);
    free(g.mem);

    /* Half a record published (against the rules) is an error, not a
     * reason to wait for ever. */
    uint8_t half[] = { FT_K_TSC | 0x10, 0x85 };
    rig_new(&g);
    ft_ring_write(&g.peer, 0, half, sizeof(half));
    ft_ring_publish(&g.peer, sizeof(half), 1);
    ASSERT_RC(ft_replay_next(&g.rp, &next), FT_EPROTO);
    CU_ASSERT(ft_ring_flags(&g.peer) & FT_RING_F_BADLOG);
    free(g.mem);
    /* Likewise a DMA head whose data is not all there. */
    uint8_t cut[] = { FT_K_DMA | 0x10, 0, 0x10, 4, 1, 2 };
    rig_new(&g);
    ft_ring_write(&g.peer, 0, cut, sizeof(cut));
    ft_ring_publish(&g.peer, sizeof(cut), 1);
    ASSERT_RC(ft_replay_next(&g.rp, &next), FT_EPROTO);
    free(g.mem);
}

/* The diagnosis names the right record and leaks nothing. */
static void test_diag_details(void)
{
    struct rig g;
    struct ft_log_rec ev, io;
    const struct ft_diag *d;

    /* A sync record followed by progress at the same point: the hash is
     * checked after both are consumed, and the sync one is named. */
    rig_new(&g);
    ft_record_sync(&g.rec, P(5, 0x50, 0), 0xaaaa);
    ft_record_progress(&g.rec, P(5, 0x50, 0));
    ASSERT_RC(ft_replay_async(&g.rp, P(5, 0x50, 0), &ev, NULL, NULL),
              FT_OK);
    struct ft_log_rec sync = ev;
    ASSERT_RC(ft_replay_async(&g.rp, P(5, 0x50, 0), &ev, NULL, NULL),
              FT_OK);
    ASSERT_RC(ft_replay_check_hash(&g.rp, &sync, 0xbbbb), FT_EDIVERGE);
    CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->seq, 1);
    /* Errors are final for every call, a misuse included. */
    memset(&io, 0, sizeof(io));
    io.kind = FT_K_NMI;
    ASSERT_RC(ft_replay_sync(&g.rp, P(5, 0x50, 0), &io), FT_EDIVERGE);
    free(g.mem);

    /* The shared page gets the diagnosis and nothing else: padding from
     * the hypervisor's memory must not reach dom0. */
    rig_new(&g);
    memset(&g.rp, 0xa5, sizeof(g.rp));
    ASSERT_RC(ft_replay_init(&g.rp, &g.own), FT_OK);
    ft_record_nmi(&g.rec, P(9, 0x90, 0));
    ASSERT_RC(ft_replay_async(&g.rp, P(8, 0x90, 0), &ev, NULL, NULL),
              FT_EDIVERGE);
    d = &g.own.hdr->diag;
    CU_ASSERT_EQUAL(d->reason, FT_DIAG_POINT);
    for (unsigned int i = 0; i < sizeof(d->pad); i++)
        CU_ASSERT_EQUAL(d->pad[i], 0);
    free(g.mem);

    /* A vCPU that ran past a synchronous record without asking for it. */
    rig_new(&g);
    ft_record_tsc(&g.rec, P(100, 0x10, 0), 1);
    ASSERT_RC(ft_replay_overrun(&g.rp, P(99, 0x30, 0)), FT_OK);
    ASSERT_RC(ft_replay_overrun(&g.rp, P(100, 0x10, 0)), FT_OK);
    ASSERT_RC(ft_replay_overrun(&g.rp, P(101, 0x12, 0)), FT_EDIVERGE);
    d = ft_replay_diag(&g.rp);
    CU_ASSERT_EQUAL(d->reason, FT_DIAG_POINT);
    CU_ASSERT_EQUAL(d->log_kind, FT_K_TSC);
    CU_ASSERT_EQUAL(d->vcpu_pt.count, 101);
    free(g.mem);

    /* A log starts at its first record: no replayer or recorder half-way. */
    rig_new(&g);
    ft_record_nmi(&g.rec, P(1, 1, 1));
    ASSERT_RC(ft_replay_async(&g.rp, P(1, 1, 1), &ev, NULL, NULL), FT_OK);
    ASSERT_RC(ft_replay_init(&g.rp, &g.own), FT_EINVAL);
    ASSERT_RC(ft_recorder_init(&g.rec, &g.peer), FT_EINVAL);
    free(g.mem);
}

/* The replayer frees space the producer waits for, and says so. */
static void test_notify_producer(void)
{
    struct rig g;
    struct ft_log_rec ev;
    uint64_t n = 0;

    rig_new(&g);
    while (ft_record_nmi(&g.rec, P(n, 0x10, 0)) == FT_OK)
        n++;
    CU_ASSERT(ft_ring_flags(&g.own) & FT_RING_F_STALLED);
    CU_ASSERT(!ft_replay_take_notify(&g.rp));
    ASSERT_RC(ft_replay_async(&g.rp, P(0, 0x10, 0), &ev, NULL, NULL),
              FT_OK);
    CU_ASSERT(ft_replay_take_notify(&g.rp));
    CU_ASSERT(!ft_replay_take_notify(&g.rp));
    free(g.mem);
}

/*
 * A string read into RAM takes the DMA record logged at its point only if
 * the record holds whole items of it, no more than it asked for, where it
 * writes them.
 */
static void test_string_read(void)
{
    static const struct {
        const char *name;
        uint64_t gpa;            /* the vCPU's first item */
        uint32_t size;
        uint64_t reps;
        bool down;
        int rc;
        uint64_t done;
        uint8_t param;
    } cases[] = {
        { "as logged", 0x400, 2, 8, false, FT_OK, 8, FT_DIAG_P_NONE },
        { "fewer than asked", 0x400, 2, 100, false, FT_OK, 8,
          FT_DIAG_P_NONE },
        { "downwards", 0x40e, 2, 8, true, FT_OK, 8, FT_DIAG_P_NONE },
        { "more than asked", 0x400, 2, 7, false, FT_EDIVERGE, 0,
          FT_DIAG_P_SIZE },
        { "not whole items", 0x400, 3, 8, false, FT_EDIVERGE, 0,
          FT_DIAG_P_SIZE },
        { "elsewhere", 0x402, 2, 8, false, FT_EDIVERGE, 0,
          FT_DIAG_P_GPA },
        { "downwards, elsewhere", 0x400, 2, 8, true, FT_EDIVERGE, 0,
          FT_DIAG_P_GPA },
    };
    uint8_t data[16];

    for (unsigned int i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(0xa0 + i);
    for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct rig g;
        uint64_t done = 99;
        int calls = 0, rc;

        rig_new(&g);
        memset(guest, 0, sizeof(guest));
        ASSERT_RC(ft_record_string(&g.rec, P(50, 0x1000, 8), 0x400, data,
                                   sizeof(data)), FT_OK);
        rc = ft_replay_string(&g.rp, P(50, 0x1000, 8), cases[i].gpa,
                              cases[i].size, cases[i].reps, cases[i].down,
                              dma_write, &calls, &done);
        if (rc != cases[i].rc)
            fprintf(stderr, "\n  case '%s': rc %d\n", cases[i].name, rc);
        CU_ASSERT_EQUAL(rc, cases[i].rc);
        CU_ASSERT_EQUAL(done, cases[i].done);
        if (rc == FT_OK) {
            CU_ASSERT(memcmp(guest + 0x400, data, sizeof(data)) == 0);
            CU_ASSERT(ft_replay_drained(&g.rp));
        } else {
            CU_ASSERT_EQUAL(calls, 0);
            CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->param, cases[i].param);
            CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->seq, 1);
        }
        free(g.mem);
    }

    /*
     * Nothing of its own at its point: the string read diverges, whether
     * its DMA is elsewhere or the device model's DMA is there instead.
     */
    for (int dm = 0; dm < 2; dm++) {
        struct rig g;
        uint64_t done = 99;
        int calls = 0, rc;

        rig_new(&g);
        rc = dm ? ft_record_dma(&g.rec, P(50, 0x1000, 8), 0x400, data,
                                sizeof(data))
                : ft_record_string(&g.rec, P(51, 0x1000, 8), 0x400, data,
                                   sizeof(data));
        ASSERT_RC(rc, FT_OK);
        ASSERT_RC(ft_replay_string(&g.rp, P(50, 0x1000, 8), 0x400, 2, 8,
                                   false, dma_write, &calls, &done),
                  FT_EDIVERGE);
        CU_ASSERT_EQUAL(done, 0);
        CU_ASSERT_EQUAL(calls, 0);
        CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->vcpu_kind, FT_K_STRING);
        CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->reason,
                        dm ? FT_DIAG_KIND : FT_DIAG_POINT);
        free(g.mem);
    }
}

/*
 * A string read's DMA is the instruction's to take: never delivered at
 * its point before the guest runs on, as the device model's DMA is, and
 * no halted vCPU waits for it.
 */
static void test_string_not_async(void)
{
    const struct ft_log_rec *next;
    struct ft_log_rec ev;
    enum ft_guard guard;
    uint64_t target, done;
    uint8_t data[4] = { 1, 2, 3, 4 };
    struct rig g;
    int calls = 0;

    rig_new(&g);
    ASSERT_RC(ft_record_string(&g.rec, P(50, 0x1000, 8), 0x400, data,
                               sizeof(data)), FT_OK);
    ASSERT_RC(ft_replay_next(&g.rp, &next), FT_OK);
    CU_ASSERT(ft_log_rec_is_sync(next));
    ASSERT_RC(ft_replay_guard(&g.rp, P(40, 0x800, 0), 4, &guard, &target),
              FT_OK);
    CU_ASSERT_EQUAL(guard, FT_GUARD_NONE);
    ASSERT_RC(ft_replay_async(&g.rp, P(50, 0x1000, 8), &ev, dma_write,
                              &calls), FT_EINVAL);
    CU_ASSERT_EQUAL(calls, 0);
    ASSERT_RC(ft_replay_string(&g.rp, P(50, 0x1000, 8), 0x400, 1, 8, false,
                               dma_write, &calls, &done), FT_OK);
    CU_ASSERT_EQUAL(done, 4);
    CU_ASSERT(ft_replay_drained(&g.rp));
    free(g.mem);

    rig_new(&g);
    ASSERT_RC(ft_record_string(&g.rec, P(50, 0x1000, 8), 0x400, data,
                               sizeof(data)), FT_OK);
    ASSERT_RC(ft_replay_halted(&g.rp, P(50, 0x1000, 8)), FT_EDIVERGE);
    free(g.mem);
}

/*
 * A point the vCPU halted past is a divergence, however near: a primary
 * counting steps logs none where its copy cannot stop (the boundary in
 * STI's shadow, Xen series patch 14), so the copy never has to guess.
 */
static void test_progress_past_hlt(void)
{
    struct rig g;

    rig_new(&g);
    ASSERT_RC(ft_record_progress(&g.rec, P(100, 0x1025a2, 16)), FT_OK);
    ASSERT_RC(ft_replay_halted(&g.rp, P(101, 0x1025a3, 16)), FT_EDIVERGE);
    free(g.mem);

    rig_new(&g);
    ASSERT_RC(ft_record_extint(&g.rec, P(100, 0x1025a2, 16), 32,
                               FT_INTR_PIC, false), FT_OK);
    ASSERT_RC(ft_replay_halted(&g.rp, P(101, 0x1025a3, 16)), FT_EDIVERGE);
    free(g.mem);

    rig_new(&g);
    ASSERT_RC(ft_record_hlt_wake(&g.rec, P(101, 0x1025a3, 16)), FT_OK);
    ASSERT_RC(ft_replay_halted(&g.rp, P(101, 0x1025a3, 16)), FT_OK);
    free(g.mem);
}

/*
 * After an event, the vCPU is guarded toward the next record as before
 * one: by the count while far, by steps when near, even at the point it
 * took the event at; a synchronous record needs no guard.
 */
static void test_guard(void)
{
    struct rig g;
    struct ft_log_rec ev;
    enum ft_guard guard;
    uint64_t target;

    rig_new(&g);
    ASSERT_RC(ft_record_extint(&g.rec, P(100, 0x1000, 0), 0x20,
                               FT_INTR_PIC, false), FT_OK);
    ASSERT_RC(ft_record_extint(&g.rec, P(100, 0x1000, 0), 0x21,
                               FT_INTR_PIC, false), FT_OK);
    ASSERT_RC(ft_record_extint(&g.rec, P(1000, 0x2000, 0), 0x22,
                               FT_INTR_PIC, false), FT_OK);
    ASSERT_RC(ft_record_tsc(&g.rec, P(1010, 0x2004, 0), 77), FT_OK);

    /* Within the skid of the first record: steps; further: the count. */
    ASSERT_RC(ft_replay_guard(&g.rp, P(0, 0x500, 0), 128, &guard, &target),
              FT_OK);
    CU_ASSERT_EQUAL(guard, FT_GUARD_STEP);
    ASSERT_RC(ft_replay_guard(&g.rp, P(0, 0x500, 0), 50, &guard, &target),
              FT_OK);
    CU_ASSERT_EQUAL(guard, FT_GUARD_COUNT);
    CU_ASSERT_EQUAL(target, 50);
    ASSERT_RC(ft_replay_guard(&g.rp, P(60, 0x500, 0), 50, &guard, &target),
              FT_OK);
    CU_ASSERT_EQUAL(guard, FT_GUARD_STEP);

    /* The first event taken: the second, at the same point, by steps. */
    ASSERT_RC(ft_replay_async(&g.rp, P(100, 0x1000, 0), &ev, NULL, NULL),
              FT_OK);
    ASSERT_RC(ft_replay_guard(&g.rp, P(100, 0x1000, 0), 50, &guard,
                              &target), FT_OK);
    CU_ASSERT_EQUAL(guard, FT_GUARD_STEP);
    ASSERT_RC(ft_replay_async(&g.rp, P(100, 0x1000, 0), &ev, NULL, NULL),
              FT_OK);
    /* The second taken: the third is far, by the count. */
    ASSERT_RC(ft_replay_guard(&g.rp, P(100, 0x1000, 0), 50, &guard,
                              &target), FT_OK);
    CU_ASSERT_EQUAL(guard, FT_GUARD_COUNT);
    CU_ASSERT_EQUAL(target, 950);
    ASSERT_RC(ft_replay_async(&g.rp, P(1000, 0x2000, 0), &ev, NULL, NULL),
              FT_OK);
    /* A TSC read: the vCPU asks for it. */
    ASSERT_RC(ft_replay_guard(&g.rp, P(1000, 0x2000, 0), 50, &guard,
                              &target), FT_OK);
    CU_ASSERT_EQUAL(guard, FT_GUARD_NONE);
    /* Past it: a divergence. */
    ASSERT_RC(ft_replay_guard(&g.rp, P(1011, 0x2008, 0), 50, &guard,
                              &target), FT_EDIVERGE);
    CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->reason, FT_DIAG_POINT);
    CU_ASSERT_EQUAL(ft_replay_diag(&g.rp)->seq, 4);
    free(g.mem);

    /* At the horizon, nothing to guard toward. */
    rig_new(&g);
    ASSERT_RC(ft_replay_guard(&g.rp, P(0, 0x500, 0), 50, &guard, &target),
              FT_EAGAIN);
    free(g.mem);
}

void register_replay_tests(void)
{
    CU_pSuite s = CU_add_suite("replayer", NULL, NULL);

    CU_add_test(s, "a faithful vCPU replays every kind", test_faithful);
    CU_add_test(s, "divergence: kind, point, parameters, halt",
                test_divergence);
    CU_add_test(s, "divergence: MMIO, MSR, RAND, output, interrupt",
                test_divergence_kinds);
    CU_add_test(s, "divergence: state hash", test_hash_mismatch);
    CU_add_test(s, "malformed log and failed DMA stop replay",
                test_malformed_in_ring);
    CU_add_test(s, "stalled producer is notified", test_notify_producer);
    CU_add_test(s, "a string read takes only a DMA record that fits",
                test_string_read);
    CU_add_test(s, "a string read's DMA is not delivered asynchronously",
                test_string_not_async);
    CU_add_test(s, "a point the vCPU halted past diverges",
                test_progress_past_hlt);
    CU_add_test(s, "after an event, the vCPU is guarded to the next record",
                test_guard);
    CU_add_test(s, "diagnosis: right record, no leak, overrun",
                test_diag_details);
}
