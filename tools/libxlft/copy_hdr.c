// SPDX-License-Identifier: GPL-2.0-only
/*
 * copy_hdr.c - the fields of the copy stream's header and reply
 * (xlft_copy.h), checked before anything is made of them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "xlft_copy.h"

#define HDR_MAGIC   "XLFTCOPY"
#define REPLY_MAGIC "XLFTCRPY"

/* Magic and version at the start of either: 0 or what is wrong. */
static int check_start(const uint8_t *in, const char *magic,
                       const char *what, char *err, size_t errlen)
{
    uint32_t v;

    if (memcmp(in, magic, 8)) {
        snprintf(err, errlen, "not a xenft copy %s (bad magic)", what);
        return -EPROTO;
    }
    v = xlft_get32(in + 8);
    if (v != XLFT_COPY_VERSION) {
        snprintf(err, errlen, "copy %s of version %u, this side speaks %u",
                 what, v, XLFT_COPY_VERSION);
        return -EPROTONOSUPPORT;
    }
    return 0;
}

void xlft_copy_hdr_put(uint8_t out[XLFT_COPY_HDR_SIZE],
                       const struct xlft_copy_hdr *h)
{
    memcpy(out, HDR_MAGIC, 8);
    xlft_put32(out + 8, XLFT_COPY_VERSION);
    xlft_put32(out + 12, 0);
    xlft_put32(out + 16, h->domid);
    xlft_put32(out + 20, h->config_len);
}

int xlft_copy_hdr_get(const uint8_t in[XLFT_COPY_HDR_SIZE],
                      struct xlft_copy_hdr *h, char *err, size_t errlen)
{
    int rc = check_start(in, HDR_MAGIC, "stream", err, errlen);

    if (rc)
        return rc;
    if (xlft_get32(in + 12)) {
        snprintf(err, errlen, "copy stream with unknown flags %#x",
                 xlft_get32(in + 12));
        return -EPROTO;
    }
    h->domid = xlft_get32(in + 16);
    h->config_len = xlft_get32(in + 20);
    if (!h->config_len || h->config_len > XLFT_COPY_CONFIG_MAX) {
        snprintf(err, errlen, "copy stream with a configuration of %u "
                 "bytes (1 to %u)", h->config_len, XLFT_COPY_CONFIG_MAX);
        return -EPROTO;
    }
    return 0;
}

int xlft_copy_config_check(const uint8_t *cfg, uint32_t len, char *err,
                           size_t errlen)
{
    if (!len || memchr(cfg, '\0', len) != cfg + len - 1) {
        snprintf(err, errlen, "the copy's configuration is not one string "
                 "of %u bytes", len);
        return -EPROTO;
    }
    return 0;
}

void xlft_copy_reply_put(uint8_t out[XLFT_COPY_REPLY_SIZE], int32_t status,
                         uint32_t domid)
{
    memcpy(out, REPLY_MAGIC, 8);
    xlft_put32(out + 8, XLFT_COPY_VERSION);
    xlft_put32(out + 12, (uint32_t)status);
    xlft_put32(out + 16, domid);
    xlft_put32(out + 20, 0);
}

int xlft_copy_reply_get(const uint8_t in[XLFT_COPY_REPLY_SIZE],
                        int32_t *status, uint32_t *domid, char *err,
                        size_t errlen)
{
    int rc = check_start(in, REPLY_MAGIC, "reply", err, errlen);
    uint32_t s;

    if (rc)
        return rc;
    s = xlft_get32(in + 12);
    *domid = xlft_get32(in + 16);
    /* Success names a domain, failure an errno value, and nothing else. */
    if (xlft_get32(in + 20) || (s == 0 && *domid == 0) ||
        (s != 0 && (*domid != 0 || (int32_t)s >= 0 ||
                    (int32_t)s < -4095))) {
        snprintf(err, errlen, "copy reply with status %d and domain %u",
                 (int32_t)s, *domid);
        return -EPROTO;
    }
    *status = (int32_t)s;
    return 0;
}
