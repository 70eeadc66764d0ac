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

#define PAIR_OUT_MARKS 256

/* Counted by the pair engine as frames go by; rates once a second. */
struct pair_meter {
    uint64_t log_bytes;         /* LOG records sent or received */
    uint64_t dma_bytes;         /* of which DMA data: what the guest read
                                   from its disk and its network */
    uint64_t rtt_avg_ns;        /* a LOG frame to its ACK, 1/8 weight */
    bool have_rtt;
    bool diverged;              /* the copy's replay left the log */
    /*
     * Outputs the log sent holds (FT_K_OUTPUT records), and how many of
     * them the secondary has acknowledged: each mark says how many the
     * records up to its seq hold, for a frame with outputs not yet
     * acknowledged, oldest first (primary).  Full, the newest mark moves
     * up: an output then counts as held until a later ACK, never less.
     */
    uint64_t outputs, outputs_acked;
    struct { uint64_t seq, outputs; } marks[PAIR_OUT_MARKS];
    unsigned int mark_first, nmarks;
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
    /* Primary: outputs in the log sent, not yet acknowledged, which the
     * guest's gate holds (0 while the gate is open). */
    bool have_held_outputs;
    uint64_t held_outputs;
    bool syncing;               /* the copy is on its way */
    uint64_t sync_done, sync_total;     /* bytes; total 0: not known yet */
    bool went_live;             /* this host's copy took over */
    bool diverged;
};

/*
 * A LOG frame's records sent or received ('recs', 'len' bytes); on the
 * primary 'last' is the seq of its last record (0 on a secondary).
 */
void pair_meter_log(struct pair_meter *m, const uint8_t *recs, uint32_t len,
                    uint64_t last);
/* Primary: the secondary holds every record up to 'acked'. */
void pair_meter_acked(struct pair_meter *m, uint64_t acked);
/* An ACK echoing the clock of the LOG frame it answers. */
void pair_meter_ack(struct pair_meter *m, uint64_t echo_ns, uint64_t now);

/* Once a second: the rates over the second past. */
void pair_stats_sample(struct pair *p);
void pair_stats(const struct pair *p, struct pair_stats *st);
/* The figures the status line adds to the state: " rec/s=... ...". */
void pair_stats_text(const struct pair_stats *st, char *buf, size_t len);

#endif /* FTD_PAIR_STATS_H */
