// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftdm is Xen's device model, not a part of ftvm: ftvm's headers are
 * not its to use.
 *
 * layer: tools/ftdm
 * refused: ftvm.h
 */
#include "ftvm.h"
