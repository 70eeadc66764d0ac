// SPDX-License-Identifier: GPL-2.0-only
/*
 * lag.c - the vLockstep interval (xlft_lag.h).  Samples are kept in
 * production order; an ACK consumes those it covers.
 */
#include <string.h>

#include "xlft_lag.h"

void xlft_lag_init(struct xlft_lag *l)
{
    memset(l, 0, sizeof(*l));
}

void xlft_lag_produced(struct xlft_lag *l, uint64_t seq, uint64_t now)
{
    unsigned int last = (l->head + l->n + XLFT_LAG_SAMPLES - 1) %
                        XLFT_LAG_SAMPLES;

    if (seq <= l->replayed || (l->n && seq <= l->s[last].seq) ||
        l->n == XLFT_LAG_SAMPLES)
        return;
    last = (l->head + l->n) % XLFT_LAG_SAMPLES;
    l->s[last].seq = seq;
    l->s[last].t = now;
    l->n++;
}

void xlft_lag_replayed(struct xlft_lag *l, uint64_t seq, uint64_t now)
{
    uint64_t t = 0;
    bool found = false;

    if (seq <= l->replayed)
        return;
    l->replayed = seq;
    /* Samples wholly replayed go; the last of them is the fallback. */
    while (l->n && l->s[l->head].seq < seq) {
        t = l->s[l->head].t;
        found = true;
        l->head = (l->head + 1) % XLFT_LAG_SAMPLES;
        l->n--;
    }
    /* The batch that held 'seq' is the first sample at or past it. */
    if (l->n) {
        t = l->s[l->head].t;
        found = true;
        if (l->s[l->head].seq == seq) {
            l->head = (l->head + 1) % XLFT_LAG_SAMPLES;
            l->n--;
        }
    }
    if (!found)
        return;
    l->last_ns = now > t ? now - t : 0;
    if (!l->have) {
        l->avg_ns = l->last_ns;
        l->have = true;
    } else if (l->last_ns >= l->avg_ns) {
        l->avg_ns += (l->last_ns - l->avg_ns) / 8;
    } else {
        l->avg_ns -= (l->avg_ns - l->last_ns) / 8;
    }
}

uint64_t xlft_lag_last_us(const struct xlft_lag *l)
{
    return l->last_ns / 1000;
}

uint64_t xlft_lag_avg_us(const struct xlft_lag *l)
{
    return l->avg_ns / 1000;
}

bool xlft_lag_over(const struct xlft_lag *l, uint64_t limit_us)
{
    return limit_us && l->have && l->avg_ns / 1000 > limit_us;
}
