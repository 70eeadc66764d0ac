// SPDX-License-Identifier: GPL-2.0-only
/*
 * xl-ft reads ftd's status with libxlft's public JSON reader.
 *
 * layer: tools/xl-ft
 */
#include <string.h>

#include "libxlft.h"
#include "status.h"

int probe(const char *doc)
{
    return xlft_json_check(doc, strlen(doc));
}
