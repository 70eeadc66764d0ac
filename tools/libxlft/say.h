/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * say.h - an error message into the caller's buffer (which may be NULL
 * or empty: then nothing is written).  Internal to libxlft.
 */
#ifndef XLFT_SAY_H
#define XLFT_SAY_H

#include <stddef.h>

__attribute__((format(printf, 3, 4)))
void xlft_say(char *msg, size_t msglen, const char *fmt, ...);

#endif /* XLFT_SAY_H */
