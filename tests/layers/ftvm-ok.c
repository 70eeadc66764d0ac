// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftvm, a hypervisor as Xen is, sees all of hvm/core and libxlft's
 * public headers: the protocol it serves, the output gate, stored logs;
 * and the device core's public header.
 *
 * layer: hvm/ftvm
 */
#include "ft_recorder.h"
#include "ft_replayer.h"
#include "ftvm.h"
#include "vio.h"
#include "xlft_ftvm_ctl.h"
#include "xlft_gate.h"

int probe(const void *req, char *msg, unsigned long len)
{
    return xlft_ftvm_req_check(req, sizeof(struct xlft_ftvm_req), 0, msg,
                               len);
}
