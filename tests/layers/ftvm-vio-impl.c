// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device core's internals are its own: ftvm sees vio.h alone.
 *
 * layer: hvm/ftvm
 * refused: vio_impl.h
 */
#include "vio_impl.h"
