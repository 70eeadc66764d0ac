// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_log.c - the record codec: round trips of every kind at its
 * extremes, refusal of what cannot be encoded, and clean rejection of
 * malformed input.
 */
#include <string.h>

#include "unit.h"

/* Encode r after 'enc', decode it after 'dec', compare; advance both. */
static void round_trip(struct ft_codec *enc, struct ft_codec *dec,
                       const struct ft_log_rec *r)
{
    uint8_t buf[FT_LOG_REC_MAX];
    struct ft_log_rec got, part;
    int n, m;
    uint32_t nrec;

    n = ft_log_encode(enc, r, buf);
    CU_ASSERT_FATAL(n > 0 && n <= (int)FT_LOG_HEAD_MAX);
    if (r->kind == FT_K_DMA) {
        memcpy(buf + n, r->u.dma.data, r->u.dma.len);
        n += (int)r->u.dma.len;
    }
    m = ft_log_decode(dec, buf, (uint32_t)n, &got);
    CU_ASSERT_EQUAL(m, n);
    CU_ASSERT(record_equal(r, &got));
    CU_ASSERT_EQUAL(ft_log_scan(buf, (uint32_t)n, &nrec), n);
    CU_ASSERT_EQUAL(nrec, 1);
    /* Every proper prefix is incomplete, never a different record. */
    for (int len = 0; len < n; len++)
        CU_ASSERT_EQUAL(ft_log_decode(dec, buf, (uint32_t)len, &part),
                        FT_EMORE);
    ft_codec_advance(enc, r);
    ft_codec_advance(dec, &got);
}

static struct ft_log_rec at(unsigned int kind, uint64_t count, uint64_t rip,
                            uint64_t rcx)
{
    struct ft_log_rec r;

    memset(&r, 0, sizeof(r));
    r.kind = (uint8_t)kind;
    r.pt.count = count;
    r.pt.rip = rip;
    r.pt.rcx = rcx;
    return r;
}

static void test_extremes(void)
{
    static uint8_t data[FT_DMA_MAX];
    static const uint64_t vals[] = { 0, 1, 0x7f, 0x80, UINT32_MAX,
                                     INT64_MAX, (uint64_t)INT64_MAX + 1,
                                     UINT64_MAX - 1, UINT64_MAX };
    const unsigned int nv = sizeof(vals) / sizeof(vals[0]);
    struct ft_codec enc, dec;
    uint64_t count = 0;

    memset(data, 0xa5, sizeof(data));
    ft_codec_init(&enc);
    ft_codec_init(&dec);
    for (unsigned int i = 0; i < nv; i++) {
        for (unsigned int j = 0; j < nv; j++) {
            uint64_t v = vals[i], w = vals[j];
            struct ft_log_rec r;

            /* Points: rip and rcx at every extreme, count rising. */
            r = at(FT_K_EXTINT, count, v, w);
            r.u.intr.vector = (uint8_t)v;
            r.u.intr.src = (uint8_t)(w & 1);
            r.u.intr.timer = v & 2;
            round_trip(&enc, &dec, &r);
            r = at(FT_K_NMI, count, w, v);
            round_trip(&enc, &dec, &r);
            r = at(FT_K_TSC, count, v, v);
            r.u.tsc.value = w;
            round_trip(&enc, &dec, &r);
            r = at(FT_K_MSR, count, v, 0);
            r.u.msr.index = (uint32_t)v;
            r.u.msr.value = w;
            round_trip(&enc, &dec, &r);
            r = at(FT_K_PIO, count, 0, v);
            r.u.pio.port = (uint16_t)v;
            r.u.pio.size = 4;
            r.u.pio.value = (uint32_t)w;
            round_trip(&enc, &dec, &r);
            r.u.pio.size = 1;
            r.u.pio.value = (uint8_t)w;
            round_trip(&enc, &dec, &r);
            r = at(FT_K_MMIO, count, v, w);
            r.u.mmio.gpa = v & ((1ull << 62) - 1);
            r.u.mmio.size = 8;
            r.u.mmio.value = w;
            round_trip(&enc, &dec, &r);
            r = at(FT_K_RAND, count, w, w);
            r.u.rand.seed = i & 1;
            r.u.rand.size = 8;
            r.u.rand.value = w;
            round_trip(&enc, &dec, &r);
            r.u.rand.size = 2;
            r.u.rand.value = (uint16_t)w;
            round_trip(&enc, &dec, &r);
            r = at(FT_K_EVENT, count, v, w);
            r.u.event.type = (uint8_t)(v & 7);
            r.u.event.vector = (uint8_t)w;
            r.u.event.insn_len = 15;
            r.u.event.has_errcode = true;
            r.u.event.errcode = (uint32_t)w;
            r.u.event.has_cr2 = true;
            r.u.event.cr2 = v;
            round_trip(&enc, &dec, &r);
            r = at(FT_K_SYNC, count, v, w);
            r.u.sync.hash = w;
            round_trip(&enc, &dec, &r);
            r = at(FT_K_OUTPUT, count, v, w);
            r.u.output.id = w;
            round_trip(&enc, &dec, &r);
            r = at(FT_K_HLT_WAKE, count, v, w);
            round_trip(&enc, &dec, &r);
            r = at(FT_K_PROGRESS, count, w, v);
            round_trip(&enc, &dec, &r);
            r = at(FT_K_DMA, count, v, w);
            r.u.dma.gpa = w;
            r.u.dma.len = (i + j) % 2 ? FT_DMA_MAX : 1;
            r.u.dma.data = data;
            round_trip(&enc, &dec, &r);
            count += v >> 8;
            if (count > UINT64_MAX / 2)
                count = UINT64_MAX - 1;
        }
    }
    /* The largest count step there is: 0 to the maximum. */
    ft_codec_init(&enc);
    ft_codec_init(&dec);
    struct ft_log_rec r = at(FT_K_PROGRESS, UINT64_MAX, UINT64_MAX,
                             UINT64_MAX);
    round_trip(&enc, &dec, &r);
}

static void test_random_stream(void)
{
    static uint8_t dma[4096];
    struct ft_codec enc, dec;
    struct ft_point pt = { 0, 0, 0 };
    uint64_t prng = 42;

    ft_codec_init(&enc);
    ft_codec_init(&dec);
    for (int i = 0; i < 200000; i++) {
        struct ft_log_rec r;

        random_record(&prng, &pt, &r, dma, sizeof(dma));
        round_trip(&enc, &dec, &r);
        if (CU_get_number_of_failures())
            break;
    }
}

static void test_refused(void)
{
    struct ft_codec c;
    struct ft_log_rec r;
    uint8_t buf[FT_LOG_HEAD_MAX];

    ft_codec_init(&c);
    r = at(FT_K_TSC, 100, 0, 0);
    ft_codec_advance(&c, &r);

    r = at(FT_K_TSC, 99, 0, 0);        /* count going backwards */
    ASSERT_RC(ft_log_encode(&c, &r, buf), FT_EINVAL);
    r = at(FT_K_NR, 100, 0, 0);        /* no such kind */
    ASSERT_RC(ft_log_encode(&c, &r, buf), FT_EINVAL);
    r = at(FT_K_PIO, 100, 0, 0);
    r.u.pio.size = 3;
    ASSERT_RC(ft_log_encode(&c, &r, buf), FT_EINVAL);
    r.u.pio.size = 8;
    ASSERT_RC(ft_log_encode(&c, &r, buf), FT_EINVAL);
    r.u.pio.size = 1;
    r.u.pio.value = 0x100;             /* wider than its size */
    ASSERT_RC(ft_log_encode(&c, &r, buf), FT_EINVAL);
    r = at(FT_K_MMIO, 100, 0, 0);
    r.u.mmio.size = 8;
    r.u.mmio.gpa = 1ull << 62;
    ASSERT_RC(ft_log_encode(&c, &r, buf), FT_EINVAL);
    r.u.mmio.gpa = 0;
    r.u.mmio.size = 16;
    ASSERT_RC(ft_log_encode(&c, &r, buf), FT_EINVAL);
    r = at(FT_K_RAND, 100, 0, 0);
    r.u.rand.size = 1;
    ASSERT_RC(ft_log_encode(&c, &r, buf), FT_EINVAL);
    r = at(FT_K_DMA, 100, 0, 0);
    r.u.dma.len = 0;
    ASSERT_RC(ft_log_encode(&c, &r, buf), FT_EINVAL);
    r.u.dma.len = FT_DMA_MAX + 1;
    ASSERT_RC(ft_log_encode(&c, &r, buf), FT_EINVAL);
    r = at(FT_K_EVENT, 100, 0, 0);
    r.u.event.type = 8;
    ASSERT_RC(ft_log_encode(&c, &r, buf), FT_EINVAL);
    r = at(FT_K_EXTINT, 100, 0, 0);
    r.u.intr.src = FT_INTR_NR;         /* no such controller */
    ASSERT_RC(ft_log_encode(&c, &r, buf), FT_EINVAL);
}

/* Decode bytes from a fresh state; return the decoder's verdict. */
static int decode_bytes(const uint8_t *b, uint32_t len)
{
    struct ft_codec c;
    struct ft_log_rec r;

    ft_codec_init(&c);
    return ft_log_decode(&c, b, len, &r);
}

static void test_malformed(void)
{
    struct ft_log_rec r;
    uint32_t nrec;

    /* Unknown kinds 13..15, whatever follows. */
    for (uint8_t k = FT_K_NR; k < 16; k++) {
        uint8_t b[4] = { k, 0, 0, 0 };

        ASSERT_RC(decode_bytes(b, sizeof(b)), FT_EBADMSG);
        ASSERT_RC(ft_log_decode(NULL, b, sizeof(b), &r), FT_EBADMSG);
    }

    /* Varint overflow: ten bytes with more than bit 63, or eleven. */
    uint8_t ovf[12] = { FT_K_PROGRESS | 0x10, 0xff, 0xff, 0xff, 0xff, 0xff,
                        0xff, 0xff, 0xff, 0xff, 0x02, 0 };
    ASSERT_RC(decode_bytes(ovf, sizeof(ovf)), FT_EBADMSG);
    ovf[10] = 0x81;
    ASSERT_RC(decode_bytes(ovf, sizeof(ovf)), FT_EBADMSG);
    ovf[10] = 0x01;                    /* exactly 2^64 - 1: fine */
    ASSERT_RC(decode_bytes(ovf, 11), 11);

    /* Over-long varints: every value has one spelling. */
    uint8_t longz[] = { FT_K_NMI | 0x10, 0x80, 0x00 };
    ASSERT_RC(decode_bytes(longz, sizeof(longz)), FT_EBADMSG);
    uint8_t long5[] = { FT_K_NMI | 0x10, 0x85, 0x80, 0x00 };
    ASSERT_RC(decode_bytes(long5, sizeof(long5)), FT_EBADMSG);
    uint8_t ok5[] = { FT_K_NMI | 0x10, 0x85, 0x01 };
    ASSERT_RC(decode_bytes(ok5, sizeof(ok5)), 3);

    /* Count overflow: a delta that wraps the counter. */
    struct ft_codec c;
    ft_codec_init(&c);
    r = at(FT_K_PROGRESS, 5, 0, 0);
    ft_codec_advance(&c, &r);
    ASSERT_RC(ft_log_decode(&c, ovf, 11, &r), FT_EBADMSG);

    /* DMA length 0 and above the limit. */
    uint8_t dma0[] = { FT_K_DMA | 0x10, 0, 0x10, 0 };
    ASSERT_RC(decode_bytes(dma0, sizeof(dma0)), FT_EBADMSG);
    uint8_t dmabig[] = { FT_K_DMA | 0x10, 0, 0x10, 0x81, 0x80, 0x04 };
    ASSERT_RC(decode_bytes(dmabig, sizeof(dmabig)), FT_EBADMSG);
    uint8_t dmahuge[] = { FT_K_DMA | 0x10, 0, 0x10, 0xff, 0xff, 0xff, 0xff,
                          0x0f };
    ASSERT_RC(decode_bytes(dmahuge, sizeof(dmahuge)), FT_EBADMSG);
    /* A DMA record whose data is not all there is incomplete. */
    uint8_t dmacut[] = { FT_K_DMA | 0x10, 0, 0x10, 4, 1, 2 };
    ASSERT_RC(decode_bytes(dmacut, sizeof(dmacut)), FT_EMORE);
    ASSERT_RC(ft_log_decode_head(NULL, dmacut, sizeof(dmacut), &r), 8);
    CU_ASSERT_PTR_NULL(r.u.dma.data);
    /* DMA's k bit: a string read's bytes, not the device model's. */
    uint8_t dmak[] = { FT_K_DMA | 0x10 | 0x80, 0, 0x10, 2, 0xaa, 0xbb };
    ASSERT_RC(ft_log_decode_head(NULL, dmak, sizeof(dmak), &r), 6);
    CU_ASSERT(r.u.dma.insn);
    CU_ASSERT(ft_log_rec_is_sync(&r));
    dmak[0] &= 0x7f;
    ASSERT_RC(ft_log_decode_head(NULL, dmak, sizeof(dmak), &r), 6);
    CU_ASSERT(!r.u.dma.insn);
    CU_ASSERT(!ft_log_rec_is_sync(&r));

    /* The k bit where a kind has no use for it. */
    uint8_t nmik[] = { FT_K_NMI | 0x10 | 0x80, 0 };
    ASSERT_RC(decode_bytes(nmik, sizeof(nmik)), FT_EBADMSG);
    uint8_t synck[] = { FT_K_SYNC | 0x10 | 0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8 };
    ASSERT_RC(decode_bytes(synck, sizeof(synck)), FT_EBADMSG);

    /* PIO: size code 3, a port above 16 bits, a value wider than 1 byte;
     * and "same port as last time" with no last time. */
    uint8_t pio3[] = { FT_K_PIO | 0x10, 0, 0x03, 0 };
    ASSERT_RC(decode_bytes(pio3, sizeof(pio3)), FT_EBADMSG);
    uint8_t pioport[] = { FT_K_PIO | 0x10, 0, 0x80, 0x80, 0x10, 0 };
    ASSERT_RC(decode_bytes(pioport, sizeof(pioport)), FT_EBADMSG);
    uint8_t piowide[] = { FT_K_PIO | 0x10, 0, 0x00, 0x80, 0x02 };
    ASSERT_RC(decode_bytes(piowide, sizeof(piowide)), FT_EBADMSG);
    uint8_t piosame[] = { FT_K_PIO | 0x10 | 0x80, 0, 0 };
    ASSERT_RC(decode_bytes(piosame, sizeof(piosame)), FT_EBADMSG);

    /* MMIO value wider than its size; RAND size code 3. */
    uint8_t mmiowide[] = { FT_K_MMIO | 0x10, 0, 0x00, 0x80, 0x02 };
    ASSERT_RC(decode_bytes(mmiowide, sizeof(mmiowide)), FT_EBADMSG);
    uint8_t rand3[] = { FT_K_RAND | 0x10, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8 };
    ASSERT_RC(decode_bytes(rand3, sizeof(rand3)), FT_EBADMSG);

    /* EXTINT: a source that is no controller; one cut after its vector. */
    uint8_t intsrc[] = { FT_K_EXTINT | 0x10, 0, 0x27, FT_INTR_NR };
    ASSERT_RC(decode_bytes(intsrc, sizeof(intsrc)), FT_EBADMSG);
    intsrc[3] = FT_INTR_PIC;
    ASSERT_RC(decode_bytes(intsrc, sizeof(intsrc)), 4);
    ASSERT_RC(decode_bytes(intsrc, 3), FT_EMORE);
    /* A timer's tick: bit 7 beside the controller, not one of its own. */
    intsrc[3] = FT_INTR_TIMER | FT_INTR_PIC;
    ASSERT_RC(decode_bytes(intsrc, sizeof(intsrc)), 4);
    intsrc[3] = FT_INTR_TIMER | FT_INTR_NR;
    ASSERT_RC(decode_bytes(intsrc, sizeof(intsrc)), FT_EBADMSG);
    intsrc[3] = 0x40 | FT_INTR_PIC;
    ASSERT_RC(decode_bytes(intsrc, sizeof(intsrc)), FT_EBADMSG);

    /* EVENT: type above 7 or stray bits; MSR index above 32 bits. */
    uint8_t ev9[] = { FT_K_EVENT | 0x10, 0, 9, 14, 0 };
    ASSERT_RC(decode_bytes(ev9, sizeof(ev9)), FT_EBADMSG);
    uint8_t evbits[] = { FT_K_EVENT | 0x10, 0, 0x43, 14, 0 };
    ASSERT_RC(decode_bytes(evbits, sizeof(evbits)), FT_EBADMSG);
    uint8_t msrbig[] = { FT_K_MSR | 0x10, 0, 0x80, 0x80, 0x80, 0x80,
                         0x10, 0 };
    ASSERT_RC(decode_bytes(msrbig, sizeof(msrbig)), FT_EBADMSG);
    uint8_t everr[] = { FT_K_EVENT | 0x10 | 0x80, 0, 3, 14, 0,
                        0x80, 0x80, 0x80, 0x80, 0x10 };
    ASSERT_RC(decode_bytes(everr, sizeof(everr)), FT_EBADMSG);

    /* Empty input is incomplete; scan stops before a bad record. */
    ASSERT_RC(decode_bytes(NULL, 0), FT_EMORE);
    uint8_t two[] = { FT_K_NMI | 0x10, 1, 0x0f };
    ASSERT_RC(ft_log_scan(two, sizeof(two), &nrec), FT_EBADMSG);
    CU_ASSERT_EQUAL(nrec, 1);
    ASSERT_RC(ft_log_scan(two, 2, &nrec), 2);
    CU_ASSERT_EQUAL(nrec, 1);

    /* Malformed only given what came before: scan passes, check does not. */
    uint8_t pio2[] = { FT_K_PIO | 0x10, 1, 0x00, 0x07,
                       FT_K_PIO | 0x10 | 0x80, 1, 0x08,
                       FT_K_PIO | 0x10 | 0x80, 1, 0x7f };
    ASSERT_RC(ft_log_scan(piosame, sizeof(piosame), &nrec), 3);
    ft_codec_init(&c);
    ASSERT_RC(ft_log_check(&c, piosame, sizeof(piosame), &nrec),
              FT_EBADMSG);
    CU_ASSERT_EQUAL(nrec, 0);
    ft_codec_init(&c);
    ASSERT_RC(ft_log_check(&c, pio2, sizeof(pio2), &nrec), 10);
    CU_ASSERT_EQUAL(nrec, 3);
    CU_ASSERT_EQUAL(c.pio_size, 1);
    CU_ASSERT_EQUAL(c.count, 3);
    /* ...and the second PIO's value 8 fits one byte; 0x100 would not. */
    uint8_t pio3w[] = { FT_K_PIO | 0x10, 1, 0x00, 0x07,
                        FT_K_PIO | 0x10 | 0x80, 1, 0x80, 0x02 };
    ft_codec_init(&c);
    ASSERT_RC(ft_log_check(&c, pio3w, sizeof(pio3w), &nrec), FT_EBADMSG);
    CU_ASSERT_EQUAL(nrec, 1);
}

/* The size target of the issue: an idle 1000 Hz guest, ≤ 16 bytes/tick. */
static void test_idle_tick_size(void)
{
    struct ft_codec c;
    uint64_t prng = 7, tsc = 1000000, count = 0;
    uint8_t buf[FT_LOG_HEAD_MAX];
    unsigned long bytes = 0;
    const int ticks = 10000;

    ft_codec_init(&c);
    for (int i = 0; i < ticks; i++) {
        struct ft_log_rec r;
        uint64_t jitter = prng_next(&prng) % 60000;  /* up to 20 us */

        count += 40 + prng_next(&prng) % 360;
        r = at(FT_K_EXTINT, count, 0x100010, 0xffff888003a1b2c0ull);
        r.u.intr.vector = 0x20;
        bytes += (unsigned long)ft_log_encode(&c, &r, buf);
        ft_codec_advance(&c, &r);
        count += 12;
        r = at(FT_K_TSC, count, 0x100200, 0x1234);
        r.u.tsc.value = tsc + 3000000ull * (uint64_t)i + jitter;
        bytes += (unsigned long)ft_log_encode(&c, &r, buf);
        ft_codec_advance(&c, &r);
    }
    CU_ASSERT(bytes <= 16ul * ticks);
}

void register_log_tests(void)
{
    CU_pSuite s = CU_add_suite("log record codec", NULL, NULL);

    CU_add_test(s, "every kind at its extremes", test_extremes);
    CU_add_test(s, "200000 random records", test_random_stream);
    CU_add_test(s, "what cannot be encoded is refused", test_refused);
    CU_add_test(s, "malformed records are rejected", test_malformed);
    CU_add_test(s, "idle tick fits in 16 bytes", test_idle_tick_size);
}
