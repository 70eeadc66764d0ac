// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftd feeds the replay ring; the replayer is the hypervisor's.
 *
 * layer: tools/ftd
 * refused: ft_replayer.h
 */
#include "ft_replayer.h"
