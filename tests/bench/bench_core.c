/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_core.c - what hvm/core costs: log bytes per record of each kind,
 * log traffic of an idle guest against VMware FT's published figures,
 * and the time to append a typical record.
 *
 *   bench-core [--kv FILE]     print the table; figures as "key value"
 *                              lines into FILE (run-core.sh merges them)
 *   bench-core --callgrind N   only append N typical records, for
 *                              callgrind to count the instructions
 *                              inside ft_record_tsc and ft_record_extint
 *
 * Every record goes through the real recorder into a real ring, and the
 * bytes counted are the bytes a consumer takes out of that ring, so the
 * figures are what ftd would put on the logging channel.  All streams
 * come from a seeded PRNG: two runs print the same sizes.
 *
 * The rcx of a point is the guest's RCX, as the hooks pass it: at an
 * arbitrary instruction any kernel or user value, at a fixed call site
 * usually what it was the last time there (the same code path), and
 * inside a REP string instruction the remaining count.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ft_recorder.h"
#include "ft_ring.h"
#define TEST_NAME "bench-core"
#include "testutil.h"

#define RING_MEM        (FT_RING_HDR_SIZE + FT_RING_DEFAULT_DATA)
#define READ_CAP        (256u << 10)    /* ft_ring_read_records buffer */

#define TSC_HZ          3000000000ull   /* 3 GHz */
#define JITTER_MAX      60000u          /* 20 us of delivery jitter */
#define IDLE_SECONDS    60u
#define TARGET_BYTES_PER_TICK 16.0

/* Guest addresses the streams use (a Linux x86-64 guest). */
#define KTEXT           0xffffffff81000000ull  /* kernel text, 16 MiB */
#define UTEXT           0x0000555555554000ull  /* a program's text, 4 MiB */
#define UHEAP           0x000055555d000000ull  /* its heap, 64 MiB */
#define RIP_HLT         0xffffffff81e3c5d4ull  /* idle loop: sti; hlt */
#define RIP_TICK_RDTSC  0xffffffff8103a1b2ull  /* timer handler's RDTSC */
#define E1000_BAR       0xfebc0000ull

/* Append cost: batches small enough to stay in cache, rounds to take the
 * median of, so that one preempted round does not move the figure. */
#define BATCH           4096u
#define ROUNDS          5u
#define ROUND_RECORDS   (256u * BATCH)         /* ~1M appends a round */

static const char *kv_path;
static FILE *kv_file;

/* Plain decimals only: results.json takes these strings as they are. */
static void kv(const char *key, unsigned int decimals, double v)
{
    if (!kv_file)
        return;
    if (!(v > -1e15 && v < 1e15))
        die("figure %s is not a finite number", key);
    fprintf(kv_file, "%s %.*f\n", key, (int)decimals, v);
}

/* --- deterministic PRNG (splitmix64) -------------------------------- */

struct rnd {
    uint64_t s;
};

static uint64_t rnd_next(struct rnd *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]; the modulo bias is far below what matters here. */
static uint64_t rnd_range(struct rnd *r, uint64_t lo, uint64_t hi)
{
    return lo + rnd_next(r) % (hi - lo + 1);
}

/* True with probability pct/100. */
static bool rnd_pct(struct rnd *r, unsigned int pct)
{
    return rnd_next(r) % 100 < pct;
}

/* --- a ring with the recorder on one side and a consumer on the other */

struct sink {
    void *mem;
    struct ft_ring prod, cons;   /* two handles, as Xen and ftd hold */
    struct ft_recorder rec;
    uint8_t *buf;
    uint64_t appended, drained;  /* records */
    uint64_t bytes;              /* taken out by the consumer */
};

static void sink_init(struct sink *s)
{
    int rc;

    memset(s, 0, sizeof(*s));
    s->mem = aligned_alloc(4096, RING_MEM);
    s->buf = malloc(READ_CAP);
    if (!s->mem || !s->buf)
        die("out of memory");
    rc = ft_ring_init(&s->prod, s->mem, RING_MEM, FT_RING_RECORD);
    if (rc == FT_OK)
        rc = ft_ring_set_kind(&s->prod, FT_COUNTER_BRANCHES, FT_CPU_INTEL);
    if (rc == FT_OK)
        rc = ft_ring_attach(&s->cons, s->mem, RING_MEM, FT_RING_RECORD);
    if (rc == FT_OK)
        rc = ft_recorder_init(&s->rec, &s->prod);
    if (rc != FT_OK)
        die("ring set-up: %s", ft_strerror(rc));
}

static void sink_fini(struct sink *s)
{
    free(s->mem);
    free(s->buf);
}

/* Take every record out as ftd does: copied, scanned, counted. */
static void sink_drain(struct sink *s)
{
    for (;;) {
        uint32_t nrec;
        bool notify;
        int n = ft_ring_read_records(&s->cons, s->buf, READ_CAP, &nrec,
                                     &notify);

        if (n < 0)
            die("ft_ring_read_records: %s", ft_strerror(n));
        /* notify is moot: the producer retries as soon as this
         * returns. */
        if (n == 0)
            return;
        s->bytes += (uint64_t)n;
        s->drained += nrec;
    }
}

/* Release everything without looking at it: the cheapest consumer, so
 * that the append timing is not dominated by the other side. */
static void sink_discard(struct sink *s)
{
    int avail = ft_ring_avail(&s->cons);

    if (avail < 0)
        die("ft_ring_avail: %s", ft_strerror(avail));
    ft_ring_consume(&s->cons, (uint32_t)avail,
                    (uint32_t)(s->appended - s->drained));
    s->bytes += (uint64_t)avail;
    s->drained = s->appended;
}

/* One record through the per-kind entry point a hypervisor hook calls. */
static inline int record_one(struct ft_recorder *rec,
                             const struct ft_log_rec *r)
{
    const struct ft_point *pt = &r->pt;

    switch (r->kind) {
    case FT_K_EXTINT:
        return ft_record_extint(rec, pt, r->u.intr.vector, r->u.intr.src,
                                r->u.intr.timer);
    case FT_K_NMI:
        return ft_record_nmi(rec, pt);
    case FT_K_EVENT:
        return ft_record_event(rec, pt, r->u.event.type,
                               r->u.event.vector, r->u.event.insn_len,
                               r->u.event.has_errcode ?
                               &r->u.event.errcode : NULL,
                               r->u.event.has_cr2 ? &r->u.event.cr2 : NULL);
    case FT_K_TSC:
        return ft_record_tsc(rec, pt, r->u.tsc.value);
    case FT_K_MSR:
        return ft_record_msr(rec, pt, r->u.msr.index, r->u.msr.value);
    case FT_K_PIO:
        return ft_record_pio(rec, pt, r->u.pio.port, r->u.pio.size,
                             r->u.pio.value);
    case FT_K_MMIO:
        return ft_record_mmio(rec, pt, r->u.mmio.gpa, r->u.mmio.size,
                              r->u.mmio.value);
    case FT_K_RAND:
        return ft_record_rand(rec, pt, r->u.rand.seed, r->u.rand.size,
                              r->u.rand.value);
    case FT_K_DMA:
        return ft_record_dma(rec, pt, r->u.dma.gpa, r->u.dma.data,
                             r->u.dma.len);
    case FT_K_HLT_WAKE:
        return ft_record_hlt_wake(rec, pt);
    case FT_K_PROGRESS:
        return ft_record_progress(rec, pt);
    case FT_K_SYNC:
        return ft_record_sync(rec, pt, r->u.sync.hash);
    case FT_K_OUTPUT:
        return ft_record_output(rec, pt, r->u.output.id);
    default:
        return FT_EINVAL;
    }
}

static void sink_append(struct sink *s, const struct ft_log_rec *r)
{
    int rc;

    while ((rc = record_one(&s->rec, r)) == FT_EFULL) {
        uint64_t before = s->drained;

        sink_drain(s);
        if (s->drained == before)
            die("ring full and nothing to drain");
    }
    if (rc != FT_OK)
        die("recording a %s: %s", ft_log_kind_name(r->kind),
            ft_strerror(rc));
    s->appended++;
}

/* Drain the rest and check that every record came out whole. */
static void sink_finish(struct sink *s)
{
    sink_drain(s);
    if (s->drained != s->appended)
        die("%" PRIu64 " records appended, %" PRIu64 " read back",
            s->appended, s->drained);
}

/* --- 1. one stream per kind ------------------------------------------ */

/* What the guest is doing while a stream is generated. */
struct guest {
    struct rnd rnd;
    struct ft_point pt;
    uint64_t tsc;
    uint64_t n;                  /* records generated */
    uint64_t id;                 /* output id */
    unsigned int pending;        /* UART busy polls / e1000 stats reads */
    uint64_t rx_gpa[256];        /* e1000 receive buffers */
    uint8_t frame[1514];
};

static void guest_init(struct guest *g, uint64_t seed)
{
    memset(g, 0, sizeof(*g));
    g->rnd.s = seed;
    /* Start an hour into the guest's life, as a protected VM would. */
    g->tsc = 3600 * TSC_HZ;
    g->pt.count = 3600 * 400000000ull;
    g->pt.rip = RIP_HLT;
    for (unsigned int i = 0; i < 256; i++)
        g->rx_gpa[i] = (rnd_range(&g->rnd, 0x1000, 0xbffff) << 12) |
                       ((uint64_t)(i & 1) << 11);
    for (unsigned int i = 0; i < sizeof(g->frame); i++)
        g->frame[i] = (uint8_t)rnd_next(&g->rnd);
}

static void advance(struct guest *g, uint64_t lo, uint64_t hi)
{
    g->pt.count += rnd_range(&g->rnd, lo, hi);
}

/* Somewhere in the kernel or in a user program. */
static uint64_t anywhere(struct guest *g)
{
    if (rnd_pct(&g->rnd, 60))
        return KTEXT + rnd_range(&g->rnd, 0, (16u << 20) - 1);
    return UTEXT + rnd_range(&g->rnd, 0, (4u << 20) - 1);
}

/* Whatever a register holds at an arbitrary instruction. */
static uint64_t any_rcx(struct rnd *r)
{
    if (rnd_pct(r, 30))
        return rnd_range(r, 0, 255);
    return 0xffff888000000000ull + rnd_range(r, 0, (1u << 30) - 1);
}

/* The point of an asynchronous event: any instruction, now and then in
 * the middle of a REP MOVS/STOS, whose remaining count is RCX. */
static void async_point(struct guest *g, uint64_t lo, uint64_t hi)
{
    advance(g, lo, hi);
    g->pt.rip = anywhere(g);
    g->pt.rcx = rnd_pct(&g->rnd, 5) ? rnd_range(&g->rnd, 1, 4096)
                                     : any_rcx(&g->rnd);
}

/* A synchronous event at one of a few call sites: RCX as it was the last
 * time at this site nine times out of ten. */
static void at_site(struct guest *g, uint64_t lo, uint64_t hi,
                    uint64_t rip)
{
    advance(g, lo, hi);
    if (g->pt.rip != rip || rnd_pct(&g->rnd, 10))
        g->pt.rcx = any_rcx(&g->rnd);
    g->pt.rip = rip;
}

/* e1000 MSI (0x41) and LAPIC timer (0xec) on a guest under network
 * load; 40% arrive in the idle loop's HLT. */
static void gen_extint(struct guest *g, struct ft_log_rec *r)
{
    if (rnd_pct(&g->rnd, 40))
        at_site(g, 2000, 200000, RIP_HLT);
    else
        async_point(g, 2000, 200000);
    r->u.intr.vector = rnd_pct(&g->rnd, 70) ? 0x41 : 0xec;
}

/* Perf/watchdog NMI about once a second of a busy vCPU. */
static void gen_nmi(struct guest *g, struct ft_log_rec *r)
{
    (void)r;
    async_point(g, 200000000, 400000000);
}

/* Exceptions injected into a user program: mostly page faults. */
static void gen_event(struct guest *g, struct ft_log_rec *r)
{
    static const uint32_t pf_err[] = { 0x4, 0x6, 0x7, 0x14 };

    at_site(g, 1000, 50000, anywhere(g));
    r->u.event.type = 3;             /* X86_EVENTTYPE_HW_EXCEPTION */
    r->u.event.insn_len = 0;
    r->u.event.has_errcode = true;
    if (rnd_pct(&g->rnd, 90)) {
        r->u.event.vector = 14;
        r->u.event.errcode = pf_err[rnd_next(&g->rnd) % 4];
        r->u.event.has_cr2 = true;
        r->u.event.cr2 = UHEAP + rnd_range(&g->rnd, 0, (64u << 20) - 1);
    } else {
        r->u.event.vector = 13;
        r->u.event.errcode = 0;
        r->u.event.has_cr2 = false;
        r->u.event.cr2 = 0;
    }
}

/* sched_clock()/ktime_get() of a busy guest from four call sites; the
 * TSC runs 3 to 6 cycles per conditional branch, plus stalls. */
static void gen_tsc(struct guest *g, struct ft_log_rec *r)
{
    uint64_t before = g->pt.count;

    at_site(g, 200, 20000,
               KTEXT + 0x3a000 + 0x40 * rnd_range(&g->rnd, 0, 3));
    g->tsc += (g->pt.count - before) * rnd_range(&g->rnd, 3, 6) +
              rnd_range(&g->rnd, 0, 3000);
    r->u.tsc.value = g->tsc;
}

/* RDMSR of the x2APIC timer's current count and of the TSC. */
static void gen_msr(struct guest *g, struct ft_log_rec *r)
{
    uint64_t before = g->pt.count;
    bool tmcct = rnd_pct(&g->rnd, 70);

    at_site(g, 500, 50000, KTEXT + (tmcct ? 0x61a30 : 0x3a200));
    g->tsc += (g->pt.count - before) * 4;
    r->u.msr.index = tmcct ? 0x839 : 0x10;
    r->u.msr.value = tmcct ? rnd_range(&g->rnd, 0, 0x3fffff) : g->tsc;
}

/* Serial console output: the 8250 driver polls LSR (0x3fd) until THR is
 * empty before each byte; 0 to 2 busy polls per byte. */
static void gen_pio(struct guest *g, struct ft_log_rec *r)
{
    bool busy = g->pending > 0;

    if (busy) {
        g->pending--;
        at_site(g, 6, 12, KTEXT + 0x7b1c40);
    } else {
        at_site(g, 30, 80, KTEXT + 0x7b1c40);
    }
    r->u.pio.port = 0x3fd;
    r->u.pio.size = 1;
    r->u.pio.value = busy ? 0x00 : 0x60;
    if (!busy)
        g->pending = (unsigned int)rnd_range(&g->rnd, 0, 2);
}

/* e1000: ICR read by every interrupt; every 100th interrupt the
 * watchdog also reads STATUS and the statistics counters. */
static void gen_mmio(struct guest *g, struct ft_log_rec *r)
{
    static const uint32_t stats[] = {
        0x0008, 0x4074, 0x4080, 0x4088, 0x408c, 0x4090, 0x4094, 0x40d0,
    };
    static const uint32_t icr[] = { 0x80, 0x81, 0x83, 0x01, 0x03 };
    const unsigned int nstats = sizeof(stats) / sizeof(stats[0]);

    r->u.mmio.size = 4;
    if (g->pending) {
        unsigned int i = nstats - g->pending--;

        at_site(g, 8, 20, KTEXT + 0x8c3000 + 0x10 * i);
        r->u.mmio.gpa = E1000_BAR + stats[i];
        if (stats[i] == 0x0008)
            r->u.mmio.value = 0x80080783;          /* link up, 1 Gb/s */
        else if (stats[i] == 0x408c || stats[i] == 0x4094)
            r->u.mmio.value = 0;                   /* high halves */
        else
            r->u.mmio.value = rnd_range(&g->rnd, 0, 1u << 20);
        return;
    }
    at_site(g, 10000, 200000, KTEXT + 0x8c1e80);
    r->u.mmio.gpa = E1000_BAR + 0xc0;
    r->u.mmio.value = icr[rnd_next(&g->rnd) % 5];
    if (++g->n % 100 == 0)
        g->pending = nstats;
}

/* RDRAND refilling the kernel's CRNG, RDSEED now and then. */
static void gen_rand(struct guest *g, struct ft_log_rec *r)
{
    r->u.rand.seed = rnd_pct(&g->rnd, 5);
    at_site(g, 100, 5000, KTEXT + (r->u.rand.seed ? 0x2f100 : 0x2f0c0));
    r->u.rand.size = 8;
    r->u.rand.value = rnd_next(&g->rnd);
}

/* e1000 receive: full-size Ethernet frames into a ring of 256 buffers,
 * applied when the completion is delivered. */
static void gen_dma(struct guest *g, struct ft_log_rec *r)
{
    async_point(g, 5000, 100000);
    r->u.dma.gpa = g->rx_gpa[g->n++ % 256];
    r->u.dma.len = sizeof(g->frame);
    r->u.dma.data = g->frame;
}

/* The idle loop's HLT resumed without an event. */
static void gen_hlt_wake(struct guest *g, struct ft_log_rec *r)
{
    (void)r;
    at_site(g, 40, 400, RIP_HLT);
}

/* A horizon mark about every millisecond of a busy vCPU. */
static void gen_progress(struct guest *g, struct ft_log_rec *r)
{
    (void)r;
    async_point(g, 300000, 600000);
}

/* A state hash about every 100 ms. */
static void gen_sync(struct guest *g, struct ft_log_rec *r)
{
    async_point(g, 30000000, 60000000);
    r->u.sync.hash = rnd_next(&g->rnd);
}

/* Network transmits (e1000 TDT doorbell) and disk writes (AHCI PxCI),
 * numbered consecutively. */
static void gen_output(struct guest *g, struct ft_log_rec *r)
{
    at_site(g, 1000, 100000,
               KTEXT + (rnd_pct(&g->rnd, 80) ? 0x8c2a10 : 0x91d350));
    r->u.output.id = ++g->id;
}

struct stream {
    unsigned int kind;
    const char *key;             /* core_bytes_per_record_<key> */
    const char *what;
    uint32_t nrec;
    void (*gen)(struct guest *g, struct ft_log_rec *r);
    uint32_t data;               /* payload bytes copied verbatim */
};

static const struct stream streams[] = {
    { FT_K_EXTINT, "extint", "e1000 MSI + LAPIC timer", 200000,
      gen_extint, 0 },
    { FT_K_NMI, "nmi", "watchdog NMI, ~1/s", 200000, gen_nmi, 0 },
    { FT_K_EVENT, "event", "#PF (cr2, errcode), #GP", 200000,
      gen_event, 0 },
    { FT_K_TSC, "tsc", "RDTSC from 4 kernel sites", 200000, gen_tsc, 0 },
    { FT_K_MSR, "msr", "x2APIC TMCCT, IA32_TSC", 200000, gen_msr, 0 },
    { FT_K_PIO, "pio", "UART LSR polls (0x3fd)", 200000, gen_pio, 0 },
    { FT_K_MMIO, "mmio", "e1000 ICR + stats regs", 200000, gen_mmio, 0 },
    { FT_K_RAND, "rand", "RDRAND/RDSEED 64-bit", 200000, gen_rand, 0 },
    { FT_K_DMA, "dma", "1514-byte rx frames", 20000, gen_dma, 1514 },
    { FT_K_HLT_WAKE, "hlt_wake", "idle HLT wake-ups", 200000,
      gen_hlt_wake, 0 },
    { FT_K_PROGRESS, "progress", "horizon mark, ~1/ms", 200000,
      gen_progress, 0 },
    { FT_K_SYNC, "sync", "state hash, ~10/s", 200000, gen_sync, 0 },
    { FT_K_OUTPUT, "output", "net tx + disk writes", 200000,
      gen_output, 0 },
};

#define NSTREAMS (sizeof(streams) / sizeof(streams[0]))

static void bench_kinds(void)
{
    static struct guest g;
    struct sink s;
    double head = 0;
    char key[64];

    printf("1. Log bytes per record, by kind (through ft_record_*)\n\n");
    printf("   %-19s %-26s %7s %9s\n", "kind", "stream", "records",
           "bytes/rec");
    sink_init(&s);
    for (unsigned int i = 0; i < NSTREAMS; i++) {
        const struct stream *st = &streams[i];
        double avg;

        if (st->kind != i)
            die("stream table out of order at %s", st->key);
        /* A fresh log per kind: no state carried over from another. */
        sink_fini(&s);
        sink_init(&s);
        guest_init(&g, 0x5eed0000 + st->kind);
        for (uint32_t n = 0; n < st->nrec; n++) {
            struct ft_log_rec r;

            memset(&r, 0, sizeof(r));
            r.kind = (uint8_t)st->kind;
            st->gen(&g, &r);
            r.pt = g.pt;
            sink_append(&s, &r);
        }
        sink_finish(&s);
        avg = (double)s.bytes / st->nrec;
        printf("   %-19s %-26s %7" PRIu32 " %9.3f\n", ft_log_kind_name(i),
               st->what, st->nrec, avg);
        if (st->data)
            head = avg - st->data;
        snprintf(key, sizeof(key), "core_bytes_per_record_%s", st->key);
        kv(key, 3, avg);
    }
    sink_fini(&s);
    printf("   (a DMA record is %.3f bytes besides the data it carries)\n\n",
           head);
}

/* --- 2. the idle guest ----------------------------------------------- */

/*
 * Each timer tick of an idle guest: the interrupt is delivered at the
 * idle loop's HLT (the vCPU was halted, so that point does not move),
 * then the handler reads the TSC 40 to 400 branches later, then the rest
 * of the handler and the way back into the idle loop take 400 to 4000
 * branches.  The interrupt arrives 0 to 20 us after the tick is due.
 */
struct idle {
    struct rnd rnd;
    uint64_t hz;
    uint64_t tick;
    uint64_t tsc0;
    uint64_t wake_tsc;           /* when this tick's interrupt arrived */
    struct ft_point pt;
    uint64_t rcx_hlt, rcx_tick;  /* RCX at the two sites */
    bool tsc_next;
};

static void idle_init(struct idle *d, uint64_t hz)
{
    memset(d, 0, sizeof(*d));
    d->rnd.s = 0x1d1e0000 + hz;
    d->hz = hz;
    d->tsc0 = 3600 * TSC_HZ;
    d->pt.count = 3600 * 400000000ull;
    d->rcx_hlt = any_rcx(&d->rnd);
    d->rcx_tick = any_rcx(&d->rnd);
}

static void idle_next(struct idle *d, struct ft_log_rec *r)
{
    if (!d->tsc_next) {
        d->tick++;
        d->pt.count += rnd_range(&d->rnd, 400, 4000);
        d->pt.rip = RIP_HLT;
        /* The idle loop's and the handler's registers change now and
         * then (another path into them), mostly not. */
        if (rnd_pct(&d->rnd, 10))
            d->rcx_hlt = any_rcx(&d->rnd);
        d->pt.rcx = d->rcx_hlt;
        d->wake_tsc = d->tsc0 + d->tick * TSC_HZ / d->hz +
                      rnd_range(&d->rnd, 0, JITTER_MAX);
        r->kind = FT_K_EXTINT;
        r->pt = d->pt;
        r->u.intr.vector = 0x20;
    } else {
        uint64_t branches = rnd_range(&d->rnd, 40, 400);

        d->pt.count += branches;
        d->pt.rip = RIP_TICK_RDTSC;
        if (rnd_pct(&d->rnd, 10))
            d->rcx_tick = any_rcx(&d->rnd);
        d->pt.rcx = d->rcx_tick;
        r->kind = FT_K_TSC;
        r->pt = d->pt;
        /* Interrupt entry, then some cycles per branch to the RDTSC. */
        r->u.tsc.value = d->wake_tsc + 1500 + 4 * branches;
    }
    d->tsc_next = !d->tsc_next;
}

static double idle_bytes_per_tick(uint64_t hz)
{
    struct idle d;
    struct sink s;
    uint64_t ticks = IDLE_SECONDS * hz;
    double bpt;

    idle_init(&d, hz);
    sink_init(&s);
    for (uint64_t n = 0; n < 2 * ticks; n++) {
        struct ft_log_rec r;

        idle_next(&d, &r);
        sink_append(&s, &r);
    }
    sink_finish(&s);
    bpt = (double)s.bytes / ticks;
    sink_fini(&s);
    return bpt;
}

static void bench_idle(void)
{
    static const struct {
        unsigned int hz;
        double vmware;           /* Mbit/s, anchors.md */
    } rates[] = { { 82, 0.15 }, { 250, 0.68 }, { 1000, 1.43 } };
    double bpt1000 = 0;
    char key[64];

    printf("2. Idle guest: per tick one EXTINT 0x20 at HLT + one TSC read,"
           "\n   %u s simulated, 3 GHz TSC, 0-20 us delivery jitter\n\n",
           IDLE_SECONDS);
    printf("   %8s %7s %10s %10s %14s %6s\n", "timer Hz", "ticks",
           "bytes/tick", "Mbit/s", "VMware Mbit/s", "ratio");
    for (unsigned int i = 0; i < 3; i++) {
        unsigned int hz = rates[i].hz;
        double bpt = idle_bytes_per_tick(hz);
        double mbit = bpt * hz * 8 / 1e6;

        printf("   %8u %7u %10.3f %10.4f %14.2f %5.0fx\n", hz,
               IDLE_SECONDS * hz, bpt, mbit, rates[i].vmware,
               rates[i].vmware / mbit);
        snprintf(key, sizeof(key), "core_bytes_per_tick_%uhz", hz);
        kv(key, 3, bpt);
        snprintf(key, sizeof(key), "core_mbit_s_idle_%uhz", hz);
        kv(key, 6, mbit);
        /* Beside ours in results.json and in the plot. */
        snprintf(key, sizeof(key), "vmware_mbit_s_idle_%uhz", hz);
        kv(key, 2, rates[i].vmware);
        if (hz == 1000)
            bpt1000 = bpt;
    }
    printf("\n   target at 1000 Hz: <= %.0f bytes/tick: %s (%.3f)\n\n",
           TARGET_BYTES_PER_TICK,
           bpt1000 <= TARGET_BYTES_PER_TICK ? "met" : "MISSED", bpt1000);
}

/* --- 3. append cost -------------------------------------------------- */

/*
 * The measured code: n appends of records prepared beforehand.  Kept
 * out of line (and unclonable, so its symbol keeps its name) because
 * callgrind counts the instructions run inside it.  Returns how many
 * were appended; fewer only if the ring filled up or a record failed.
 */
/* GCC may otherwise clone it under another name; clang does not know
 * the attribute. */
#ifdef __clang__
#define MEASURED __attribute__((noinline))
#else
#define MEASURED __attribute__((noinline, noclone))
#endif

MEASURED
int append_batch(struct ft_recorder *rec, const struct ft_log_rec *batch,
                 int n, int *err);
int append_batch(struct ft_recorder *rec, const struct ft_log_rec *batch,
                 int n, int *err)
{
    for (int i = 0; i < n; i++) {
        const struct ft_log_rec *r = &batch[i];
        /* Straight to the entry points, as a hook calls them: no
         * record_one() switch in the measured loop. */
        int rc = r->kind == FT_K_TSC ?
                 ft_record_tsc(rec, &r->pt, r->u.tsc.value) :
                 ft_record_extint(rec, &r->pt, r->u.intr.vector,
                                  r->u.intr.src, r->u.intr.timer);

        if (rc != FT_OK) {
            *err = rc;
            return i;
        }
    }
    return n;
}

struct append_run {
    struct sink s;
    struct idle d;
    struct ft_log_rec *batch;
};

static void append_run_init(struct append_run *a)
{
    sink_init(&a->s);
    idle_init(&a->d, 1000);
    a->batch = calloc(BATCH, sizeof(*a->batch));
    if (!a->batch)
        die("out of memory");
}

static void append_run_fini(struct append_run *a)
{
    sink_fini(&a->s);
    free(a->batch);
}

/* Append 'total' typical records; returns the ns spent appending only
 * (0 if !timed): generating and consuming stay outside the clock. */
static uint64_t append_records(struct append_run *a, uint64_t total,
                               bool timed)
{
    uint64_t ns = 0;

    while (total) {
        int n = total < BATCH ? (int)total : (int)BATCH;
        int done = 0;

        for (int i = 0; i < n; i++)
            idle_next(&a->d, &a->batch[i]);
        /* Keep room for a whole batch, so the timed loop never stalls. */
        if (ft_ring_avail(&a->s.cons) >
            (int)(a->s.cons.size - BATCH * FT_LOG_HEAD_MAX))
            sink_discard(&a->s);
        while (done < n) {
            struct timespec t0, t1;
            int err = FT_OK, k;

            if (timed)
                clock_gettime(CLOCK_MONOTONIC, &t0);
            k = append_batch(&a->s.rec, a->batch + done, n - done, &err);
            if (timed) {
                clock_gettime(CLOCK_MONOTONIC, &t1);
                ns += (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u +
                      (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
            }
            done += k;
            a->s.appended += (uint64_t)k;
            if (err == FT_EFULL)
                sink_discard(&a->s);
            else if (err != FT_OK)
                die("append: %s", ft_strerror(err));
        }
        total -= (uint64_t)n;
    }
    return ns;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static void bench_append(void)
{
    struct append_run a;
    double per[ROUNDS];

    append_run_init(&a);
    append_records(&a, ROUND_RECORDS, false);     /* warm caches, ring */
    for (unsigned int i = 0; i < ROUNDS; i++)
        per[i] = (double)append_records(&a, ROUND_RECORDS, true) /
                 ROUND_RECORDS;
    qsort(per, ROUNDS, sizeof(per[0]), cmp_double);
    printf("3. Append cost, typical records (the idle stream: TSC read,"
           " EXTINT)\n\n");
    printf("   wall clock: %.2f ns/record (median of %u rounds of %u;"
           " best %.2f)\n", per[ROUNDS / 2], ROUNDS, ROUND_RECORDS,
           per[0]);
    kv("core_ns_per_record", 2, per[ROUNDS / 2]);
    append_run_fini(&a);
}

/* Under callgrind: nothing but the appends, N of them. */
static void callgrind_mode(const char *arg)
{
    struct append_run a;
    char *end;
    unsigned long long n;

    errno = 0;
    n = strtoull(arg, &end, 10);
    if (errno || *end || n == 0)
        die("--callgrind wants a record count, not '%s'", arg);
    append_run_init(&a);
    append_records(&a, n, false);
    append_run_fini(&a);
    printf("callgrind mode: %llu records appended in append_batch\n", n);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--kv") && i + 1 < argc) {
            kv_path = argv[++i];
        } else if (!strcmp(argv[i], "--callgrind") && i + 1 < argc) {
            callgrind_mode(argv[++i]);
            return 0;
        } else {
            fprintf(stderr, "usage: bench-core [--kv FILE] "
                    "| --callgrind N\n");
            return 2;
        }
    }
    if (kv_path && !(kv_file = fopen(kv_path, "w")))
        die("%s: %s", kv_path, strerror(errno));

    printf("xenft hvm/core benchmark\n\n");
    bench_kinds();
    bench_idle();
    bench_append();
    if (kv_file && fclose(kv_file) != 0)
        die("%s: %s", kv_path, strerror(errno));
    return 0;
}
