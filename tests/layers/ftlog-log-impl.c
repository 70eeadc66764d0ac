// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftlog writes changed copies of a log through ft_log.h's encoder.
 *
 * layer: tools/ftlog
 * refused: ft_log_impl.h
 */
#include "ft_log_impl.h"
