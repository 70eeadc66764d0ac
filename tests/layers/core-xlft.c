/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hvm/core goes into Xen: it may not lean on dom0's library.
 *
 * layer: hvm/core
 * refused: xlft_gate.h
 */
#include "xlft_gate.h"
