// SPDX-License-Identifier: GPL-2.0-only
/*
 * say.c - an error message into the caller's buffer (say.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "say.h"

void xlft_say(char *msg, size_t msglen, const char *fmt, ...)
{
    va_list ap;

    if (!msg || !msglen)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
}
