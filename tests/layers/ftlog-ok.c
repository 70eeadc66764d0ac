// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftlog reads and writes stored logs and their records.
 *
 * layer: tools/ftlog
 */
#include "ft_log.h"
#include "xlft_logfile.h"

const char *probe(unsigned int kind)
{
    return ft_log_kind_name(kind);
}
