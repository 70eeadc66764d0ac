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

#include "ftvm_ctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ftvm_ctl_req req;
    char msg[200];
    int nfds;

    if (size < 1)
        return 0;
    nfds = data[0] & 3;
    msg[0] = '\0';
    if (ftvm_ctl_check(data + 1, (long)(size - 1), nfds, msg,
                       sizeof(msg))) {
        if (!msg[0] || !memchr(msg, '\0', sizeof(msg)))
            abort();            /* a refusal always says why */
        return 0;
    }
    if (size - 1 != sizeof(req))
        abort();
    memcpy(&req, data + 1, sizeof(req));
    if (req.magic != FTVM_CTL_MAGIC || req.version != FTVM_CTL_VERSION ||
        req.op < FTVM_OP_STATUS || req.op > FTVM_OP_MAX ||
        nfds != (req.op == FTVM_OP_SAVE || req.op == FTVM_OP_RESTORE))
        abort();
    return 0;
}
