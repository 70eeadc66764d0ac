// SPDX-License-Identifier: GPL-2.0-only
/*
 * xl-ft reads ftd's JSON with libxlft's public reader (xlft_json.h);
 * the HTTP parser behind etcd's arbiter is libxlft's own.
 *
 * layer: tools/xl-ft
 * refused: http.h
 */
#include "http.h"
