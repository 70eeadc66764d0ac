// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftvm and ftd are both above libxlft and talk through its protocol,
 * not each other's headers.
 *
 * layer: hvm/ftvm
 * refused: backend.h
 */
#include "backend.h"
