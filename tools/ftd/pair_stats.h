/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pair_stats.h - what a pair can tell of itself beyond its state: the
 * figures behind `xl-ft ft-status --json` (tools/xl-ft/STATUS.md) and
 * ftd's metrics file.
 */
#ifndef FTD_PAIR_STATS_H
#define FTD_PAIR_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pair;

/* Counted by the pair engine as frames go by; rates once a second. */
struct pair_meter {
    uint64_t log_bytes;         /* LOG records sent or received */
    uint64_t dma_bytes;         /* of which DMA data: what the guest read
                                   from its disk and its network */
    uint64_t rtt_avg_ns;        /* a LOG frame to its ACK, 1/8 weight */
    bool have_rtt;
    bool diverged;              /* the copy's replay left the log */
    /* The sample rates are taken against (pair_stats_sample). */
    uint64_t t_ns, recs0, bytes0, dma0;
    double rec_s, log_bps, dma_bps;     /* per second, over the last one */
    bool have_rate;
};

/* One pair's figures; 'have_*' false: not known (yet, or on this side). */
struct pair_stats {
    const char *name, *role, *state, *peer;
    const char *holder;         /* who holds the generation, or NULL */
    uint64_t gen;
    uint64_t sent, acked, held;
    bool have_lag;
    uint64_t lag_us, lag_last_us;
    bool have_rate;
    double rec_s, log_mbit_s;
    /* The sizing rule: (disk reads + network receive) x 1.2. */
    double predicted_mbit_s;
    bool have_rtt;
    uint64_t ack_rtt_us;
    uint64_t log_bytes, dma_bytes;
    bool syncing;               /* the copy is on its way */
    uint64_t sync_done, sync_total;     /* bytes; total 0: not known yet */
    bool went_live;             /* this host's copy took over */
    bool diverged;
};

/* A LOG frame's records sent or received ('recs', 'len' bytes). */
void pair_meter_log(struct pair_meter *m, const uint8_t *recs, uint32_t len);
/* An ACK echoing the clock of the LOG frame it answers. */
void pair_meter_ack(struct pair_meter *m, uint64_t echo_ns, uint64_t now);

/* Once a second: the rates over the second past. */
void pair_stats_sample(struct pair *p);
void pair_stats(const struct pair *p, struct pair_stats *st);
/* The figures the status line adds to the state: " rec/s=... ...". */
void pair_stats_text(const struct pair_stats *st, char *buf, size_t len);

#endif /* FTD_PAIR_STATS_H */
