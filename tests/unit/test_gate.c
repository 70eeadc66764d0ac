// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_gate.c - the output rule: nothing leaves before the secondary
 * holds its record, everything leaves in order, nothing is dropped when
 * the gate is full or a device refuses an output.
 */
#include <errno.h>
#include <string.h>

#include "xlft_gate.h"
#include "unit.h"

#define LOG_MAX 20000

struct sink {
    uint64_t ids[LOG_MAX];
    size_t n;
    uint64_t acked;             /* the test's idea of the acknowledgement */
    uint64_t seq_of[LOG_MAX + 1]; /* id -> tag */
    int fail_id;                /* refuse this id once with -EAGAIN */
    bool early;                 /* an output left before its record */
};

static int emit(void *opaque, uint32_t kind, uint64_t id, const void *data,
                size_t len)
{
    struct sink *s = opaque;

    (void)kind;
    (void)data;
    (void)len;
    if (s->fail_id && (uint64_t)s->fail_id == id) {
        s->fail_id = 0;
        return -EAGAIN;
    }
    if (s->seq_of[id] > s->acked)
        s->early = true;
    if (s->n < LOG_MAX)
        s->ids[s->n++] = id;
    return 0;
}

static struct sink sink;

static struct xlft_gate *gate(size_t max_bytes, size_t max_outputs)
{
    struct xlft_gate_limits lim = { max_bytes, max_outputs };
    struct xlft_gate *g;

    memset(&sink, 0, sizeof(sink));
    CU_ASSERT_FATAL(xlft_gate_new(&g, &lim, emit, &sink) == 0);
    return g;
}

static int hold(struct xlft_gate *g, uint64_t seq, uint64_t id, size_t len)
{
    static const char data[4096];

    sink.seq_of[id] = seq;
    return xlft_gate_hold(g, seq, 1, id, data, len);
}

static int release(struct xlft_gate *g, uint64_t acked)
{
    if (acked > sink.acked)
        sink.acked = acked;
    return xlft_gate_release(g, acked);
}

static void test_in_order_after_ack(void)
{
    struct xlft_gate *g = gate(0, 0);

    ASSERT_RC(hold(g, 5, 1, 10), 0);
    ASSERT_RC(hold(g, 5, 2, 10), 0);
    ASSERT_RC(hold(g, 9, 3, 10), 0);
    ASSERT_RC(release(g, 4), 0);
    CU_ASSERT_EQUAL(sink.n, 0);
    ASSERT_RC(release(g, 5), 2);
    ASSERT_RC(release(g, 3), 0);            /* acks never go back */
    CU_ASSERT_EQUAL(xlft_gate_acked(g), 5);
    ASSERT_RC(release(g, 100), 1);
    CU_ASSERT_EQUAL(sink.n, 3);
    CU_ASSERT(sink.ids[0] == 1 && sink.ids[1] == 2 && sink.ids[2] == 3);
    CU_ASSERT_FALSE(sink.early);
    CU_ASSERT_EQUAL(xlft_gate_held(g), 0);
    CU_ASSERT_EQUAL(xlft_gate_held_bytes(g), 0);
    xlft_gate_free(g);
}

static void test_limits(void)
{
    struct xlft_gate *g = gate(100, 2);

    ASSERT_RC(hold(g, 1, 1, 40), 0);
    ASSERT_RC(hold(g, 2, 2, 40), 0);
    ASSERT_RC(hold(g, 3, 3, 1), -ENOBUFS);      /* count */
    ASSERT_RC(release(g, 1), 1);
    ASSERT_RC(hold(g, 3, 3, 70), -ENOBUFS);     /* bytes */
    ASSERT_RC(hold(g, 3, 3, 60), 0);
    ASSERT_RC(hold(g, 4, 4, 101), -EINVAL);     /* could never fit */
    ASSERT_RC(hold(g, 2, 5, 1), -EINVAL);       /* tags never go back */
    ASSERT_RC(release(g, 10), 2);
    CU_ASSERT_EQUAL(sink.n, 3);
    CU_ASSERT(sink.ids[2] == 3);
    xlft_gate_free(g);
}

static void test_emit_refused(void)
{
    struct xlft_gate *g = gate(0, 0);

    for (uint64_t i = 1; i <= 4; i++)
        ASSERT_RC(hold(g, i, i, 8), 0);
    sink.fail_id = 2;
    ASSERT_RC(release(g, 4), -EAGAIN);
    CU_ASSERT_EQUAL(sink.n, 1);
    CU_ASSERT_EQUAL(xlft_gate_held(g), 3);
    ASSERT_RC(release(g, 4), 3);
    CU_ASSERT(sink.ids[1] == 2 && sink.ids[2] == 3 && sink.ids[3] == 4);
    xlft_gate_free(g);
}

static void test_open_close(void)
{
    struct xlft_gate *g = gate(0, 0);

    ASSERT_RC(hold(g, 7, 1, 8), 0);
    ASSERT_RC(hold(g, 8, 2, 8), 0);
    /* The secondary is lost: what is held goes, and new outputs pass. */
    sink.acked = UINT64_MAX;
    ASSERT_RC(xlft_gate_open(g), 2);
    CU_ASSERT(xlft_gate_is_open(g));
    ASSERT_RC(hold(g, 9, 3, 8), 0);
    CU_ASSERT_EQUAL(sink.n, 3);
    /* A new secondary: held again until acknowledged. */
    xlft_gate_close(g);
    sink.acked = 9;
    ASSERT_RC(hold(g, 10, 4, 8), 0);
    CU_ASSERT_EQUAL(sink.n, 3);
    ASSERT_RC(release(g, 10), 1);
    CU_ASSERT_EQUAL(sink.n, 4);
    CU_ASSERT_FALSE(sink.early);
    xlft_gate_free(g);
}

/* 20000 outputs, random tags and acknowledgements, a refusal now and then. */
static void test_random(void)
{
    struct xlft_gate *g = gate(1u << 20, 1000);
    uint64_t rng = 42, seq = 1, id = 0;

    while (id < LOG_MAX) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        seq += (rng >> 33) % 3;
        if (hold(g, seq, id + 1, (size_t)(rng >> 40) % 2000) == 0)
            id++;
        else
            release(g, seq);        /* full: the producer waits for acks */
        if ((rng >> 20) % 7 == 0)
            release(g, seq - (rng >> 50) % 4);
        if ((rng >> 24) % 97 == 0)
            sink.fail_id = (int)(id > 3 ? id - 2 : 1);
    }
    sink.fail_id = 0;
    release(g, seq);
    CU_ASSERT_EQUAL(sink.n, LOG_MAX);
    CU_ASSERT_FALSE(sink.early);
    for (size_t i = 0; i < sink.n; i++) {
        if (sink.ids[i] != i + 1) {
            CU_FAIL("outputs out of order or lost");
            break;
        }
    }
    xlft_gate_free(g);
}

void register_gate_tests(void)
{
    CU_pSuite s = CU_add_suite("output gate", NULL, NULL);

    CU_add_test(s, "held until acknowledged, then in order",
                test_in_order_after_ack);
    CU_add_test(s, "bounded: full means wait, never drop", test_limits);
    CU_add_test(s, "a refused output stays held, in order",
                test_emit_refused);
    CU_add_test(s, "opened when unprotected, closed again",
                test_open_close);
    CU_add_test(s, "20000 random outputs and acknowledgements", test_random);
}
