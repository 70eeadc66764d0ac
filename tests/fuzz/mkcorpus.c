/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mkcorpus.c - write the seed corpus of the fuzz targets.
 *
 *   make fuzz-corpus      (builds this, then: mkcorpus tests/fuzz/corpus)
 *
 * writes corpus/fuzz_log/ (raw record streams), corpus/fuzz_logfile/
 * (stored logs), corpus/fuzz_ctl/ (ftvm control requests),
 * corpus/fuzz_frame/ and corpus/fuzz_session/ (logging channel frames,
 * and the first frames a session meets), corpus/fuzz_live/ (frames
 * after a handshake), corpus/fuzz_xencfg/ (a Xen
 * peer's libxl configuration: this host's, and one of each refusal; the
 * fuzzers' regression inputs there are kept) and corpus/fuzz_snapshot/
 * (a guest's state as a peer sends it; the harness takes the real
 * snapshot these seeds change itself), corpus/fuzz_sync/ (the header
 * of the state stream).  The valid seeds come from the
 * real recorder, through a record ring, the real log writer and the real
 * frame encoder, so that they follow the format as implemented rather
 * than as a test author understood it; a few hand-made records and
 * damaged copies cover what the encoder never
 * writes.  The output is deterministic: rerunning gives the same files.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <xxhash.h>

#include "ft_log.h"
#include "ft_recorder.h"
#include "ft_ring.h"
#include "old_hello.h"
#include "sync_hdr.h"
#include "xencfg.h"
#include "xlft_frame.h"
#include "xlft_ftvm_ctl.h"
#include "xlft_logfile.h"
#define TEST_NAME "mkcorpus"
#include "testutil.h"

/* Rings have a tail page since ft_abi.h grew this; before, they had not. */
#ifndef FT_RING_MEM_SIZE
#define FT_RING_MEM_SIZE(data) (FT_RING_HDR_SIZE + (data))
#endif
#define RING_MEM FT_RING_MEM_SIZE(FT_RING_MIN_DATA)

/* Stored-log layout (hvm/core/FORMAT.md), to damage files on purpose. */
#define FILE_HDR 32u        /* XXH3-64 of bytes 0-23 at 24 */
#define BLOCK_HDR 40u       /* payload XXH3-64 at 24, header's at 32 */

/* Kernel-looking rips, so that the rip history has something to do. */
#define RIP_A 0xffffffff81000100ull
#define RIP_B 0xffffffff81000240ull
#define RIP_C 0xffffffff8100f000ull
#define RIP_D 0x00007f0000401000ull

static const char *outdir;

/* A growing byte buffer. */
struct buf {
    uint8_t *p;
    size_t len, cap;
};

static void buf_add(struct buf *b, const void *src, size_t len)
{
    if (b->len + len > b->cap) {
        b->cap = (b->len + len) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            die("out of memory");
    }
    memcpy(b->p + b->len, src, len);
    b->len += len;
}

static void buf_copy(struct buf *dst, const struct buf *src)
{
    dst->len = 0;
    buf_add(dst, src->p, src->len);
}

/*
 * A recorder on a record ring, and a consumer that moves every record
 * into 'out' as soon as it is recorded.
 */
struct gen {
    uint8_t *mem;
    struct ft_ring prod, cons;
    struct ft_recorder rec;
    struct ft_point pt;
    struct buf out;
};

static void gen_start(struct gen *g)
{
    memset(g, 0, sizeof(*g));
    g->mem = calloc(1, RING_MEM);
    if (!g->mem ||
        ft_ring_init(&g->prod, g->mem, RING_MEM, FT_RING_RECORD) ||
        ft_ring_set_kind(&g->prod, FT_COUNTER_STEPS, FT_CPU_FTVM) ||
        ft_ring_attach(&g->cons, g->mem, RING_MEM, FT_RING_RECORD) ||
        ft_recorder_init(&g->rec, &g->prod))
        die("cannot set up a record ring");
    g->pt.count = 1000;
    g->pt.rip = RIP_A;
}

static void gen_end(struct gen *g)
{
    free(g->mem);
    free(g->out.p);
}

/* Check a recorder call and move its record out of the ring. */
static void took(struct gen *g, int rc, int line)
{
    static uint8_t tmp[FT_LOG_REC_MAX];
    uint32_t nrec;
    bool notify;
    int n;

    if (rc != FT_OK)
        die("line %d: recorder: %s", line, ft_strerror(rc));
    n = ft_ring_read_records(&g->cons, tmp, sizeof(tmp), &nrec, &notify);
    if (n <= 0 || nrec != 1)
        die("line %d: ring read: %s", line, ft_strerror(n));
    buf_add(&g->out, tmp, (size_t)n);
}
#define TOOK(g, call) took((g), (call), __LINE__)

/* Move the execution point forward. */
static struct ft_point *at(struct gen *g, uint64_t dcount, uint64_t rip,
                           uint64_t rcx)
{
    g->pt.count += dcount;
    g->pt.rip = rip;
    g->pt.rcx = rcx;
    return &g->pt;
}

static void write_file(const char *target, const char *name,
                       const void *p, size_t len)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s/%s", outdir, target, name);
    f = fopen(path, "wb");
    if (!f || fwrite(p, 1, len, f) != len || fclose(f))
        die("cannot write %s: %s", path, strerror(errno));
}

static void put_log(const char *name, const struct buf *b)
{
    write_file("fuzz_log", name, b->p, b->len);
}

/* --- record streams ---------------------------------------------------- */

/* One kind at a time, with its "same as last time" (k bit) forms. */
static void kinds(struct gen *g, unsigned int kind)
{
    static const uint8_t dma_data[] = "xenft DMA seed: disk sector bytes";
    uint8_t sector[512];
    uint32_t ec = 0x2;
    uint64_t cr2 = 0x7f00deadb000ull;
    unsigned int i;

    switch (kind) {
    case FT_K_EXTINT:
        TOOK(g, ft_record_extint(&g->rec, at(g, 10, RIP_A, 0), 0xef,
                                 FT_INTR_LAPIC, true));
        TOOK(g, ft_record_extint(&g->rec, at(g, 300, RIP_B, 0), 0xef,
                                 FT_INTR_LAPIC, false));
        TOOK(g, ft_record_extint(&g->rec, at(g, 7, RIP_A, 0), 0x30,
                                 FT_INTR_PIC, true));
        break;
    case FT_K_NMI:
        TOOK(g, ft_record_nmi(&g->rec, at(g, 1, RIP_C, 0)));
        TOOK(g, ft_record_nmi(&g->rec, at(g, 0, RIP_C, 5)));
        break;
    case FT_K_EVENT:
        /* #PF with error code and cr2, #GP(0), #UD, INT3, NMI type. */
        TOOK(g, ft_record_event(&g->rec, at(g, 5, RIP_D, 0), 3, 14, 0,
                                &ec, &cr2));
        ec = 0;
        TOOK(g, ft_record_event(&g->rec, at(g, 5, RIP_D, 0), 3, 13, 0,
                                &ec, NULL));
        TOOK(g, ft_record_event(&g->rec, at(g, 5, RIP_A, 0), 3, 6, 0,
                                NULL, NULL));
        TOOK(g, ft_record_event(&g->rec, at(g, 1, RIP_B, 0), 6, 3, 1,
                                NULL, NULL));
        TOOK(g, ft_record_event(&g->rec, at(g, 1, RIP_B, 0), 2, 2, 0,
                                NULL, &cr2));
        break;
    case FT_K_TSC:
        /* Steady deltas take the k form; a jump and a step back not. */
        for (i = 0; i < 4; i++)
            TOOK(g, ft_record_tsc(&g->rec, at(g, 50, RIP_A, 0),
                                  0x1234567800ull + 2000 * i));
        TOOK(g, ft_record_tsc(&g->rec, at(g, 50, RIP_B, 0),
                              0x99999999999ull));
        TOOK(g, ft_record_tsc(&g->rec, at(g, 50, RIP_B, 0), 0x10));
        break;
    case FT_K_MSR:
        TOOK(g, ft_record_msr(&g->rec, at(g, 3, RIP_A, 0), 0x10, 77));
        TOOK(g, ft_record_msr(&g->rec, at(g, 3, RIP_A, 0), 0x10, 99));
        TOOK(g, ft_record_msr(&g->rec, at(g, 3, RIP_C, 0), 0xc0000080,
                              0xd01));
        TOOK(g, ft_record_msr(&g->rec, at(g, 3, RIP_C, 0), 0x1b,
                              UINT64_MAX));
        break;
    case FT_K_PIO:
        TOOK(g, ft_record_pio(&g->rec, at(g, 9, RIP_B, 0), 0x3fd, 1, 0x60));
        TOOK(g, ft_record_pio(&g->rec, at(g, 9, RIP_B, 0), 0x3fd, 1, 0x20));
        TOOK(g, ft_record_pio(&g->rec, at(g, 9, RIP_C, 0), 0xcfc, 4,
                              0x12378086));
        TOOK(g, ft_record_pio(&g->rec, at(g, 9, RIP_C, 0), 0x1f0, 2, 0xbeef));
        /* A REP INSW: same count, rcx counts down. */
        for (i = 3; i > 0; i--)
            TOOK(g, ft_record_pio(&g->rec, at(g, 0, RIP_C, i), 0x1f0, 2,
                                  i * 0x101));
        break;
    case FT_K_MMIO:
        TOOK(g, ft_record_mmio(&g->rec, at(g, 4, RIP_A, 0), 0xfee000b0, 4,
                               0x12345678));
        TOOK(g, ft_record_mmio(&g->rec, at(g, 4, RIP_A, 0), 0xfee000b0, 4,
                               0x9abcdef0));
        TOOK(g, ft_record_mmio(&g->rec, at(g, 4, RIP_B, 0), 0xfed00000, 8,
                               0x8086a701ull << 20));
        TOOK(g, ft_record_mmio(&g->rec, at(g, 4, RIP_B, 0), 0xb8000, 1,
                               0x41));
        TOOK(g, ft_record_mmio(&g->rec, at(g, 4, RIP_B, 0), 0xfebf0002, 2,
                               0xffff));
        break;
    case FT_K_RAND:
        TOOK(g, ft_record_rand(&g->rec, at(g, 2, RIP_A, 0), false, 2,
                               0xabcd));
        TOOK(g, ft_record_rand(&g->rec, at(g, 2, RIP_A, 0), false, 4,
                               0xdeadbeef));
        TOOK(g, ft_record_rand(&g->rec, at(g, 2, RIP_A, 0), false, 8,
                               0x0123456789abcdefull));
        TOOK(g, ft_record_rand(&g->rec, at(g, 2, RIP_B, 0), true, 8,
                               UINT64_MAX));
        break;
    case FT_K_DMA:
        for (i = 0; i < sizeof(sector); i++)
            sector[i] = (uint8_t)(i * 7 + 3);
        TOOK(g, ft_record_dma(&g->rec, at(g, 20, RIP_A, 0), 0x100000,
                              dma_data, sizeof(dma_data)));
        TOOK(g, ft_record_dma(&g->rec, at(g, 20, RIP_A, 0), 0x7ff000,
                              sector, sizeof(sector)));
        TOOK(g, ft_record_dma(&g->rec, at(g, 1, RIP_A, 0), 0, sector, 1));
        TOOK(g, ft_record_string(&g->rec, at(g, 5, RIP_B, 2), 0x10bd20,
                                 sector, 2));
        break;
    case FT_K_HLT_WAKE:
        TOOK(g, ft_record_hlt_wake(&g->rec, at(g, 100, RIP_B, 0)));
        TOOK(g, ft_record_hlt_wake(&g->rec, at(g, 100000, RIP_B, 0)));
        break;
    case FT_K_PROGRESS:
        TOOK(g, ft_record_progress(&g->rec, at(g, 1u << 20, RIP_A, 0)));
        TOOK(g, ft_record_progress(&g->rec, at(g, 1u << 20, RIP_D, 0)));
        TOOK(g, ft_record_progress(&g->rec, at(g, 1u << 20, RIP_C, 0)));
        break;
    case FT_K_SYNC:
        TOOK(g, ft_record_sync(&g->rec, at(g, 1u << 16, RIP_A, 0),
                               0x5eed5eed5eed5eedull));
        TOOK(g, ft_record_sync(&g->rec, at(g, 1u << 16, RIP_B, 0), 0));
        break;
    case FT_K_OUTPUT:
        /* Consecutive ids take the k form. */
        TOOK(g, ft_record_output(&g->rec, at(g, 8, RIP_A, 0), 1));
        TOOK(g, ft_record_output(&g->rec, at(g, 8, RIP_A, 0), 2));
        TOOK(g, ft_record_output(&g->rec, at(g, 8, RIP_A, 0), 3));
        TOOK(g, ft_record_output(&g->rec, at(g, 8, RIP_B, 0), 1000));
        break;
    }
}

/* Every kind's group of records, in a shuffled order. */
static void mixed(struct gen *g)
{
    unsigned int i;

    for (i = 0; i < FT_K_NR; i++)
        kinds(g, (i * 5 + 3) % FT_K_NR);
}

/* A long pseudo-random run of every kind (fixed seed). */
static void random_run(struct gen *g, unsigned int nrec, uint32_t seed)
{
    static const uint64_t rips[] = { RIP_A, RIP_B, RIP_C, RIP_D,
                                     0xffffffff81234567ull, 0x401000 };
    uint8_t data[64];
    unsigned int i;

    for (i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(i ^ 0xa5);
    for (i = 0; i < nrec; i++) {
        uint32_t x;
        struct ft_point *pt;

        seed = seed * 1103515245u + 12345u;
        x = seed >> 8;
        pt = at(g, x % 5 ? x % 97 : x % 100000, rips[x % 6],
                x % 7 == 0 ? x % 13 : 0);
        switch ((x >> 4) % FT_K_NR) {
        case FT_K_EXTINT:
            TOOK(g, ft_record_extint(&g->rec, pt, x % 3 ? 0xef : 0x31,
                                     x % 3 ? FT_INTR_LAPIC : FT_INTR_PIC,
                                     x % 5 == 0));
            break;
        case FT_K_NMI:
            TOOK(g, ft_record_nmi(&g->rec, pt));
            break;
        case FT_K_EVENT: {
            uint32_t ec = x & 0xff;

            TOOK(g, ft_record_event(&g->rec, pt, 3, 14, 0, &ec, NULL));
            break;
        }
        case FT_K_TSC:
            TOOK(g, ft_record_tsc(&g->rec, pt, 1000000ull * i + (x & 3)));
            break;
        case FT_K_MSR:
            TOOK(g, ft_record_msr(&g->rec, pt, x % 2 ? 0x10 : 0x6e0, x));
            break;
        case FT_K_PIO:
            TOOK(g, ft_record_pio(&g->rec, pt, x % 2 ? 0x3fd : 0x64, 1,
                                  x & 0xff));
            break;
        case FT_K_MMIO:
            TOOK(g, ft_record_mmio(&g->rec, pt, 0xfee00300, 4, x));
            break;
        case FT_K_RAND:
            TOOK(g, ft_record_rand(&g->rec, pt, x & 1, 8,
                                   (uint64_t)x * 0x9e3779b97f4a7c15ull));
            break;
        case FT_K_DMA:
            TOOK(g, (x & 2 ? ft_record_string : ft_record_dma)(
                        &g->rec, pt, 0x200000 + (x & 0xfff), data,
                        1 + x % sizeof(data)));
            break;
        case FT_K_HLT_WAKE:
            TOOK(g, ft_record_hlt_wake(&g->rec, pt));
            break;
        case FT_K_PROGRESS:
            TOOK(g, ft_record_progress(&g->rec, pt));
            break;
        case FT_K_SYNC:
            TOOK(g, ft_record_sync(&g->rec, pt, (uint64_t)x << 20 | i));
            break;
        case FT_K_OUTPUT:
            TOOK(g, ft_record_output(&g->rec, pt, i));
            break;
        }
    }
}

/* Values at the ends of their ranges. */
static void extremes(struct gen *g)
{
    uint32_t ec = UINT32_MAX;
    uint64_t cr2 = UINT64_MAX;

    TOOK(g, ft_record_tsc(&g->rec, at(g, 0, 0, 0), UINT64_MAX));
    TOOK(g, ft_record_tsc(&g->rec, at(g, 1, UINT64_MAX, UINT64_MAX), 0));
    TOOK(g, ft_record_output(&g->rec, at(g, 1, 0, 0), UINT64_MAX));
    /* The id after UINT64_MAX wraps to 0 and takes the k form. */
    TOOK(g, ft_record_output(&g->rec, at(g, 1, 0, 0), 0));
    TOOK(g, ft_record_mmio(&g->rec, at(g, 1, 1, 0), (1ull << 62) - 1, 8,
                           UINT64_MAX));
    TOOK(g, ft_record_pio(&g->rec, at(g, 1, 1, 0), 0xffff, 4, UINT32_MAX));
    TOOK(g, ft_record_event(&g->rec, at(g, 1, 2, 0), FT_EV_TYPE_MAX, 0xff,
                            15, &ec, &cr2));
    TOOK(g, ft_record_dma(&g->rec, at(g, 1, 2, 0), UINT64_MAX - 1,
                          "\xff\xfe", 2));
    TOOK(g, ft_record_progress(&g->rec, at(g, UINT64_MAX / 2, 3, 0)));
    TOOK(g, ft_record_sync(&g->rec, at(g, UINT64_MAX - g->pt.count, 3, 0),
                           UINT64_MAX));
}

/* A stream from one of the builders above. */
static void stream(struct buf *out, void (*fn)(struct gen *, unsigned int),
                   unsigned int arg)
{
    struct gen g;

    gen_start(&g);
    fn(&g, arg);
    buf_copy(out, &g.out);
    gen_end(&g);
}

/* One step of a multi-part log. */
struct step {
    void (*fn)(struct gen *, unsigned int);
    unsigned int arg;
};

/*
 * Several parts of one log from one recorder, so that the codec state
 * carries from part to part as it does from block to block.
 */
static void stream_steps(struct buf *parts, const struct step *steps,
                         unsigned int n)
{
    struct gen g;

    gen_start(&g);
    for (unsigned int i = 0; i < n; i++) {
        g.out.len = 0;
        steps[i].fn(&g, steps[i].arg);
        buf_copy(&parts[i], &g.out);
    }
    gen_end(&g);
}

static void do_mixed(struct gen *g, unsigned int arg)
{
    (void)arg;
    mixed(g);
}

static void do_random(struct gen *g, unsigned int arg)
{
    random_run(g, arg, 0x5eed + arg);
}

static void do_extremes(struct gen *g, unsigned int arg)
{
    (void)arg;
    extremes(g);
}

static void do_big_dma(struct gen *g, unsigned int len)
{
    static uint8_t data[4096];
    unsigned int i;

    for (i = 0; i < len; i++)
        data[i] = (uint8_t)(i * 31 + (i >> 8));
    TOOK(g, ft_record_tsc(&g->rec, at(g, 5, RIP_A, 0), 123456789));
    TOOK(g, ft_record_dma(&g->rec, at(g, 5, RIP_A, 0), 0x12345000, data,
                          len));
    TOOK(g, ft_record_sync(&g->rec, at(g, 5, RIP_B, 0), 0xfeedf00d));
}

/* Records the encoder never writes, added after a valid prefix. */
struct crafted {
    const char *name;
    const uint8_t *bytes;
    size_t len;
};

#define CRAFT(name, ...) \
    { name, (const uint8_t[]){ __VA_ARGS__ }, \
      sizeof((const uint8_t[]){ __VA_ARGS__ }) }

/*
 * First byte: kind | rip mode << 4 | rcx 0x40 | k 0x80; then the count
 * delta, rip and rcx deltas, payload (ft_log.c).
 */
static const struct crafted crafted[] = {
    /* Valid, but not what the encoder writes for them. */
    CRAFT("noncanon_varint", 0x11, 0x85, 0x80, 0x80, 0x00),
    CRAFT("noncanon_rcx0", 0x51, 0x01, 0x00),
    CRAFT("noncanon_ripslot3", 0x31, 0x01, 0x21, 0x02, 0x30, 0x01, 0x20),
    CRAFT("noncanon_output", 0x1c, 0x01, 0x01, 0x9c, 0x01, 0x1c, 0x01,
          0x02),
    /* The last TSC read is written without k where k is shorter. */
    /*
     * Two slots hold rip 0, with rcx 7 and 0: naming the second is
     * shorter than the encoder's choice, the first plus an rcx delta.
     */
    CRAFT("noncanon_longer", 0x01, 0x01, 0x0a, 0x61, 0x01, 0x0e, 0x31, 0x01),
    CRAFT("noncanon_tsc_k", 0x13, 0x01, 0x08, 0x93, 0x01, 0x00, 0x13,
          0x01, 0x04),
    /* Malformed. */
    CRAFT("bad_kind13", 0x1d, 0x01),
    CRAFT("bad_kind15", 0xff, 0xff, 0xff),
    CRAFT("bad_varint11", 0x11, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
          0xff, 0xff, 0xff, 0x01),
    CRAFT("bad_varint_bit64", 0x11, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
          0x80, 0x80, 0x80, 0x02),
    CRAFT("bad_pio_k_first", 0x95, 0x01, 0x05),
    CRAFT("bad_pio_size3", 0x15, 0x01, 0x83, 0x02, 0x00),
    CRAFT("bad_pio_wide", 0x15, 0x01, 0x80, 0x04, 0xff, 0x03),
    CRAFT("bad_mmio_k_wide", 0x16, 0x01, 0x04, 0x11, 0x96, 0x01, 0x80,
          0x02),
    CRAFT("bad_event_type8", 0x12, 0x01, 0x08, 0x0e, 0x00),
    CRAFT("bad_event_errcode33", 0x92, 0x01, 0x03, 0x0e, 0x00, 0x80, 0x80,
          0x80, 0x80, 0x10),
    CRAFT("bad_rand_size", 0x17, 0x01, 0x03, 0x00, 0x00),
    CRAFT("bad_dma_len0", 0x18, 0x01, 0x00, 0x00),
    CRAFT("bad_dma_len_big", 0x18, 0x01, 0x00, 0x81, 0x80, 0x04, 0x00),
    CRAFT("bad_dma_k", 0x98, 0x01, 0x00, 0x01, 0xaa),
    CRAFT("bad_sync_k", 0x9b, 0x01, 1, 2, 3, 4, 5, 6, 7, 8),
    CRAFT("bad_nmi_k", 0x91, 0x01),
    CRAFT("bad_count_overflow", 0x1a, 0x05, 0x1a, 0xff, 0xff, 0xff, 0xff,
          0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
};

/*
 * The longest head the decoder takes: an EVENT with every varint (count,
 * rip, rcx, error code, cr2) spelled over-long in ten bytes.  54 bytes,
 * more than FORMAT.md's "at most 51", within FT_LOG_HEAD_MAX.
 */
static void longest_head(struct buf *b)
{
    static const uint8_t ten[10] = { 0x80, 0x80, 0x80, 0x80, 0x80,
                                     0x80, 0x80, 0x80, 0x80, 0x00 };
    unsigned int i;

    b->len = 0;
    buf_add(b, (const uint8_t[]){ 0xc2 }, 1);
    for (i = 0; i < 3; i++)
        buf_add(b, ten, sizeof(ten));
    buf_add(b, (const uint8_t[]){ 0x83, 0x0e, 0x00 }, 3);
    for (i = 0; i < 2; i++)
        buf_add(b, ten, sizeof(ten));
}

static void write_log_seeds(void)
{
    struct buf b = { 0 }, t = { 0 };
    unsigned int kind, i;
    char name[64];

    for (kind = 0; kind < FT_K_NR; kind++) {
        const char *k = ft_log_kind_name(kind);

        stream(&b, kinds, kind);
        snprintf(name, sizeof(name), "kind%02u_", kind);
        for (i = strlen(name); *k && i < sizeof(name) - 1; k++)
            name[i++] = (*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z')
                        ? *k : '_';
        name[i] = '\0';
        put_log(name, &b);
    }
    stream(&b, do_mixed, 0);
    put_log("mixed", &b);
    stream(&b, do_random, 200);
    put_log("random200", &b);
    stream(&b, do_extremes, 0);
    put_log("extremes", &b);
    stream(&b, do_big_dma, 3000);
    put_log("dma3000", &b);

    /* Cut and damaged copies of valid streams. */
    stream(&b, do_mixed, 0);
    buf_copy(&t, &b);
    t.len = b.len / 2 + 1;
    put_log("trunc_mixed_half", &t);
    stream(&b, do_big_dma, 3000);
    buf_copy(&t, &b);
    t.len -= 1000;
    put_log("trunc_dma_data", &t);
    buf_copy(&t, &b);
    t.len = 10;
    put_log("trunc_dma_head", &t);
    stream(&b, do_random, 60);
    buf_copy(&t, &b);
    for (i = 17; i < t.len; i += 97)
        t.p[i] ^= (uint8_t)(1u << (i % 8));
    put_log("flipped_random60", &t);
    buf_copy(&t, &b);
    t.p[t.len / 3] = 0x0e;      /* probably in a head: kind 14 */
    put_log("kind14_random60", &t);

    /* Hand-made records, from the all-zero codec state. */
    for (i = 0; i < sizeof(crafted) / sizeof(crafted[0]); i++) {
        t.len = 0;
        buf_add(&t, crafted[i].bytes, crafted[i].len);
        put_log(crafted[i].name, &t);
    }
    longest_head(&t);
    put_log("noncanon_head54", &t);
    stream(&b, kinds, FT_K_PIO);
    buf_add(&b, (const uint8_t[]){ 0x97, 0x01, 0x01, 0x00, 0x00, 0x00,
                                   0x00 }, 7);
    put_log("pio_then_rdseed", &b);
    free(b.p);
    free(t.p);
}

/* --- stored logs ------------------------------------------------------- */

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Recompute the checksums that a deliberate change has broken. */
static void fix_header_hash(struct buf *f)
{
    put_le64(f->p + 24, XXH3_64bits(f->p, 24));
}

/* Only the block header's own checksum, so that a reader trusts it. */
static void fix_block_header(struct buf *f, size_t off)
{
    put_le64(f->p + off + 32, XXH3_64bits(f->p + off, 32));
}

/* The block at 'off' keeps its length: fix both of its checksums. */
static void fix_block_hash(struct buf *f, size_t off)
{
    uint8_t *h = f->p + off;
    uint32_t plen = h[4] | (uint32_t)h[5] << 8 | (uint32_t)h[6] << 16 |
                    (uint32_t)h[7] << 24;

    put_le64(h + 24, XXH3_64bits(h + BLOCK_HDR, plen));
    fix_block_header(f, off);
}

/*
 * Write 'nparts' streams into one stored log, a block per part, with the
 * real writer; read the file back into 'f'.
 */
static void logfile(const char *name, const struct buf *parts,
                    unsigned int nparts, struct buf *f)
{
    char path[4096], msg[256];
    struct xlft_logw *w;
    unsigned int i;
    FILE *in;
    long sz;

    snprintf(path, sizeof(path), "%s/fuzz_logfile/%s", outdir, name);
    if (xlft_logw_open(&w, path, FT_COUNTER_STEPS, FT_CPU_FTVM, msg,
                       sizeof(msg)))
        die("%s", msg);
    for (i = 0; i < nparts; i++)
        if (xlft_logw_append(w, parts[i].p, parts[i].len, msg,
                             sizeof(msg)) ||
            xlft_logw_flush(w, msg, sizeof(msg)))
            die("%s", msg);
    if (xlft_logw_close(w, msg, sizeof(msg)))
        die("%s", msg);

    in = fopen(path, "rb");
    if (!in || fseek(in, 0, SEEK_END) || (sz = ftell(in)) < 0 ||
        fseek(in, 0, SEEK_SET))
        die("cannot read back %s", path);
    f->len = 0;
    if (f->cap < (size_t)sz) {
        f->p = realloc(f->p, (size_t)sz);
        f->cap = (size_t)sz;
        if (!f->p)
            die("out of memory");
    }
    if (fread(f->p, 1, (size_t)sz, in) != (size_t)sz)
        die("cannot read back %s", path);
    f->len = (size_t)sz;
    fclose(in);
}

static void put_logfile(const char *name, const struct buf *f)
{
    write_file("fuzz_logfile", name, f->p, f->len);
}

static void write_logfile_seeds(void)
{
    struct buf parts[FT_K_NR] = { { 0 } }, f = { 0 }, t = { 0 };
    size_t end, first_block = FILE_HDR;
    unsigned int i;

    logfile("empty.log", parts, 0, &f);

    stream(&parts[0], do_mixed, 0);
    logfile("mixed.log", parts, 1, &f);

    /* One block per kind, in one log: the codec crosses blocks. */
    struct step per_kind[FT_K_NR];
    for (i = 0; i < FT_K_NR; i++)
        per_kind[i] = (struct step){ kinds, i };
    stream_steps(parts, per_kind, FT_K_NR);
    logfile("kinds.log", parts, FT_K_NR, &f);

    /* Extremes last: they take the count to its maximum. */
    stream_steps(parts, (const struct step[]){ { do_random, 150 },
                                               { do_big_dma, 2000 },
                                               { do_extremes, 0 } }, 3);
    logfile("random_dma_extremes.log", parts, 3, &f);

    /* Damaged copies of a two-block log. */
    stream_steps(parts, (const struct step[]){ { kinds, FT_K_MMIO },
                                               { kinds, FT_K_EVENT } }, 2);
    logfile("two_blocks.log", parts, 2, &f);

    /*
     * A repeated-port PIO read with no port before it, well framed and
     * checksummed: malformed only in context, which the writer refuses,
     * so it is made from the two-block log's frame by hand.
     */
    buf_copy(&t, &f);
    t.len = first_block;
    buf_add(&t, f.p + first_block, BLOCK_HDR);
    buf_add(&t, (const uint8_t[]){ 0x95, 0x01, 0x05 }, 3);
    put_le32(t.p + first_block + 4, 3);
    put_le32(t.p + first_block + 16, 1);
    fix_block_hash(&t, first_block);
    buf_add(&t, f.p + f.len - BLOCK_HDR, BLOCK_HDR);
    put_le64(t.p + t.len - BLOCK_HDR + 8, 2);
    fix_block_hash(&t, t.len - BLOCK_HDR);
    put_logfile("pio_k_first.log", &t);
    end = f.len - BLOCK_HDR;

    buf_copy(&t, &f);
    t.len = end;
    put_logfile("cut_no_end.log", &t);
    t.len = end - 5;
    put_logfile("cut_mid_block.log", &t);
    t.len = first_block + 20;
    put_logfile("cut_block_header.log", &t);
    t.len = 20;
    put_logfile("cut_file_header.log", &t);

    buf_copy(&t, &f);
    t.p[0] = 'Y';
    put_logfile("bad_file_magic.log", &t);
    buf_copy(&t, &f);
    t.p[16] ^= 1;
    put_logfile("bad_file_hash.log", &t);
    buf_copy(&t, &f);
    put_le32(t.p + 8, FT_LOG_VERSION + 1);
    fix_header_hash(&t);
    put_logfile("version_next.log", &t);
    buf_copy(&t, &f);
    put_le32(t.p + 12, 64);
    fix_header_hash(&t);
    put_logfile("bad_header_size.log", &t);

    buf_copy(&t, &f);
    t.p[first_block + BLOCK_HDR + 8] ^= 0x10;
    put_logfile("bad_block_hash.log", &t);
    buf_copy(&t, &f);
    t.p[first_block + 4] ^= 0x01;
    put_logfile("bad_block_header_hash.log", &t);
    buf_copy(&t, &f);
    t.p[first_block] = 'Y';
    fix_block_header(&t, first_block);
    put_logfile("bad_block_magic.log", &t);
    buf_copy(&t, &f);
    put_le64(t.p + first_block + 8, 2);
    fix_block_hash(&t, first_block);
    put_logfile("bad_block_seq.log", &t);
    buf_copy(&t, &f);
    put_le32(t.p + first_block + 16, 1);
    fix_block_hash(&t, first_block);
    put_logfile("bad_block_count.log", &t);
    buf_copy(&t, &f);
    put_le32(t.p + first_block + 20, 2);
    fix_block_hash(&t, first_block);
    put_logfile("bad_block_flags.log", &t);
    buf_copy(&t, &f);
    put_le32(t.p + first_block + 4, XLFT_LOG_BLOCK_MAX + 1);
    fix_block_header(&t, first_block);
    put_logfile("bad_block_too_big.log", &t);
    buf_copy(&t, &f);
    t.p[first_block + BLOCK_HDR] = 0x0f;    /* first record: kind 15 */
    fix_block_hash(&t, first_block);
    put_logfile("bad_record_kind.log", &t);
    buf_copy(&t, &f);
    put_le32(t.p + end + 16, 1);    /* an end marker with a record */
    fix_block_hash(&t, end);
    put_logfile("bad_end_count.log", &t);
    buf_copy(&t, &f);
    buf_add(&t, "garbage", 7);
    put_logfile("data_after_end.log", &t);

    for (i = 0; i < FT_K_NR; i++)
        free(parts[i].p);
    free(f.p);
    free(t.p);
}

/* --- logging channel frames ------------------------------------------- */

/* Append the frame of 'm' (in clear, version 1, number 'seq') to 'b'. */
static void add_frame(struct buf *b, const struct xlft_msg *m, uint64_t seq)
{
    static uint8_t tmp[XLFT_FRAME_MAX];
    char msg[160];
    /* A HELLO's header says version 1 whatever it offers (WIRE.md). */
    int n = xlft_frame_put(m, m->type == XLFT_T_HELLO ?
                           XLFT_WIRE_VERSION_HELLO : XLFT_WIRE_VERSION_MAX,
                           seq, tmp, sizeof(tmp), msg, sizeof(msg));

    if (n < 0)
        die("frame %s: %s", xlft_type_name(m->type), msg);
    buf_add(b, tmp, (size_t)n);
}

static void put_frames(const char *name, const struct buf *b)
{
    write_file("fuzz_frame", name, b->p, b->len);
}

static void write_frame_seeds(void)
{
    struct buf recs = { 0 }, b = { 0 }, t = { 0 }, lv = { 0 };
    struct xlft_msg m[XLFT_T_MAX + 1];
    uint32_t nrec;
    unsigned int i;
    char name[64];

    stream(&recs, do_mixed, 0);
    if (ft_log_scan(recs.p, (uint32_t)recs.len, &nrec) != (int)recs.len)
        die("mixed records do not scan");

    memset(m, 0, sizeof(m));
    m[XLFT_T_HELLO].u.hello = (struct xlft_hello){
        .ver_min = 3, .ver_max = 3, .role = XLFT_ROLE_PRIMARY,
        .enc = XLFT_ENC_REQUIRED, .log_version = FT_LOG_VERSION,
        .domid = 5, .host = "hostA", .pair = "vm1",
        .counter = FT_COUNTER_STEPS, .cpu = FT_CPU_FTVM,
    };
    memset(m[XLFT_T_HELLO].u.hello.nonce, 0x11, XLFT_NONCE_SIZE);
    m[XLFT_T_HELLO_ACK].u.hello_ack = (struct xlft_hello_ack){
        .version = 3, .role = XLFT_ROLE_SECONDARY,
        .enc = XLFT_ENC_REQUIRED, .log_version = FT_LOG_VERSION,
        .domid = 9, .host = "hostB", .pair = "vm1",
        .counter = FT_COUNTER_STEPS, .cpu = FT_CPU_FTVM,
    };
    memset(m[XLFT_T_HELLO_ACK].u.hello_ack.nonce, 0x22, XLFT_NONCE_SIZE);
    memset(m[XLFT_T_HELLO_ACK].u.hello_ack.mac, 0x33, XLFT_MAC_SIZE);
    m[XLFT_T_LOG].u.log = (struct xlft_log){
        .first_seq = 1, .sent_ns = 1000000, .count = nrec,
        .len = (uint32_t)recs.len, .recs = recs.p,
    };
    m[XLFT_T_ACK].u.ack = (struct xlft_ack){ nrec, nrec - 1, 1000000,
                                             2000000 };
    m[XLFT_T_HEARTBEAT].u.heartbeat = (struct xlft_heartbeat){ 3000000,
                                                               2500000 };
    m[XLFT_T_STATE].u.state = (struct xlft_state){
        .offset = 0, .total = 64, .base_seq = 0, .len = 16,
        .data = (const uint8_t *)"guest state 0123",
    };
    m[XLFT_T_GOLIVE].u.golive_seq = nrec;
    m[XLFT_T_SHUTDOWN].u.shutdown_seq = nrec;
    for (i = 1; i <= XLFT_T_MAX; i++)
        m[i].type = (uint8_t)i;
    xlft_msg_error(&m[XLFT_T_ERROR], XLFT_ERR_AUTH,
                   "key confirmation failed: peer has a different key");

    for (i = 1; i <= XLFT_T_MAX; i++) {
        const char *k = xlft_type_name(i);
        size_t j;

        b.len = 0;
        add_frame(&b, &m[i], i);
        snprintf(name, sizeof(name), "type%u_", i);
        for (j = strlen(name); *k && j < sizeof(name) - 1; k++)
            name[j++] = (char)(*k >= 'A' && *k <= 'Z' ? *k - 'A' + 'a' : *k);
        name[j] = '\0';
        put_frames(name, &b);
    }

    /* A connection's worth, primary to secondary. */
    b.len = 0;
    add_frame(&b, &m[XLFT_T_HELLO], 0);
    add_frame(&b, &m[XLFT_T_HELLO_ACK], 1);
    add_frame(&b, &m[XLFT_T_STATE], 2);
    add_frame(&b, &m[XLFT_T_LOG], 3);
    add_frame(&b, &m[XLFT_T_HEARTBEAT], 4);
    add_frame(&b, &m[XLFT_T_GOLIVE], 5);
    add_frame(&b, &m[XLFT_T_SHUTDOWN], 6);
    put_frames("stream", &b);

    /* After a handshake (fuzz_live): first byte 0 as sent, 1 fixed up. */
    for (i = 0; i < 2; i++) {
        uint8_t fix = (uint8_t)i;

        lv.len = 0;
        buf_add(&lv, &fix, 1);
        add_frame(&lv, &m[XLFT_T_STATE], 2);
        add_frame(&lv, &m[XLFT_T_LOG], 3);
        add_frame(&lv, &m[XLFT_T_HEARTBEAT], 4);
        add_frame(&lv, &m[XLFT_T_GOLIVE], 5);
        add_frame(&lv, &m[XLFT_T_SHUTDOWN], 6);
        write_file("fuzz_live", i ? "stream_fixed" : "stream", lv.p, lv.len);
    }
    lv.len = 0;
    buf_add(&lv, "", 1);
    add_frame(&lv, &m[XLFT_T_HELLO], 2);
    write_file("fuzz_live", "hello_again", lv.p, lv.len);
    lv.len = 0;
    buf_add(&lv, "", 1);
    add_frame(&lv, &m[XLFT_T_HEARTBEAT], 2);
    add_frame(&lv, &m[XLFT_T_ERROR], 3);
    add_frame(&lv, &m[XLFT_T_HEARTBEAT], 4);
    write_file("fuzz_live", "error_then_more", lv.p, lv.len);
    lv.len = 0;
    buf_add(&lv, "", 1);
    add_frame(&lv, &m[XLFT_T_HEARTBEAT], 3);
    write_file("fuzz_live", "seq_gap", lv.p, lv.len);
    free(lv.p);

    /* Damaged copies: each names the check it should meet. */
    buf_copy(&t, &b);
    t.p[0] = 'Y';
    put_frames("bad_magic", &t);
    buf_copy(&t, &b);
    t.p[4] = 0;
    put_frames("bad_version0", &t);
    buf_copy(&t, &b);
    t.p[4] = 4;
    put_frames("bad_version4", &t);
    /* A version 1 header on a frame that is not a HELLO or an ERROR. */
    buf_copy(&t, &b);
    t.p[XLFT_HDR_SIZE + XLFT_HELLO_SIZE + 4] = 1;
    put_frames("ack_version1", &t);
    buf_copy(&t, &b);
    t.p[5] = XLFT_T_MAX + 1;
    put_frames("bad_type", &t);
    buf_copy(&t, &b);
    t.p[6] = 2;
    put_frames("bad_flags", &t);
    buf_copy(&t, &b);
    t.p[6] = XLFT_F_ENCRYPTED;
    put_frames("encrypted", &t);
    buf_copy(&t, &b);
    t.p[8] = t.p[9] = t.p[10] = 0xff;
    put_frames("oversize", &t);
    buf_copy(&t, &b);
    t.len -= 3;
    put_frames("truncated", &t);
    buf_copy(&t, &b);
    t.p[8] = XLFT_HELLO_SIZE + 1;
    put_frames("hello_long", &t);
    /* Names: a byte no name has, and one after the padding starts. */
    buf_copy(&t, &b);
    t.p[XLFT_HDR_SIZE + 12 + 2] = '/';
    put_frames("hello_bad_host", &t);
    buf_copy(&t, &b);
    t.p[XLFT_HDR_SIZE + 76 + 10] = 'x';
    put_frames("hello_pair_after_nul", &t);
    /* The HELLOs of versions 1 and 2, which offer none of ours. */
    for (unsigned int v = 1; v <= 2; v++) {
        uint8_t old[XLFT_HDR_SIZE + OLD_HELLO_V2_SIZE];
        char name[16];

        t.len = 0;
        buf_add(&t, old, old_hello(old, v));
        snprintf(name, sizeof(name), "hello_v%u", v);
        put_frames(name, &t);
        write_file("fuzz_session", name, t.p, t.len);
    }
    b.len = 0;
    add_frame(&b, &m[XLFT_T_LOG], 0);
    b.p[XLFT_HDR_SIZE + 16] = 0;            /* no records */
    put_frames("log_count0", &b);
    b.len = 0;
    add_frame(&b, &m[XLFT_T_ERROR], 0);
    b.p[XLFT_HDR_SIZE + XLFT_ERROR_HDR_SIZE] = '\n';
    put_frames("error_unprintable", &b);

    /* fuzz_session's peers: pair vm1 of hostA and hostB, encrypted. */
    b.len = 0;
    add_frame(&b, &m[XLFT_T_HELLO], 0);
    write_file("fuzz_session", "hello", b.p, b.len);
    add_frame(&b, &m[XLFT_T_HELLO_ACK], 1);
    write_file("fuzz_session", "hello_then_ack", b.p, b.len);
    b.len = 0;
    add_frame(&b, &m[XLFT_T_HELLO_ACK], 0);
    write_file("fuzz_session", "hello_ack", b.p, b.len);
    add_frame(&b, &m[XLFT_T_LOG], 1);
    write_file("fuzz_session", "hello_ack_then_log", b.p, b.len);
    b.len = 0;
    add_frame(&b, &m[XLFT_T_ERROR], 0);
    write_file("fuzz_session", "error", b.p, b.len);
    free(recs.p);
    free(b.p);
    free(t.p);
}

static void make_dir(const char *sub)
{
    char path[4096];

    snprintf(path, sizeof(path), "%s%s%s", outdir, *sub ? "/" : "", sub);
    if (mkdir(path, 0755) && errno != EEXIST)
        die("cannot create %s: %s", path, strerror(errno));
}

/* One request per operation, the descriptors it takes, and near misses. */
static void write_ctl_seeds(void)
{
    uint8_t buf[1 + sizeof(struct xlft_ftvm_req)];
    struct xlft_ftvm_req req = { .magic = XLFT_FTVM_MAGIC,
                                 .version = XLFT_FTVM_VERSION };
    char name[32];

    for (uint16_t op = XLFT_FTVM_OP_STATUS; op <= XLFT_FTVM_OP_MAX; op++) {
        req.op = op;
        req.flags = op == XLFT_FTVM_OP_STATUS ? XLFT_FTVM_F_HASH : 0;
        req.arg = op == XLFT_FTVM_OP_RECORD ? 1u << 17 :
                  op == XLFT_FTVM_OP_THROTTLE ? 50 : 0;
        buf[0] = op == XLFT_FTVM_OP_SAVE || op == XLFT_FTVM_OP_RESTORE;
        memcpy(buf + 1, &req, sizeof(req));
        snprintf(name, sizeof(name), "op%u", op);
        write_file("fuzz_ctl", name, buf, sizeof(buf));
    }
    req.op = XLFT_FTVM_OP_STATUS;
    req.flags = 0;
    buf[0] = 0;
    req.version = XLFT_FTVM_VERSION + 1;
    memcpy(buf + 1, &req, sizeof(req));
    write_file("fuzz_ctl", "newer_version", buf, sizeof(buf));
    write_file("fuzz_ctl", "short", buf, 5);
    /* A client from before HALT (version 2). */
    req.version = XLFT_FTVM_VERSION - 1;
    memcpy(buf + 1, &req, sizeof(req));
    write_file("fuzz_ctl", "older_version", buf, sizeof(buf));
}

/* 'base' with its first 'from' replaced by 'to', as a fuzz_xencfg seed. */
static void put_xencfg(const char *name, const char *base, const char *from,
                       const char *to)
{
    const char *at = from ? strstr(base, from) : NULL;
    struct buf b = { 0 };

    if (from && !at)
        die("xencfg seed %s: no '%s' in the base", name, from);
    if (!from) {
        buf_add(&b, base, strlen(base));
    } else {
        buf_add(&b, base, (size_t)(at - base));
        buf_add(&b, to, strlen(to));
        buf_add(&b, at + strlen(from), strlen(at + strlen(from)));
    }
    write_file("fuzz_xencfg", name, b.p, b.len);
    free(b.p);
}

static void write_xencfg_seeds(void)
{
    static const char local[] = XENCFG_LOCAL;
    char deep[200];
    size_t n;

    put_xencfg("same", local, NULL, NULL);
    put_xencfg("guest_own", local, "\"target_memkb\": 32768",
               "\"target_memkb\": 30000, \"video_memkb\": 0");
    put_xencfg("device_model", local, "\"kernel\"",
               "\"device_model\": \"/tmp/x\", \"kernel\"");
    put_xencfg("bootloader", local, "\"kernel\"",
               "\"bootloader\": \"/tmp/b\", \"kernel\"");
    put_xencfg("kernel", local, "/srv/xenft/kv.bin", "/etc/shadow");
    put_xencfg("nic_script", local, "\"bridge\": \"xenbr0\",",
               "\"bridge\": \"xenbr0\", \"script\": \"/tmp/s\",");
    put_xencfg("foreign_disk", local, "\"hda\"", "\"hdb\"");
    put_xencfg("pcidevs", local, "\"on_reboot\"",
               "\"pcidevs\": [{\"bus\": 3}], \"on_reboot\"");
    put_xencfg("type_pvh", local, "\"arch_arm\"",
               "\"type.pvh\": {\"pvshim_path\": \"/x\"}, \"arch_arm\"");
    put_xencfg("escaped_name", local, "\"kernel\"",
               "\"device\\u005fmodel\": \"/x\", \"kernel\"");
    n = (size_t)snprintf(deep, sizeof(deep), "{\"a\": ");
    for (int i = 0; i < 40; i++)
        deep[n++] = '[';
    for (int i = 0; i < 40; i++)
        deep[n++] = ']';
    deep[n++] = '}';
    write_file("fuzz_xencfg", "too_deep", deep, n);
}

static void write_snapshot_seeds(void)
{
    uint8_t b[1 + 600];

    b[0] = 0;                   /* idle, a real snapshot's values */
    write_file("fuzz_snapshot", "idle", b, 1);
    b[0] = 1;                   /* cpu */
    write_file("fuzz_snapshot", "cpu", b, 1);
    memset(b + 1, 0, sizeof(b) - 1);
    write_file("fuzz_snapshot", "idle_zero_values", b, sizeof(b));
    b[0] = 1;
    memset(b + 1, 0xff, sizeof(b) - 1);
    write_file("fuzz_snapshot", "cpu_ones_values", b, sizeof(b));
    /* Whole snapshots: a head of 8 MiB and nothing after; version 3. */
    b[0] = 2;
    memcpy(b + 1, "XFTVMSNP", 8);
    put_le32(b + 9, 2);
    put_le32(b + 13, 8);
    write_file("fuzz_snapshot", "raw_cut_short", b, 17);
    put_le32(b + 9, 3);
    write_file("fuzz_snapshot", "raw_version3", b, 17);
}

/* --- device core programs (fuzz_virtio.c's steps) ----------------------- */

#define V_NET   0
#define V_BLK   1

static void v_op(struct buf *b, uint8_t op, uint64_t a, unsigned int na,
                 uint64_t c, unsigned int nc)
{
    uint8_t t[16];

    buf_add(b, &op, 1);
    put_le64(t, a);
    put_le64(t + 8, c);
    buf_add(b, t, na);
    buf_add(b, t + 8, nc);
}

/* Write BAR 0 of 'fn': size code 0..3 is 1, 2, 4, 8 bytes. */
static void v_bar(struct buf *b, unsigned int fn, uint16_t off,
                  unsigned int szcode, uint64_t val)
{
    uint8_t t[13] = { 3, (uint8_t)fn, (uint8_t)off, (uint8_t)(off >> 8),
                      (uint8_t)szcode };

    put_le64(t + 5, val);
    buf_add(b, t, sizeof(t));
}

static void v_cfg(struct buf *b, unsigned int slot, unsigned int reg,
                  uint32_t val)
{
    uint8_t t[7] = { 1, (uint8_t)(reg & 3), 2 };

    v_op(b, 0, 0x80000000u | slot << 11 | (reg & 0xfc), 4, 0, 0);
    put_le32(t + 3, val);
    buf_add(b, t, 7);
}

/* Guest RAM: 'len' bytes at 'at'. */
static void v_ram(struct buf *b, uint16_t at, const void *p, uint8_t len)
{
    uint8_t t[4] = { 5, (uint8_t)at, (uint8_t)(at >> 8), len };

    buf_add(b, t, 4);
    buf_add(b, p, len);
}

static void v_desc(struct buf *b, uint16_t table, uint16_t i, uint32_t addr,
                   uint32_t len, uint16_t flags, uint16_t next)
{
    uint8_t d[16] = { 0 };

    put_le32(d, addr);
    put_le32(d + 8, len);
    d[12] = (uint8_t)flags;
    d[14] = (uint8_t)next;
    v_ram(b, (uint16_t)(table + 16 * i), d, 16);
}

/* Make chain 'head' available as the n-th (n counts from 0). */
static void v_post(struct buf *b, uint16_t avail, uint16_t n, uint16_t head)
{
    uint8_t e[2] = { (uint8_t)head, 0 }, idx[2] = { (uint8_t)(n + 1), 0 };

    v_ram(b, (uint16_t)(avail + 4 + 2 * (n % 8)), e, 2);
    v_ram(b, (uint16_t)(avail + 2), idx, 2);
}

/* virtio 1.0, 3.1.1, with queues at 'base' + 0x400 each. */
static void v_init(struct buf *b, unsigned int fn, unsigned int nq,
                   uint16_t base)
{
    unsigned int slot = fn + 1;

    v_bar(b, fn, 0x14, 0, 0);
    v_bar(b, fn, 0x14, 0, 1);
    v_bar(b, fn, 0x14, 0, 3);
    v_bar(b, fn, 0x08, 2, 0);
    v_bar(b, fn, 0x0c, 2, fn == V_NET ? 1u << 5 : 0);
    v_bar(b, fn, 0x08, 2, 1);
    v_bar(b, fn, 0x0c, 2, 1);
    v_bar(b, fn, 0x14, 0, 11);
    v_bar(b, fn, 0x10, 1, 0);
    for (unsigned int q = 0; q < nq; q++) {
        uint16_t at = (uint16_t)(base + 0x400 * q);

        v_bar(b, fn, 0x16, 1, q);
        v_bar(b, fn, 0x18, 1, 8);
        v_bar(b, fn, 0x1a, 1, q + 1);
        v_bar(b, fn, 0x20, 3, at);
        v_bar(b, fn, 0x28, 3, at + 0x100);
        v_bar(b, fn, 0x30, 3, at + 0x200);
        v_bar(b, fn, 0x1c, 1, 1);
    }
    for (unsigned int v = 0; v <= nq; v++) {
        v_bar(b, fn, (uint16_t)(0x800 + 16 * v), 2, 0xfee00000u);
        v_bar(b, fn, (uint16_t)(0x808 + 16 * v), 2, 0x40 + v);
        v_bar(b, fn, (uint16_t)(0x80c + 16 * v), 2, 0);
    }
    v_cfg(b, slot, 0x98, 0x80000011u);
    v_bar(b, fn, 0x14, 0, 15);
}

static void write_virtio_seeds(void)
{
    static const uint8_t frame[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                       2, 0, 0, 0, 0, 1, 0x88, 0xb5 };
    uint8_t hdr[16] = { 1 };            /* OUT, sector 2 */
    struct buf b = { 0 };

    /* A scan of bus 0 and the sizing of a BAR. */
    for (unsigned int s = 0; s < 4; s++) {
        v_op(&b, 0, 0x80000000u | s << 11, 4, 0, 0);
        v_op(&b, 2, 0, 1, 2, 1);
    }
    v_cfg(&b, 1, 0x10, 0xffffffffu);
    v_op(&b, 2, 0, 1, 2, 1);
    v_cfg(&b, 1, 0x10, 0xfeb00000u);
    write_file("fuzz_virtio", "pci_scan", b.p, b.len);

    b.len = 0;
    v_init(&b, V_NET, 2, 0x1000);
    v_init(&b, V_BLK, 1, 0x2000);
    v_op(&b, 9, 0, 0, 0, 0);
    write_file("fuzz_virtio", "init_both", b.p, b.len);

    /* A frame sent (header and frame in one buffer), one received. */
    b.len = 0;
    v_init(&b, V_NET, 2, 0x1000);
    v_ram(&b, 0x4000 + 12, frame, sizeof(frame));
    v_desc(&b, 0x1400, 0, 0x4000, 72, 0, 0);
    v_post(&b, 0x1500, 0, 0);
    v_bar(&b, V_NET, 0x3004, 1, 1);
    v_desc(&b, 0x1000, 0, 0x5000, 2060, 2, 0);
    v_post(&b, 0x1100, 0, 0);
    v_op(&b, 6, sizeof(frame), 1, 0, 0);
    buf_add(&b, frame, sizeof(frame));
    v_op(&b, 8, 0, 0, 0, 0);
    write_file("fuzz_virtio", "net_tx_rx", b.p, b.len);

    /* A disk write, completed; a read, in flight when the copy goes
     * live. */
    b.len = 0;
    v_init(&b, V_BLK, 1, 0x2000);
    hdr[8] = 2;
    v_ram(&b, 0x6000, hdr, 16);
    v_desc(&b, 0x2000, 0, 0x6000, 16, 1, 1);
    v_desc(&b, 0x2000, 1, 0x7000, 512, 1, 2);
    v_desc(&b, 0x2000, 2, 0x6100, 1, 2, 0);
    v_post(&b, 0x2100, 0, 0);
    v_bar(&b, V_BLK, 0x3000, 1, 0);
    v_op(&b, 7, 0, 1, 0, 0);
    hdr[0] = 0;                         /* IN */
    v_ram(&b, 0x6000, hdr, 16);
    v_desc(&b, 0x2000, 1, 0x7000, 512, 3, 2);
    v_post(&b, 0x2100, 1, 0);
    v_bar(&b, V_BLK, 0x3000, 1, 0);
    v_op(&b, 8, 0, 0, 0, 0);
    v_op(&b, 7, 0, 1, 0, 0);
    v_op(&b, 9, 0, 0, 0, 0);
    write_file("fuzz_virtio", "blk_rw", b.p, b.len);
    free(b.p);
}

/* The state stream's header: its length first (8 bytes), then it. */
static void put_sync(const char *name, uint64_t total, const uint8_t *hdr)
{
    uint8_t b[8 + SYNC_HDR];

    memcpy(b, &total, 8);
    memcpy(b + 8, hdr, SYNC_HDR);
    write_file("fuzz_sync", name, b, sizeof(b));
}

static void write_sync_seeds(void)
{
    struct sync_hdr h = { .gen = 1796186568151326ull, .size = 16777760 };
    uint8_t b[SYNC_HDR], t[SYNC_HDR];

    strcpy(h.name, "vm1");
    sync_hdr_put(b, &h);
    put_sync("good", SYNC_HDR + h.size, b);
    put_sync("bad_size", SYNC_HDR + h.size - 1, b);
    memcpy(t, b, sizeof(t));
    t[8] = 1;
    put_sync("bad_version1", SYNC_HDR + h.size, t);
    memcpy(t, b, sizeof(t));
    t[40] = 'x';
    put_sync("bad_padding", SYNC_HDR + h.size, t);
    memcpy(t, b, sizeof(t));
    t[33] = 0x1b;
    put_sync("bad_name_char", SYNC_HDR + h.size, t);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mkcorpus OUTDIR\n");
        return 2;
    }
    outdir = argv[1];
    make_dir("");
    make_dir("fuzz_log");
    make_dir("fuzz_logfile");
    make_dir("fuzz_ctl");
    make_dir("fuzz_frame");
    make_dir("fuzz_session");
    make_dir("fuzz_live");
    make_dir("fuzz_xencfg");
    make_dir("fuzz_sync");
    make_dir("fuzz_snapshot");
    make_dir("fuzz_virtio");
    write_log_seeds();
    write_logfile_seeds();
    write_ctl_seeds();
    write_frame_seeds();
    write_xencfg_seeds();
    write_snapshot_seeds();
    write_sync_seeds();
    write_virtio_seeds();
    return 0;
}
