/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * records.h - deterministic random records for tests and benchmarks.
 */
#ifndef XENFT_RECORDS_H
#define XENFT_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "ft_log.h"

/* xorshift64*: the same stream on every machine. */
static inline uint64_t prng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dull;
}

/*
 * A random record of any kind at a point at or after 'prev' (which it
 * advances); DMA data is written into 'dma_buf' (at least 'dma_max'
 * bytes) and pointed to.
 */
void random_record(uint64_t *prng, struct ft_point *prev,
                   struct ft_log_rec *r, uint8_t *dma_buf,
                   uint32_t dma_max);

/* Same kind, point and values (DMA data compared when both have it). */
bool record_equal(const struct ft_log_rec *a, const struct ft_log_rec *b);

#endif /* XENFT_RECORDS_H */
