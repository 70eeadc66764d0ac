// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftvm uses libxlft's public headers, not the library's own.
 *
 * layer: hvm/ftvm
 * refused: say.h
 */
#include "say.h"
