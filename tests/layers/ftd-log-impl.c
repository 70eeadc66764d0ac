// SPDX-License-Identifier: GPL-2.0-only
/*
 * The inline encoder is hvm/core's own; dom0 encodes through ft_log.h.
 *
 * layer: tools/ftd
 * refused: ft_log_impl.h
 */
#include "ft_log_impl.h"
