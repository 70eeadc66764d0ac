// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftd sees libxlft through libxlft.h, hvm/core's ring and record codec,
 * and its own headers.
 *
 * layer: tools/ftd
 */
#include "ft_log.h"
#include "ft_ring.h"
#include "libxlft.h"
#include "pair.h"
#include "xlft_xen.h"

int probe(struct ft_ring *r, uint8_t *buf, uint32_t len)
{
    uint32_t nrec;
    bool notify;

    return ft_ring_read_records(r, buf, len, &nrec, &notify) +
           ft_log_scan(buf, len, &nrec);
}
