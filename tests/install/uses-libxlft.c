// SPDX-License-Identifier: GPL-2.0-only
/*
 * uses-libxlft.c - a program built from what make install put in place
 * and nothing else (tests/install/layout.sh): libxlft.h, the headers it
 * includes, hvm/core's exported ones among them, and the libraries.
 */
#include <stdio.h>
#include <string.h>

#include "libxlft.h"

int main(void)
{
    static const char doc[] = "{\"version\": 1}";
    struct xlft_json v;
    int64_t n;

    if (xlft_json_check(doc, strlen(doc)) ||
        xlft_json_get(doc, strlen(doc), "version", &v) != 1 ||
        xlft_json_int(&v, &n) || n != 1) {
        fprintf(stderr, "uses-libxlft: cannot read %s\n", doc);
        return 1;
    }
    printf("%s: %s\n", xlft_ftvm_op_name(XLFT_FTVM_OP_RECORD),
           ft_strerror(FT_EFULL));
    return 0;
}
