/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hvm/core is below ftvm, the hypervisor that runs it.
 *
 * layer: hvm/core
 * refused: ftvm_devices.h
 */
#include "ftvm_devices.h"
