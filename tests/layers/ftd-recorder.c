// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftd consumes the ring; the recorder is the hypervisor's.
 *
 * layer: tools/ftd
 * refused: ft_recorder.h
 */
#include "ft_recorder.h"
