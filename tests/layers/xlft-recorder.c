// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recorder runs in the hypervisor; dom0 has hvm/core's exported
 * headers only.
 *
 * layer: tools/libxlft
 * refused: ft_recorder.h
 */
#include "ft_recorder.h"
