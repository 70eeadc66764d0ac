// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_ctl.c - libFuzzer target: ftvm's check of control requests.  The
 * first byte says how many descriptors came with the request; a request
 * it accepts must be exactly one, with a known operation and version,
 * and the descriptors that operation takes (one for SAVE and RESTORE,
 * none for the others, HALT among them).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xlft_ftvm_ctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct xlft_ftvm_req req;
    char msg[200];
    int nfds;

    if (size < 1)
        return 0;
    nfds = data[0] & 3;
    msg[0] = '\0';
    if (xlft_ftvm_req_check(data + 1, (long)(size - 1), nfds, msg,
                            sizeof(msg))) {
        if (!msg[0] || !memchr(msg, '\0', sizeof(msg)))
            abort();            /* a refusal always says why */
        return 0;
    }
    if (size - 1 != sizeof(req))
        abort();
    memcpy(&req, data + 1, sizeof(req));
    if (req.magic != XLFT_FTVM_MAGIC || req.version != XLFT_FTVM_VERSION ||
        req.op < XLFT_FTVM_OP_STATUS || req.op > XLFT_FTVM_OP_MAX ||
        nfds != (req.op == XLFT_FTVM_OP_SAVE ||
                 req.op == XLFT_FTVM_OP_RESTORE))
        abort();
    return 0;
}
