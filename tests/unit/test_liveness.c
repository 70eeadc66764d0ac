// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_liveness.c - failure detection and lag on a fake clock: when a
 * heartbeat is due, when a peer is late and when it is lost; how far
 * behind the secondary replays.
 */
#include <errno.h>
#include <string.h>

#include "xlft_heartbeat.h"
#include "xlft_lag.h"
#include "unit.h"

#define MS 1000000ull

static void test_hb_config(void)
{
    struct xlft_hb hb;
    struct xlft_hb_cfg bad1 = { 100, 250 }, bad2 = { 20000, 0 };
    char err[200];

    ASSERT_RC(xlft_hb_init(&hb, NULL, 0, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(hb.interval, XLFT_HB_INTERVAL_MS * MS);
    CU_ASSERT_EQUAL(hb.timeout, XLFT_HB_TIMEOUT_MS * MS);
    ASSERT_RC(xlft_hb_init(&hb, &bad1, 0, err, sizeof(err)), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "three intervals"));
    ASSERT_RC(xlft_hb_init(&hb, &bad2, 0, err, sizeof(err)), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "at most"));
}

static void test_hb_states(void)
{
    struct xlft_hb_cfg cfg = { 50, 300 };
    struct xlft_hb hb;
    char err[200];
    uint64_t t0 = 1000 * MS;

    ASSERT_RC(xlft_hb_init(&hb, &cfg, t0, err, sizeof(err)), 0);
    CU_ASSERT_FALSE(xlft_hb_due(&hb, t0 + 49 * MS));
    CU_ASSERT_TRUE(xlft_hb_due(&hb, t0 + 50 * MS));
    xlft_hb_sent(&hb, t0 + 50 * MS);
    CU_ASSERT_FALSE(xlft_hb_due(&hb, t0 + 60 * MS));
    CU_ASSERT_EQUAL(xlft_hb_next(&hb), t0 + 100 * MS);

    /* Log traffic counts as hearing the peer. */
    CU_ASSERT_EQUAL(xlft_hb_peer(&hb, t0 + 100 * MS), XLFT_PEER_ALIVE);
    CU_ASSERT_EQUAL(xlft_hb_peer(&hb, t0 + 101 * MS), XLFT_PEER_LATE);
    xlft_hb_heard(&hb, t0 + 150 * MS);
    CU_ASSERT_EQUAL(xlft_hb_peer(&hb, t0 + 160 * MS), XLFT_PEER_ALIVE);
    /* A clock reading from before is no news. */
    xlft_hb_heard(&hb, t0);
    CU_ASSERT_EQUAL(xlft_hb_peer(&hb, t0 + 449 * MS), XLFT_PEER_LATE);
    CU_ASSERT_EQUAL(xlft_hb_peer(&hb, t0 + 450 * MS), XLFT_PEER_LOST);
    /* Lost stays lost: the decision is the arbiter's now. */
    xlft_hb_heard(&hb, t0 + 451 * MS);
    CU_ASSERT_EQUAL(xlft_hb_peer(&hb, t0 + 452 * MS), XLFT_PEER_LOST);
    CU_ASSERT_STRING_EQUAL(xlft_peer_name(XLFT_PEER_LOST), "lost");
}

/*
 * A peer whose heartbeats arrive 60 ms apart with one 250 ms stall (a
 * descheduled daemon) is never lost; one that falls silent is lost
 * exactly at the timeout.
 */
static void test_hb_jitter(void)
{
    struct xlft_hb_cfg cfg = { 50, 300 };
    struct xlft_hb hb;
    char err[200];
    uint64_t t = 0, lost_at = 0;

    ASSERT_RC(xlft_hb_init(&hb, &cfg, t, err, sizeof(err)), 0);
    for (int i = 0; i < 200; i++) {
        t += i == 100 ? 250 * MS : 60 * MS;
        CU_ASSERT_NOT_EQUAL(xlft_hb_peer(&hb, t), XLFT_PEER_LOST);
        xlft_hb_heard(&hb, t);
    }
    for (uint64_t now = t; now < t + 1000 * MS; now += MS) {
        if (xlft_hb_peer(&hb, now) == XLFT_PEER_LOST) {
            lost_at = now;
            break;
        }
    }
    CU_ASSERT_EQUAL(lost_at, t + 300 * MS);
}

static void test_lag(void)
{
    struct xlft_lag l;

    xlft_lag_init(&l);
    CU_ASSERT_EQUAL(xlft_lag_avg_us(&l), 0);
    CU_ASSERT_FALSE(xlft_lag_over(&l, 1));
    xlft_lag_produced(&l, 10, 1000 * MS);
    xlft_lag_produced(&l, 20, 1001 * MS);
    xlft_lag_produced(&l, 30, 1002 * MS);
    /* Record 15 was in the batch taken at 1001 ms. */
    xlft_lag_replayed(&l, 15, 1004 * MS);
    CU_ASSERT_EQUAL(xlft_lag_last_us(&l), 3000);
    CU_ASSERT_EQUAL(xlft_lag_avg_us(&l), 3000);
    /* An old position changes nothing. */
    xlft_lag_replayed(&l, 12, 1100 * MS);
    CU_ASSERT_EQUAL(xlft_lag_last_us(&l), 3000);
    xlft_lag_replayed(&l, 30, 1010 * MS);
    CU_ASSERT_EQUAL(xlft_lag_last_us(&l), 8000);
    CU_ASSERT_EQUAL(xlft_lag_avg_us(&l), 3000 + 5000 / 8);
    CU_ASSERT_TRUE(xlft_lag_over(&l, 3000));
    CU_ASSERT_FALSE(xlft_lag_over(&l, 4000));
    CU_ASSERT_FALSE(xlft_lag_over(&l, 0));
}

/* Steady state: a lag of 2 ms on every batch averages to 2 ms; a full
 * sample ring reads long, never short. */
static void test_lag_steady_and_full(void)
{
    static struct xlft_lag l;
    uint64_t t = 0;

    xlft_lag_init(&l);
    for (uint64_t seq = 1; seq <= 5000; seq++) {
        t += MS;
        xlft_lag_produced(&l, seq, t);
        if (seq > 2)
            xlft_lag_replayed(&l, seq - 2, t);
    }
    CU_ASSERT_EQUAL(xlft_lag_avg_us(&l), 2000);

    xlft_lag_init(&l);
    for (uint64_t seq = 1; seq <= 1000; seq++)
        xlft_lag_produced(&l, seq, seq * MS);
    CU_ASSERT_EQUAL(l.n, XLFT_LAG_SAMPLES);
    xlft_lag_replayed(&l, 900, 1000 * MS);
    CU_ASSERT(xlft_lag_last_us(&l) >= (1000 - 900) * 1000);
}

void register_liveness_tests(void)
{
    CU_pSuite s = CU_add_suite("heartbeat and lag", NULL, NULL);

    CU_add_test(s, "heartbeat settings checked", test_hb_config);
    CU_add_test(s, "due, alive, late, lost", test_hb_states);
    CU_add_test(s, "jitter is not a failure, silence is",
                test_hb_jitter);
    CU_add_test(s, "lag per acknowledgement and averaged", test_lag);
    CU_add_test(s, "lag steady, and with a full sample ring",
                test_lag_steady_and_full);
}
