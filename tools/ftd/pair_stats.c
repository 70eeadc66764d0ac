// SPDX-License-Identifier: GPL-2.0-only
/*
 * pair_stats.c - a pair's figures (pair_stats.h): rates taken once a
 * second from counters the engine keeps as frames go by, the ACK round
 * trip from the clock a LOG frame carries and its ACK echoes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ft_log.h"
#include "pair_impl.h"
#include "pair_stats.h"

/* The sizing rule's allowance over what the guest reads (README). */
#define SIZING_FACTOR 1.2

void pair_meter_log(struct pair_meter *m, const uint8_t *recs, uint32_t len)
{
    uint32_t off = 0;

    m->log_bytes += len;
    /* Only heads are decoded: no state is needed to know a DMA's size. */
    while (off < len) {
        struct ft_log_rec r;

        if (ft_log_decode_head(NULL, recs + off, len - off, &r) <= 0)
            return;
        if (r.kind == FT_K_DMA)
            m->dma_bytes += r.u.dma.len;
        off += r.size;
    }
}

void pair_meter_ack(struct pair_meter *m, uint64_t echo_ns, uint64_t now)
{
    uint64_t rtt;

    if (!echo_ns || echo_ns > now)
        return;                 /* no LOG frame answered yet */
    rtt = now - echo_ns;
    if (!m->have_rtt)
        m->rtt_avg_ns = rtt;
    else if (rtt >= m->rtt_avg_ns)
        m->rtt_avg_ns += (rtt - m->rtt_avg_ns) / 8;
    else
        m->rtt_avg_ns -= (m->rtt_avg_ns - rtt) / 8;
    m->have_rtt = true;
}

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
