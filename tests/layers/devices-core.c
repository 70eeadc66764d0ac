// SPDX-License-Identifier: GPL-2.0-only
/*
 * Nor does it log: recording what it writes is the host's part.
 *
 * layer: hvm/devices
 * refused: ft_log.h
 */
#include "ft_log.h"
