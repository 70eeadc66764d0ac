// SPDX-License-Identifier: GPL-2.0-only
/*
 * libxlft is below ftd: the library may not use the daemon's engine.
 *
 * layer: tools/libxlft
 * refused: pair.h
 */
#include "pair.h"
