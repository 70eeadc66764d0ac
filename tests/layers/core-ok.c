/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hvm/core sees all of itself, the recorder's inline encoder included.
 *
 * layer: hvm/core
 */
#include "ft_log_impl.h"
#include "ft_recorder.h"
#include "ft_replayer.h"

uint64_t probe(const struct ft_recorder *rec);

uint64_t probe(const struct ft_recorder *rec)
{
    return ft_recorder_seq(rec);
}
