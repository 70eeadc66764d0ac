// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftd drives ftvm through libxlft (xlft_ftvm.h), not ftvm's insides.
 *
 * layer: tools/ftd
 * refused: ftvm.h
 */
#include "ftvm.h"
