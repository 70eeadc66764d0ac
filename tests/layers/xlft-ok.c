// SPDX-License-Identifier: GPL-2.0-only
/*
 * libxlft sees hvm/core's exported headers, its public headers and, from
 * its own directory, its internal ones.
 *
 * layer: tools/libxlft
 */
#include "ft_log.h"
#include "ft_ring.h"
#include "say.h"
#include "xlft_ftvm.h"
#include "xlft_nfnl.h"

int probe(struct ft_ring *r)
{
    return ft_ring_avail(r) + (int)xlft_ftvm_op_name(XLFT_FTVM_OP_STATUS)[0];
}
