// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device core knows no hypervisor: ftvm's headers are above it.
 *
 * layer: hvm/devices
 * refused: ftvm.h
 */
#include "ftvm.h"
