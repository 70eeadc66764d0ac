// SPDX-License-Identifier: GPL-2.0-only
/*
 * dom0's library does not reach the device core: a device model links
 * both, each through its own interface.
 *
 * layer: tools/libxlft
 * refused: vio.h
 */
#include "vio.h"
