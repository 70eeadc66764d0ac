// SPDX-License-Identifier: GPL-2.0-only
/*
 * The network gate's netlink messages are libxlft's own, whatever the
 * prefix of their header: ftd has xlft_netgate.h.
 *
 * layer: tools/ftd
 * refused: xlft_nfnl.h
 */
#include "xlft_nfnl.h"
