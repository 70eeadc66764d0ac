// SPDX-License-Identifier: GPL-2.0-only
/*
 * pair_stats.c - a pair's figures (pair_stats.h): rates taken once a
 * second from the counters of its meter (pair_meter.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pair_impl.h"
#include "pair_stats.h"

/* The sizing rule's allowance over what the guest reads (README). */
#define SIZING_FACTOR 1.2

static uint64_t records(const struct pair *p)
{
    return p->cfg.role == PAIR_PRIMARY ? p->sent : p->held;
}

void pair_stats_sample(struct pair *p)
{
    struct pair_meter *m = &p->meter;
    uint64_t now = pair_now_ns(), n = records(p);

    if (m->t_ns && now > m->t_ns) {
        double dt = (double)(now - m->t_ns) / 1e9;

        m->rec_s = (double)(n - m->recs0) / dt;
        m->log_bps = (double)(m->log_bytes - m->bytes0) / dt;
        m->dma_bps = (double)(m->dma_bytes - m->dma0) / dt;
        m->have_rate = true;
    }
    m->t_ns = now;
    m->recs0 = n;
    m->bytes0 = m->log_bytes;
    m->dma0 = m->dma_bytes;
}

void pair_stats(const struct pair *p, struct pair_stats *st)
{
    const struct pair_meter *m = &p->meter;
    bool primary = p->cfg.role == PAIR_PRIMARY;
    enum state s = p->ended ? p->end_st : p->st;

    memset(st, 0, sizeof(*st));
    st->name = p->name;
    st->role = primary ? "primary" : "secondary";
    st->state = pair_state_name(p->st);
    st->peer = p->peer;
    /* The claim's thread writes the holder: read only once it is done. */
    if (p->claim && !p->claim->running && p->claim->holder[0])
        st->holder = p->claim->holder;
    st->gen = p->gen;
    st->sent = p->sent;
    st->acked = p->acked;
    st->held = p->held;
    /* The lag is measured from ACKs, on the primary. */
    st->have_lag = primary && p->lag.have;
    st->lag_us = xlft_lag_avg_us(&p->lag);
    st->lag_last_us = xlft_lag_last_us(&p->lag);
    st->have_rate = m->have_rate;
    st->rec_s = m->rec_s;
    st->log_mbit_s = m->log_bps * 8 / 1e6;
    st->predicted_mbit_s = m->dma_bps * 8 / 1e6 * SIZING_FACTOR;
    st->have_rtt = m->have_rtt;
    st->ack_rtt_us = m->rtt_avg_ns / 1000;
    st->log_bytes = m->log_bytes;
    st->dma_bytes = m->dma_bytes;
    /* The gate is closed only while a secondary is being made or holds
     * the log; otherwise it has let everything out (or thrown it away,
     * halted). */
    st->have_held_outputs = primary;
    if (!p->ended &&
        (p->st == S_SYNC || p->st == S_PROTECTED || p->st == S_ARBITRATING))
        st->held_outputs = m->outputs - m->outputs_acked;
    st->syncing = p->st == S_SYNC;
    st->sync_done = p->sync_off;
    st->sync_total = p->sync_total;
    st->went_live = !primary && (s == S_GOING_LIVE || s == S_LIVE);
    st->diverged = m->diverged;
}

void pair_stats_text(const struct pair_stats *st, char *buf, size_t len)
{
    char rate[96] = " rec/s=- log-mbit=- predicted-mbit=-";
    char rtt[32] = " ack-rtt-us=-";

    if (st->have_rate)
        snprintf(rate, sizeof(rate), " rec/s=%.0f log-mbit=%.3f "
                 "predicted-mbit=%.3f", st->rec_s, st->log_mbit_s,
                 st->predicted_mbit_s);
    if (st->have_rtt)
        snprintf(rtt, sizeof(rtt), " ack-rtt-us=%" PRIu64, st->ack_rtt_us);
    snprintf(buf, len, "%s%s", rate, rtt);
}
