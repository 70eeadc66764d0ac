// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_xencfg.c - libFuzzer target: the input is the libxl configuration
 * a peer sends with a Xen copy (the copy stream's JSON), checked against
 * this host's (tests/lib/xencfg.h) as a secondary checks it before it
 * lets libxl read it.
 *
 * Every answer must be a documented one with a printable message; what
 * is accepted must be one JSON document, and accepted the other way
 * round too (the comparison has no side that is looser).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xencfg.h"
#include "xlft_json.h"
#include "xlft_xen_config_allow.h"

static const char local[] = XENCFG_LOCAL;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *peer = (const char *)data;
    char msg[300];
    int rc;

    msg[0] = '\0';
    rc = xlft_xen_config_allowed(peer, size, local, sizeof(local) - 1, msg,
                                 sizeof(msg));
    if (rc != 0 && rc != -EPERM && rc != -EBADMSG && rc != -EMSGSIZE)
        abort();
    if (rc && !msg[0])
        abort();
    for (const char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
            abort();
    if (rc)
        return 0;
    if (xlft_json_check(peer, size))
        abort();
    if (xlft_xen_config_allowed(local, sizeof(local) - 1, peer, size, msg,
                                sizeof(msg)))
        abort();
    return 0;
}
