// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctlmsg.c - the check of a control request as it comes off the socket,
 * before anything in it is believed (fuzzed by tests/fuzz/fuzz_ctl.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ftvm_ctl.h"

int ftvm_ctl_check(const void *buf, long len, int nfds, char *msg,
                   unsigned long msg_len)
{
    struct ftvm_ctl_req req;

    if (len != (long)sizeof(req)) {
        snprintf(msg, msg_len, "request of %ld bytes, expected %zu", len,
                 sizeof(req));
        return -EBADMSG;
    }
    memcpy(&req, buf, sizeof(req));
    if (req.magic != FTVM_CTL_MAGIC) {
        snprintf(msg, msg_len, "not an ftvm control request (magic "
                 "0x%08" PRIx32 ")", req.magic);
        return -EBADMSG;
    }
    if (req.version != FTVM_CTL_VERSION) {
        snprintf(msg, msg_len, "control protocol version %u, this ftvm "
                 "speaks version %u", req.version, FTVM_CTL_VERSION);
        return -EPROTONOSUPPORT;
    }
    if (req.op < FTVM_OP_STATUS || req.op > FTVM_OP_MAX) {
        snprintf(msg, msg_len, "unknown operation %u", req.op);
        return -EOPNOTSUPP;
    }
    if (req.op == FTVM_OP_THROTTLE && (req.arg < 1 || req.arg > 100)) {
        snprintf(msg, msg_len, "throttle to %" PRIu32 "%%: from 1 to 100",
                 req.arg);
        return -EINVAL;
    }
    if (req.flags & ~FTVM_CTL_F_HASH) {
        snprintf(msg, msg_len, "unknown flags 0x%" PRIx32, req.flags);
        return -EINVAL;
    }
    if (nfds != (req.op == FTVM_OP_SAVE || req.op == FTVM_OP_RESTORE)) {
        snprintf(msg, msg_len, "%s takes %s file descriptor", req.op ==
                 FTVM_OP_SAVE || req.op == FTVM_OP_RESTORE ? "SAVE and "
                 "RESTORE each" : "this operation", req.op == FTVM_OP_SAVE ||
                 req.op == FTVM_OP_RESTORE ? "one" : "no");
        return -EINVAL;
    }
    return 0;
}
