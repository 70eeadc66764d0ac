// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_stress.c - a producer thread records millions of random records
 * through a small ring while a consumer thread drains it, both sleeping
 * only on the ring's own stall/wait protocol.  A lost wake-up shows as a
 * stuck thread (caught by a deadline), a lost, duplicated, reordered or
 * damaged record as a mismatch against the same random stream.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ft_recorder.h"
#include "unit.h"

#define DMA_MAX    512u
#define DEADLINE_S 30

/* A doorbell: what an event channel or eventfd is to the real sides. */
struct bell {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    unsigned long rings;
};

static void bell_ring(struct bell *b)
{
    pthread_mutex_lock(&b->lock);
    b->rings++;
    pthread_cond_signal(&b->cond);
    pthread_mutex_unlock(&b->lock);
}

/* Wait until rung since 'seen'; false if nothing for DEADLINE_S. */
static bool bell_wait(struct bell *b, unsigned long *seen)
{
    struct timespec until;
    int rc = 0;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += DEADLINE_S;
    pthread_mutex_lock(&b->lock);
    while (b->rings == *seen && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&b->cond, &b->lock, &until);
    *seen = b->rings;
    pthread_mutex_unlock(&b->lock);
    return rc != ETIMEDOUT;
}

struct stress {
    void *mem;
    uint32_t mem_size;
    uint64_t records;
    struct bell to_producer, to_consumer;
    /* Results, written by each thread. */
    const char *producer_error;
    const char *consumer_error;
    uint64_t consumed;
    uint64_t stalls, waits;
};

static void *producer(void *arg)
{
    struct stress *st = arg;
    static uint8_t dma[DMA_MAX];
    struct ft_ring ring;
    struct ft_recorder rec;
    struct ft_point pt = { 0, 0, 0 };
    unsigned long seen = 0;
    uint64_t prng = 1;

    if (ft_ring_init(&ring, st->mem, st->mem_size, FT_RING_RECORD) ||
        ft_ring_set_kind(&ring, FT_COUNTER_STEPS, FT_CPU_FTVM)) {
        st->producer_error = "ring init failed";
        bell_ring(&st->to_consumer);
        return NULL;
    }
    bell_ring(&st->to_consumer);
    if (ft_recorder_init(&rec, &ring)) {
        st->producer_error = "recorder init failed";
        return NULL;
    }

    for (uint64_t i = 0; i < st->records; i++) {
        struct ft_log_rec r;
        int rc;

        random_record(&prng, &pt, &r, dma, DMA_MAX);
        while ((rc = ft_record(&rec, &r)) == FT_EFULL) {
            st->stalls++;
            if (!bell_wait(&st->to_producer, &seen)) {
                st->producer_error = "stalled producer never woken";
                return NULL;
            }
        }
        if (rc) {
            st->producer_error = "record refused";
            return NULL;
        }
        if (ft_ring_consumer_waiting(&ring))
            bell_ring(&st->to_consumer);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    struct stress *st = arg;
    static uint8_t dma[DMA_MAX];
    uint8_t *buf = malloc(FT_LOG_REC_MAX + 4096);
    struct ft_ring ring;
    struct ft_codec dec;
    struct ft_point pt = { 0, 0, 0 };
    unsigned long seen = 0;
    uint64_t prng = 1;

    /* Attach once the producer has laid the ring out. */
    while (ft_ring_attach(&ring, st->mem, st->mem_size, FT_RING_RECORD)) {
        if (st->producer_error || !bell_wait(&st->to_consumer, &seen)) {
            st->consumer_error = "ring never appeared";
            goto out;
        }
    }
    ft_codec_init(&dec);

    while (st->consumed < st->records) {
        uint32_t nrec, off = 0;
        bool notify;
        int n = ft_ring_read_records(&ring, buf, FT_LOG_REC_MAX + 4096,
                                     &nrec, &notify);

        if (n < 0) {
            st->consumer_error = "ring read failed";
            goto out;
        }
        if (notify)
            bell_ring(&st->to_producer);
        if (n == 0) {
            if (ft_ring_wait(&ring) == FT_EAGAIN) {
                st->waits++;
                if (st->producer_error ||
                    !bell_wait(&st->to_consumer, &seen)) {
                    st->consumer_error = "waiting consumer never woken";
                    goto out;
                }
            }
            continue;
        }
        for (uint32_t i = 0; i < nrec; i++) {
            struct ft_log_rec want, got;
            int sz;

            random_record(&prng, &pt, &want, dma, DMA_MAX);
            sz = ft_log_decode(&dec, buf + off, (uint32_t)n - off, &got);
            if (sz <= 0 || !record_equal(&want, &got)) {
                st->consumer_error = "record lost, reordered or damaged";
                goto out;
            }
            ft_codec_advance(&dec, &got);
            off += (uint32_t)sz;
            st->consumed++;
        }
        if (off != (uint32_t)n) {
            st->consumer_error = "bytes left over after the records";
            goto out;
        }
    }
out:
    free(buf);
    /* Unblock a producer that may wait for space we will never free. */
    bell_ring(&st->to_producer);
    return NULL;
}

static void test_two_threads(void)
{
    struct stress st;
    pthread_t p, c;
    const char *env = getenv("FT_STRESS_RECORDS");

    memset(&st, 0, sizeof(st));
    st.records = env ? strtoull(env, NULL, 10) : 10000000ull;
    st.mem = ring_mem_new(FT_RING_MIN_DATA, &st.mem_size);
    pthread_mutex_init(&st.to_producer.lock, NULL);
    pthread_cond_init(&st.to_producer.cond, NULL);
    pthread_mutex_init(&st.to_consumer.lock, NULL);
    pthread_cond_init(&st.to_consumer.cond, NULL);

    CU_ASSERT_FATAL(pthread_create(&p, NULL, producer, &st) == 0);
    CU_ASSERT_FATAL(pthread_create(&c, NULL, consumer, &st) == 0);
    pthread_join(p, NULL);
    pthread_join(c, NULL);

    if (st.producer_error || st.consumer_error)
        fprintf(stderr, "\nstress: producer: %s, consumer: %s, "
                "after %llu records\n",
                st.producer_error ? st.producer_error : "ok",
                st.consumer_error ? st.consumer_error : "ok",
                (unsigned long long)st.consumed);
    CU_ASSERT_PTR_NULL(st.producer_error);
    CU_ASSERT_PTR_NULL(st.consumer_error);
    CU_ASSERT_EQUAL(st.consumed, st.records);
    /* The ring must really have been full and empty along the way. */
    CU_ASSERT(st.stalls > 0);
    fprintf(stderr, "\n    %llu records, %llu producer stalls, "
            "%llu consumer waits ", (unsigned long long)st.consumed,
            (unsigned long long)st.stalls, (unsigned long long)st.waits);
    free(st.mem);
}

void register_stress_tests(void)
{
    CU_pSuite s = CU_add_suite("ring stress", NULL, NULL);

    CU_add_test(s, "two threads, 10 million records", test_two_threads);
}
