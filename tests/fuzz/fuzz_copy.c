// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_copy.c - libFuzzer target: the checks of the copy stream's
 * header, configuration, devices and reply (xlft_copy.h), which read
 * bytes from the other host.  A refusal always says why; an accepted
 * header holds a configuration length within bounds, accepted devices
 * a state length within bounds; an accepted reply is either a domain
 * or an errno value.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xlft_copy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct xlft_copy_hdr h;
    char msg[200];
    uint32_t domid, dev_len;
    int32_t status;

    if (size >= XLFT_COPY_HDR_SIZE) {
        msg[0] = '\0';
        if (xlft_copy_hdr_get(data, &h, msg, sizeof(msg))) {
            if (!msg[0])
                abort();
        } else if (!h.config_len || h.config_len > XLFT_COPY_CONFIG_MAX) {
            abort();
        }
    }
    if (size >= XLFT_COPY_DEV_SIZE) {
        msg[0] = '\0';
        if (xlft_copy_dev_get(data, &dev_len, msg, sizeof(msg))) {
            if (!msg[0])
                abort();
        } else if (dev_len > XLFT_COPY_DEV_MAX) {
            abort();
        }
    }
    if (size >= XLFT_COPY_REPLY_SIZE) {
        msg[0] = '\0';
        if (xlft_copy_reply_get(data, &status, &domid, msg, sizeof(msg))) {
            if (!msg[0])
                abort();
        } else if (status ? domid || status > -1 : !domid) {
            abort();
        }
    }
    if (size && size <= UINT32_MAX) {
        msg[0] = '\0';
        if (xlft_copy_config_check(data, (uint32_t)size, msg, sizeof(msg))) {
            if (!msg[0])
                abort();
        } else if (data[size - 1] || memchr(data, '\0', size) !=
                   data + size - 1) {
            abort();
        }
    }
    return 0;
}
