/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_lag.h - the vLockstep interval: how long after the primary
 * produced a record the secondary has replayed it.  The primary notes
 * when it took records from its ring (a sample per batch) and, with each
 * ACK, the secondary's replay position; the time since the batch that
 * held that position was taken is the lag.  Kept as a moving average
 * (1/8 weight per ACK).  A lag above the configured limit asks the
 * backend to slow the primary (ftvm slows its vCPU; Xen caps its
 * credit).  Pure state; the caller passes the time (ns).
 */
#ifndef XLFT_LAG_H
#define XLFT_LAG_H

#include <stdbool.h>
#include <stdint.h>

#define XLFT_LAG_SAMPLES 256

struct xlft_lag {
    struct { uint64_t seq, t; } s[XLFT_LAG_SAMPLES];
    unsigned int head, n;       /* oldest sample, how many */
    uint64_t replayed;          /* highest replay position seen */
    uint64_t last_ns, avg_ns;
    bool have;                  /* a lag was measured */
};

void xlft_lag_init(struct xlft_lag *l);

/*
 * Records up to 'seq' were taken from the ring at 'now'.  When the
 * sample ring is full new samples are skipped: the lag then reads long,
 * never short.
 */
void xlft_lag_produced(struct xlft_lag *l, uint64_t seq, uint64_t now);

/* The secondary has replayed up to 'seq' (from an ACK received at 'now'). */
void xlft_lag_replayed(struct xlft_lag *l, uint64_t seq, uint64_t now);

/* Last and averaged lag, microseconds (0 until one was measured). */
uint64_t xlft_lag_last_us(const struct xlft_lag *l);
uint64_t xlft_lag_avg_us(const struct xlft_lag *l);

/* The average is above 'limit_us' (0: no limit): slow the primary. */
bool xlft_lag_over(const struct xlft_lag *l, uint64_t limit_us);

#endif /* XLFT_LAG_H */
