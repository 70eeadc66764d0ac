// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device core's internals are its own: ftdm sees vio.h alone.
 *
 * layer: tools/ftdm
 * refused: vio_impl.h
 */
#include "vio_impl.h"
