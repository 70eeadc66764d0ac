// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ring.c - the shared ring: set-up checks, empty, full and
 * back-pressure, wrap-around at every offset, index wrap at 2^32, and
 * refusal of impossible indices from the other side.
 */
#include <string.h>

#include "ft_abi.h"
#include "ft_recorder.h"
#include "unit.h"

struct pair {
    void *mem;
    uint32_t mem_size;
    struct ft_ring own;      /* hypervisor side: produces (RECORD) */
    struct ft_ring peer;     /* dom0 side: consumes */
    struct ft_recorder rec;
};

static void pair_new(struct pair *p, uint32_t data)
{
    p->mem = ring_mem_new(data, &p->mem_size);
    CU_ASSERT_FATAL(p->mem != NULL);
    ASSERT_RC(ft_ring_init(&p->own, p->mem, p->mem_size, FT_RING_RECORD),
              FT_OK);
    ASSERT_RC(ft_ring_set_kind(&p->own, FT_COUNTER_STEPS, FT_CPU_FTVM),
              FT_OK);
    ASSERT_RC(ft_ring_attach(&p->peer, p->mem, p->mem_size, FT_RING_RECORD),
              FT_OK);
    ASSERT_RC(ft_recorder_init(&p->rec, &p->own), FT_OK);
}

static void test_setup(void)
{
    uint32_t size;
    void *mem = ring_mem_new(FT_RING_MIN_DATA, &size);
    struct ft_ring r, a;
    struct ft_ring_hdr *h = mem;

    ASSERT_RC(ft_ring_init(&r, mem, size - 1, FT_RING_RECORD), FT_EINVAL);
    ASSERT_RC(ft_ring_init(&r, mem, size, 7), FT_EINVAL);
    /* Not yet initialised: no magic. */
    ASSERT_RC(ft_ring_attach(&a, mem, size, FT_RING_RECORD), FT_EPROTO);

    ASSERT_RC(ft_ring_init(&r, mem, size, FT_RING_RECORD), FT_OK);
    CU_ASSERT_EQUAL(h->data_size, FT_RING_MIN_DATA);
    CU_ASSERT_EQUAL(h->abi_version, FT_ABI_VERSION);
    /* Until the owner says what its points count, nobody takes it. */
    ASSERT_RC(ft_ring_attach(&a, mem, size, FT_RING_RECORD), FT_EPROTO);
    ASSERT_RC(ft_ring_set_kind(&r, FT_COUNTER_MAX + 1, FT_CPU_INTEL),
              FT_EINVAL);
    ASSERT_RC(ft_ring_set_kind(&r, FT_COUNTER_BRANCHES, FT_CPU_UNKNOWN),
              FT_EINVAL);
    ASSERT_RC(ft_ring_set_kind(&r, FT_COUNTER_BRANCHES, FT_CPU_MAX + 1),
              FT_EINVAL);
    ASSERT_RC(ft_ring_attach(&a, mem, size, FT_RING_RECORD), FT_EPROTO);
    ASSERT_RC(ft_ring_set_kind(&r, FT_COUNTER_BRANCHES, FT_CPU_INTEL),
              FT_OK);
    CU_ASSERT_EQUAL(h->counter, FT_COUNTER_BRANCHES);
    CU_ASSERT_EQUAL(h->cpu, FT_CPU_INTEL);
    ASSERT_RC(ft_ring_attach(&a, mem, size, FT_RING_REPLAY), FT_EPROTO);
    ASSERT_RC(ft_ring_attach(&a, mem, size - 1, FT_RING_RECORD), FT_EPROTO);
    ASSERT_RC(ft_ring_attach(&a, mem, size, FT_RING_RECORD), FT_OK);
    CU_ASSERT_EQUAL(a.counter, FT_COUNTER_BRANCHES);
    CU_ASSERT_EQUAL(a.cpu, FT_CPU_INTEL);

    /* What the other side wrote there is checked, not believed. */
    h->counter = FT_COUNTER_MAX + 1;
    ASSERT_RC(ft_ring_attach(&a, mem, size, FT_RING_RECORD), FT_EPROTO);
    h->counter = FT_COUNTER_STEPS;
    h->cpu = FT_CPU_MAX + 1;
    ASSERT_RC(ft_ring_attach(&a, mem, size, FT_RING_RECORD), FT_EPROTO);
    h->cpu = FT_CPU_AMD;
    ASSERT_RC(ft_ring_attach(&a, mem, size, FT_RING_RECORD), FT_OK);
    CU_ASSERT_EQUAL(a.counter, FT_COUNTER_STEPS);
    CU_ASSERT_EQUAL(a.cpu, FT_CPU_AMD);
    CU_ASSERT_STRING_EQUAL(ft_counter_name(a.counter), "steps");
    CU_ASSERT_STRING_EQUAL(ft_cpu_name(a.cpu), "AMD");
    CU_ASSERT_STRING_EQUAL(ft_counter_name(FT_COUNTER_MAX + 1), "?");

    /*
     * An old (or newer) peer is refused cleanly, not misread: version 1
     * had no counter or CPU, which a version 2 reader would take as
     * "none" on an unknown CPU.
     */
    CU_ASSERT_EQUAL(FT_ABI_VERSION, 2);
    h->abi_version = FT_ABI_VERSION - 1;
    ASSERT_RC(ft_ring_attach(&a, mem, size, FT_RING_RECORD),
              FT_EPROTONOSUPPORT);
    h->abi_version = FT_ABI_VERSION + 1;
    ASSERT_RC(ft_ring_attach(&a, mem, size, FT_RING_RECORD),
              FT_EPROTONOSUPPORT);
    h->abi_version = FT_ABI_VERSION;
    h->log_version = 0;
    ASSERT_RC(ft_ring_attach(&a, mem, size, FT_RING_RECORD),
              FT_EPROTONOSUPPORT);
    h->log_version = FT_LOG_VERSION;

    /* Sizes that do not describe a ring in this memory. */
    h->data_size = FT_RING_MIN_DATA + 4096;
    ASSERT_RC(ft_ring_attach(&a, mem, size, FT_RING_RECORD), FT_EPROTO);
    h->data_size = FT_RING_MIN_DATA * 2;
    ASSERT_RC(ft_ring_attach(&a, mem, size, FT_RING_RECORD), FT_EPROTO);
    h->data_size = FT_RING_MIN_DATA;
    h->hdr_size = 8192;
    ASSERT_RC(ft_ring_attach(&a, mem, size, FT_RING_RECORD), FT_EPROTO);
    h->hdr_size = FT_RING_HDR_SIZE;
    h->prod = 5;
    h->cons = 5 + FT_RING_MIN_DATA;     /* consumer ahead of producer */
    ASSERT_RC(ft_ring_attach(&a, mem, size, FT_RING_RECORD), FT_EPROTO);
    free(mem);

    /* The data area is the largest power of two that fits. */
    mem = ring_mem_new(3 * FT_RING_MIN_DATA, &size);
    ASSERT_RC(ft_ring_init(&r, mem, size, FT_RING_REPLAY), FT_OK);
    CU_ASSERT_EQUAL(r.size, 2 * FT_RING_MIN_DATA);
    free(mem);
}

static void test_empty(void)
{
    struct pair p;
    uint8_t *buf = malloc(FT_LOG_REC_MAX);
    uint32_t nrec;
    bool notify;
    struct ft_point pt = { 1, 2, 3 };
    int unread;

    pair_new(&p, FT_RING_MIN_DATA);
    ASSERT_RC(ft_ring_avail(&p.peer), 0);
    ASSERT_RC(ft_ring_read_records(&p.peer, buf, FT_LOG_REC_MAX, &nrec,
                                   &notify), 0);
    CU_ASSERT_EQUAL(nrec, 0);
    ASSERT_RC(ft_ring_read_records(&p.peer, buf, 16, &nrec, &notify),
              FT_EINVAL);

    /* The consumer waits; the producer's next record must wake it. */
    ASSERT_RC(ft_ring_wait(&p.peer), FT_EAGAIN);
    CU_ASSERT(ft_ring_flags(&p.peer) & FT_RING_F_WAITING);
    ASSERT_RC(ft_record_nmi(&p.rec, &pt), FT_OK);
    CU_ASSERT(ft_ring_consumer_waiting(&p.own));
    ASSERT_RC(ft_ring_read_records(&p.peer, buf, FT_LOG_REC_MAX, &nrec,
                                   &notify), 4);
    CU_ASSERT_EQUAL(nrec, 1);
    CU_ASSERT(!(ft_ring_flags(&p.peer) & FT_RING_F_WAITING));
    /*
     * A consumer that only looks while it waits keeps its wake-up: the
     * producer, checking after its publish, still signals.
     */
    ASSERT_RC(ft_ring_wait(&p.peer), FT_EAGAIN);
    ASSERT_RC(ft_record_nmi(&p.rec, &pt), FT_OK);
    unread = ft_ring_unread(&p.peer);
    CU_ASSERT(unread > 0);
    CU_ASSERT(ft_ring_consumer_waiting(&p.own));
    ASSERT_RC(ft_ring_read_records(&p.peer, buf, FT_LOG_REC_MAX, &nrec,
                                   &notify), unread);
    CU_ASSERT(!(ft_ring_flags(&p.peer) & FT_RING_F_WAITING));
    /* Records that arrive between "empty" and "wait" are not missed. */
    ASSERT_RC(ft_record_nmi(&p.rec, &pt), FT_OK);
    ASSERT_RC(ft_ring_wait(&p.peer), FT_OK);
    CU_ASSERT(!(ft_ring_flags(&p.peer) & FT_RING_F_WAITING));
    free(buf);
    free(p.mem);
}

static void test_full(void)
{
    struct pair p;
    uint8_t *buf = malloc(FT_LOG_REC_MAX);
    uint8_t dma[1000];
    struct ft_point pt = { 0, 0x1000, 0 };
    uint32_t prod, nrec, total = 0, records = 0;
    uint64_t seq;
    bool notify;
    int rc;

    memset(dma, 0x5a, sizeof(dma));
    pair_new(&p, FT_RING_MIN_DATA);
    while ((rc = ft_record_dma(&p.rec, &pt, 0x2000, dma, sizeof(dma)))
           == FT_OK) {
        records++;
        pt.count++;
    }
    ASSERT_RC(rc, FT_EFULL);
    CU_ASSERT(ft_ring_flags(&p.own) & FT_RING_F_STALLED);
    /* A full ring wrote nothing and moved nothing. */
    prod = p.own.prod;
    seq = ft_recorder_seq(&p.rec);
    CU_ASSERT_EQUAL(seq, records);
    ASSERT_RC(ft_record_dma(&p.rec, &pt, 0x2000, dma, sizeof(dma)),
              FT_EFULL);
    CU_ASSERT_EQUAL(p.own.prod, prod);
    CU_ASSERT_EQUAL(ft_recorder_seq(&p.rec), seq);
    /* Small records still fit in what is left, until nothing does. */
    while ((rc = ft_record_nmi(&p.rec, &pt)) == FT_OK)
        records++;
    ASSERT_RC(rc, FT_EFULL);
    CU_ASSERT(ft_ring_space(&p.own) < 3);

    /* Freeing space tells the consumer to notify the producer. */
    rc = ft_ring_read_records(&p.peer, buf, FT_LOG_REC_MAX, &nrec, &notify);
    CU_ASSERT(rc > 0);
    CU_ASSERT(notify);
    total += nrec;
    ASSERT_RC(ft_record_dma(&p.rec, &pt, 0x2000, dma, sizeof(dma)), FT_OK);
    records++;
    CU_ASSERT(!(ft_ring_flags(&p.own) & FT_RING_F_STALLED));

    while ((rc = ft_ring_read_records(&p.peer, buf, FT_LOG_REC_MAX, &nrec,
                                      &notify)) > 0)
        total += nrec;
    ASSERT_RC(rc, 0);
    CU_ASSERT_EQUAL(total, records);
    CU_ASSERT_EQUAL(p.peer.seq, records);
    CU_ASSERT_EQUAL(p.own.hdr->cons_seq, records);
    CU_ASSERT_EQUAL(p.own.hdr->prod_seq, records);
    free(buf);
    free(p.mem);
}

/*
 * Records of several sizes start at every offset near the end of the
 * data area, so that each byte position of a record meets the wrap.
 */
static void wrap_at(uint32_t start_index)
{
    static uint8_t dma[300];
    struct pair p;
    struct ft_log_rec want[4], got;
    struct ft_codec dec;
    uint8_t *buf = malloc(FT_LOG_REC_MAX);
    struct ft_point pt = { 10, 0xffffffff81000000ull, 7 };
    uint32_t nrec;
    bool notify;
    int n;

    for (unsigned int i = 0; i < sizeof(dma); i++)
        dma[i] = (uint8_t)(i * 7 + 1);
    p.mem = ring_mem_new(FT_RING_MIN_DATA, &p.mem_size);
    ft_ring_init(&p.own, p.mem, p.mem_size, FT_RING_RECORD);
    ft_ring_set_kind(&p.own, FT_COUNTER_STEPS, FT_CPU_FTVM);
    /* Start both indices where the test wants them. */
    p.own.hdr->prod = p.own.hdr->cons = start_index;
    p.own.prod = p.own.cons = start_index;
    p.own.room = 0;
    ASSERT_RC(ft_ring_attach(&p.peer, p.mem, p.mem_size, FT_RING_RECORD),
              FT_OK);
    ASSERT_RC(ft_recorder_init(&p.rec, &p.own), FT_OK);

    ASSERT_RC(ft_record_tsc(&p.rec, &pt, 0x123456789abcdefull), FT_OK);
    pt.count += 1000;
    ASSERT_RC(ft_record_dma(&p.rec, &pt, 0xfee00000, dma, sizeof(dma)),
              FT_OK);
    pt.rip += 0x1234567;
    ASSERT_RC(ft_record_mmio(&p.rec, &pt, 0xfebf0000, 8, UINT64_MAX), FT_OK);
    pt.rcx = UINT64_MAX;
    ASSERT_RC(ft_record_sync(&p.rec, &pt, 0x0123456789abcdefull), FT_OK);

    n = ft_ring_read_records(&p.peer, buf, FT_LOG_REC_MAX, &nrec, &notify);
    CU_ASSERT_EQUAL(nrec, 4);
    CU_ASSERT(n > 0);

    /* Decode what came out and compare with what went in. */
    ft_codec_init(&dec);
    memset(want, 0, sizeof(want));
    want[0].kind = FT_K_TSC;
    want[0].pt = (struct ft_point){ 10, 0xffffffff81000000ull, 7 };
    want[0].u.tsc.value = 0x123456789abcdefull;
    want[1].kind = FT_K_DMA;
    want[1].pt = want[0].pt;
    want[1].pt.count += 1000;
    want[1].u.dma.gpa = 0xfee00000;
    want[1].u.dma.len = sizeof(dma);
    want[1].u.dma.data = dma;
    want[2].kind = FT_K_MMIO;
    want[2].pt = want[1].pt;
    want[2].pt.rip += 0x1234567;
    want[2].u.mmio.gpa = 0xfebf0000;
    want[2].u.mmio.size = 8;
    want[2].u.mmio.value = UINT64_MAX;
    want[3].kind = FT_K_SYNC;
    want[3].pt = want[2].pt;
    want[3].pt.rcx = UINT64_MAX;
    want[3].u.sync.hash = 0x0123456789abcdefull;
    for (int i = 0, off = 0; i < 4 && off < n; i++) {
        int sz = ft_log_decode(&dec, buf + off, (uint32_t)(n - off), &got);

        CU_ASSERT_FATAL(sz > 0);
        CU_ASSERT(record_equal(&want[i], &got));
        ft_codec_advance(&dec, &got);
        off += sz;
    }
    CU_ASSERT_EQUAL(p.peer.cons, start_index + (uint32_t)n);
    free(buf);
    free(p.mem);
}

static void test_wrap_every_offset(void)
{
    /* 400 bytes of records starting anywhere in the last 500 bytes. */
    for (uint32_t back = 0; back <= 500; back++) {
        wrap_at(FT_RING_MIN_DATA - back);
        if (CU_get_number_of_failures())
            return;
    }
    /* The free-running 32-bit indices wrap too. */
    for (uint32_t back = 0; back <= 500; back += 7)
        wrap_at(0u - back);
}

static void test_bad_indices(void)
{
    struct pair p;
    struct ft_point pt = { 1, 2, 3 };
    uint8_t *buf = malloc(FT_LOG_REC_MAX);
    uint32_t nrec;
    bool notify;

    pair_new(&p, FT_RING_MIN_DATA);
    ASSERT_RC(ft_record_nmi(&p.rec, &pt), FT_OK);
    /* A consumer index past the producer: the producer refuses to go on
     * rather than overwrite what it cannot account for.  It reads the
     * index only when its cached copy says the ring may be full. */
    p.own.hdr->cons = p.own.prod + (1u << 31);
    ASSERT_RC(ft_ring_space(&p.own), FT_EPROTO);
    int rc, n = 0;
    while ((rc = ft_record_nmi(&p.rec, &pt)) == FT_OK &&
           n < (int)FT_RING_MIN_DATA)
        n++;
    ASSERT_RC(rc, FT_EPROTO);
    free(p.mem);

    pair_new(&p, FT_RING_MIN_DATA);
    ASSERT_RC(ft_record_nmi(&p.rec, &pt), FT_OK);

    /* A producer index beyond the ring is refused by the consumer. */
    p.own.hdr->prod = p.peer.cons + FT_RING_MIN_DATA + 1;
    ASSERT_RC(ft_ring_avail(&p.peer), FT_EPROTO);
    ASSERT_RC(ft_ring_read_records(&p.peer, buf, FT_LOG_REC_MAX, &nrec,
                                   &notify), FT_EPROTO);

    /* A published half record breaks the rule: refused, not returned. */
    p.own.hdr->prod = p.own.prod + 2;
    p.own.data[p.own.prod] = FT_K_TSC | 0x10;
    p.own.data[p.own.prod + 1] = 0x80;
    ASSERT_RC(ft_ring_read_records(&p.peer, buf, FT_LOG_REC_MAX, &nrec,
                                   &notify), FT_EPROTO);
    /* A malformed one is reported as such. */
    p.own.data[p.own.prod] = 0x0e;
    ASSERT_RC(ft_ring_read_records(&p.peer, buf, FT_LOG_REC_MAX, &nrec,
                                   &notify), FT_EBADMSG);
    free(buf);
    free(p.mem);
}

/* A DMA length that would wrap the size computation writes nothing. */
static void test_dma_length_refused(void)
{
    struct pair p;
    struct ft_point pt = { 1, 2, 3 };
    uint8_t data[16] = { 0 };
    uint32_t prod;

    pair_new(&p, FT_RING_MIN_DATA);
    /* A full ring: any byte written now would overwrite a record. */
    while (ft_record_nmi(&p.rec, &pt) == FT_OK)
        pt.count++;
    uint8_t *before = malloc(p.own.size);
    memcpy(before, p.own.data, p.own.size);
    prod = p.own.prod;
    /* A point whose encoding is long: the most an encoder could write. */
    pt.count += 1ull << 60;
    pt.rip = 0xffffffff81000000ull;
    pt.rcx = 0x8000000000000001ull;
    ASSERT_RC(ft_record_dma(&p.rec, &pt, 0, data, 0xffffffffu), FT_EINVAL);
    ASSERT_RC(ft_record_dma(&p.rec, &pt, 0, data, 0xffffffc0u), FT_EINVAL);
    ASSERT_RC(ft_record_dma(&p.rec, &pt, 0, data, FT_DMA_MAX + 1),
              FT_EINVAL);
    ASSERT_RC(ft_record_dma(&p.rec, &pt, 0, NULL, 16), FT_EINVAL);
    ASSERT_RC(ft_record_dma(&p.rec, &pt, 0, data, 0), FT_EINVAL);
    CU_ASSERT_EQUAL(p.own.prod, prod);
    CU_ASSERT(memcmp(before, p.own.data, p.own.size) == 0);
    free(before);
    free(p.mem);
}

static void test_ack(void)
{
    struct pair p;

    pair_new(&p, FT_RING_MIN_DATA);
    CU_ASSERT_EQUAL(ft_ring_ack(&p.own), 0);
    ft_ring_set_ack(&p.peer, 12345678901ull);
    CU_ASSERT_EQUAL(ft_ring_ack(&p.own), 12345678901ull);
    ft_ring_set_flags(&p.peer, FT_RING_F_GOLIVE);
    CU_ASSERT(ft_ring_flags(&p.own) & FT_RING_F_GOLIVE);
    ft_ring_clear_flags(&p.own, FT_RING_F_GOLIVE);
    CU_ASSERT_EQUAL(ft_ring_flags(&p.peer), 0);
    free(p.mem);
}

void register_ring_tests(void)
{
    CU_pSuite s = CU_add_suite("shared ring", NULL, NULL);

    CU_add_test(s, "set-up and version checks", test_setup);
    CU_add_test(s, "empty ring and consumer wake-up", test_empty);
    CU_add_test(s, "full ring: back-pressure, nothing lost", test_full);
    CU_add_test(s, "wrap-around at every offset", test_wrap_every_offset);
    CU_add_test(s, "impossible indices are refused", test_bad_indices);
    CU_add_test(s, "bad DMA lengths write nothing", test_dma_length_refused);
    CU_add_test(s, "ack and flags", test_ack);
}
