// SPDX-License-Identifier: GPL-2.0-only
/*
 * libxlft is below ftvm: ftvm includes libxlft's protocol, never the
 * other way round.
 *
 * layer: tools/libxlft
 * refused: ftvm.h
 */
#include "ftvm.h"
