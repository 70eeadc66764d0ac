// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftvm_req.c - the check of an ftvm control request as it comes off the
 * socket, before anything in it is believed: ftvm serve's, kept with
 * the protocol (xlft_ftvm_ctl.h; fuzzed by tests/fuzz/fuzz_ctl.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "xlft_ftvm_ctl.h"

int xlft_ftvm_req_check(const void *buf, long len, int nfds, char *msg,
                        unsigned long msg_len)
{
    struct xlft_ftvm_req req;
    int fd_op;

    if (len != (long)sizeof(req)) {
        snprintf(msg, msg_len, "request of %ld bytes, expected %zu", len,
                 sizeof(req));
        return -EBADMSG;
    }
    memcpy(&req, buf, sizeof(req));
    if (req.magic != XLFT_FTVM_MAGIC) {
        snprintf(msg, msg_len, "not an ftvm control request (magic "
                 "0x%08" PRIx32 ")", req.magic);
        return -EBADMSG;
    }
    if (req.version != XLFT_FTVM_VERSION) {
        snprintf(msg, msg_len, "control protocol version %u, this ftvm "
                 "speaks version %u", req.version, XLFT_FTVM_VERSION);
        return -EPROTONOSUPPORT;
    }
    if (req.op < XLFT_FTVM_OP_STATUS || req.op > XLFT_FTVM_OP_MAX) {
        snprintf(msg, msg_len, "unknown operation %u", req.op);
        return -EOPNOTSUPP;
    }
    if (req.op == XLFT_FTVM_OP_THROTTLE && (req.arg < 1 || req.arg > 100)) {
        snprintf(msg, msg_len, "throttle to %" PRIu32 "%%: from 1 to 100",
                 req.arg);
        return -EINVAL;
    }
    if (req.flags & ~XLFT_FTVM_F_HASH) {
        snprintf(msg, msg_len, "unknown flags 0x%" PRIx32, req.flags);
        return -EINVAL;
    }
    fd_op = req.op == XLFT_FTVM_OP_SAVE || req.op == XLFT_FTVM_OP_RESTORE;
    if (nfds != fd_op) {
        snprintf(msg, msg_len, "%s takes %s file descriptor", fd_op ?
                 "SAVE and RESTORE each" : "this operation",
                 fd_op ? "one" : "no");
        return -EINVAL;
    }
    return 0;
}
