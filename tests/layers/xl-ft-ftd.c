// SPDX-License-Identifier: GPL-2.0-only
/*
 * xl-ft knows ftd's status by its documented schema (STATUS.md), not
 * by ftd's headers.
 *
 * layer: tools/xl-ft
 * refused: status_json.h
 */
#include "status_json.h"
