// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_meter.c - a pair's meter (tools/ftd/pair_meter.c): the outputs a
 * primary's gate holds, counted from the log it sends and the ACKs it
 * gets, exact while its marks last and never below the truth once they
 * are full; DMA bytes beside them.
 */
#include <string.h>

#include "ft_log.h"
#include "pair_stats.h"
#include "unit.h"

/* A frame of records: 'kinds' in order, as the recorder would. */
static uint32_t frame(struct ft_codec *c, const char *kinds, uint8_t *buf)
{
    static const uint8_t dma[16];
    uint32_t len = 0;

    for (const char *k = kinds; *k; k++) {
        struct ft_log_rec r = { .pt = { .count = c->count + 10,
                                        .rip = 0x1000 } };
        int n;

        switch (*k) {
        case 'o':
            r.kind = FT_K_OUTPUT;
            r.u.output.id = c->count;
            break;
        case 'd':
            r.kind = FT_K_DMA;
            r.u.dma.gpa = 0x2000;
            r.u.dma.len = sizeof(dma);
            break;
        default:
            r.kind = FT_K_TSC;
            r.u.tsc.value = c->count;
            break;
        }
        n = ft_log_encode(c, &r, buf + len);
        CU_ASSERT_FATAL(n > 0);
        len += (uint32_t)n;
        if (r.kind == FT_K_DMA) {
            memcpy(buf + len, dma, sizeof(dma));
            len += sizeof(dma);
        }
        ft_codec_advance(c, &r);
    }
    return len;
}

static uint64_t held(const struct pair_meter *m)
{
    return m->outputs - m->outputs_acked;
}

static void test_outputs_held(void)
{
    static struct pair_meter m;
    struct ft_codec c;
    uint8_t buf[1024];
    uint32_t n;

    memset(&m, 0, sizeof(m));
    ft_codec_init(&c);
    /* Records 1-3: one output; 4-5: none; 6-9: two and a DMA. */
    n = frame(&c, "tot", buf);
    pair_meter_log(&m, buf, n, 3);
    n = frame(&c, "tt", buf);
    pair_meter_log(&m, buf, n, 5);
    n = frame(&c, "odto", buf);
    pair_meter_log(&m, buf, n, 9);
    CU_ASSERT_EQUAL(m.outputs, 3);
    CU_ASSERT_EQUAL(held(&m), 3);
    CU_ASSERT_EQUAL(m.dma_bytes, 16);
    CU_ASSERT_EQUAL(m.nmarks, 2);       /* the frame without outputs: none */
    pair_meter_acked(&m, 2);
    CU_ASSERT_EQUAL(held(&m), 3);       /* record 2 is before the frame's end */
    pair_meter_acked(&m, 5);
    CU_ASSERT_EQUAL(held(&m), 2);
    pair_meter_acked(&m, 9);
    CU_ASSERT_EQUAL(held(&m), 0);
    CU_ASSERT_EQUAL(m.nmarks, 0);
    /* A secondary counts, and marks nothing. */
    n = frame(&c, "o", buf);
    pair_meter_log(&m, buf, n, 0);
    CU_ASSERT_EQUAL(m.nmarks, 0);
}

static void test_marks_full(void)
{
    static struct pair_meter m;
    struct ft_codec c;
    uint8_t buf[64];
    uint64_t seq = 0;
    uint32_t n;

    memset(&m, 0, sizeof(m));
    ft_codec_init(&c);
    /* One output a frame, twice as many frames as marks. */
    for (unsigned int i = 0; i < 2 * PAIR_OUT_MARKS; i++) {
        n = frame(&c, "to", buf);
        seq += 2;
        pair_meter_log(&m, buf, n, seq);
    }
    CU_ASSERT_EQUAL(m.nmarks, PAIR_OUT_MARKS);
    CU_ASSERT_EQUAL(held(&m), 2 * PAIR_OUT_MARKS);
    /* Exact while the marks were not full... */
    pair_meter_acked(&m, 2 * (PAIR_OUT_MARKS - 1));
    CU_ASSERT_EQUAL(held(&m), PAIR_OUT_MARKS + 1);
    /* ...then never fewer than the truth (here all but the last). */
    pair_meter_acked(&m, seq - 2);
    CU_ASSERT(held(&m) >= 1);
    pair_meter_acked(&m, seq);
    CU_ASSERT_EQUAL(held(&m), 0);
    CU_ASSERT_EQUAL(m.nmarks, 0);
}

void register_meter_tests(void)
{
    CU_pSuite s = CU_add_suite("pair meter", NULL, NULL);

    CU_add_test(s, "outputs held until acknowledged", test_outputs_held);
    CU_add_test(s, "marks full: never fewer than held", test_marks_full);
}
