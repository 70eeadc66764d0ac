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
#define DEV_MAGIC   "XLFTCDEV"

_Static_assert(sizeof(HDR_MAGIC) - 1 == XLFT_SIZEOF(copy_hdr, magic) &&
               sizeof(REPLY_MAGIC) - 1 == XLFT_SIZEOF(copy_reply, magic),
               "copy magic of another size than its field");
_Static_assert(XLFT_OFF(copy_reply, magic) == XLFT_OFF(copy_hdr, magic) &&
               XLFT_OFF(copy_reply, version) == XLFT_OFF(copy_hdr, version),
               "copy reply's magic or version not where the header's are");

/* Magic and version at the start of either: 0 or what is wrong. */
static int check_start(const uint8_t *in, const char *magic,
                       const char *what, char *err, size_t errlen)
{
    uint32_t v;

    if (memcmp(XLFT_AT(in, copy_hdr, magic), magic,
               XLFT_SIZEOF(copy_hdr, magic))) {
        snprintf(err, errlen, "not a xenft copy %s (bad magic)", what);
        return -EPROTO;
    }
    v = XLFT_GET(32, in, copy_hdr, version);
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
    memcpy(XLFT_AT(out, copy_hdr, magic), HDR_MAGIC,
           XLFT_SIZEOF(copy_hdr, magic));
    XLFT_PUT(32, out, copy_hdr, version, XLFT_COPY_VERSION);
    XLFT_PUT(32, out, copy_hdr, flags, 0);
    XLFT_PUT(32, out, copy_hdr, domid, h->domid);
    XLFT_PUT(32, out, copy_hdr, config_len, h->config_len);
}

int xlft_copy_hdr_get(const uint8_t in[XLFT_COPY_HDR_SIZE],
                      struct xlft_copy_hdr *h, char *err, size_t errlen)
{
    int rc = check_start(in, HDR_MAGIC, "stream", err, errlen);

    if (rc)
        return rc;
    if (XLFT_GET(32, in, copy_hdr, flags)) {
        snprintf(err, errlen, "copy stream with unknown flags %#x",
                 XLFT_GET(32, in, copy_hdr, flags));
        return -EPROTO;
    }
    h->domid = XLFT_GET(32, in, copy_hdr, domid);
    h->config_len = XLFT_GET(32, in, copy_hdr, config_len);
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

void xlft_copy_dev_put(uint8_t out[XLFT_COPY_DEV_SIZE], uint32_t dev_len)
{
    memcpy(XLFT_AT(out, copy_dev, magic), DEV_MAGIC,
           XLFT_SIZEOF(copy_dev, magic));
    XLFT_PUT(32, out, copy_dev, dev_len, dev_len);
    XLFT_PUT(32, out, copy_dev, reserved, 0);
}

int xlft_copy_dev_get(const uint8_t in[XLFT_COPY_DEV_SIZE],
                      uint32_t *dev_len, char *err, size_t errlen)
{
    if (memcmp(XLFT_AT(in, copy_dev, magic), DEV_MAGIC,
               XLFT_SIZEOF(copy_dev, magic))) {
        snprintf(err, errlen, "no device state where libxl's stream ends "
                 "(bad magic)");
        return -EPROTO;
    }
    *dev_len = XLFT_GET(32, in, copy_dev, dev_len);
    if (*dev_len > XLFT_COPY_DEV_MAX ||
        XLFT_GET(32, in, copy_dev, reserved)) {
        snprintf(err, errlen, "a device state of %u bytes (at most %u) or "
                 "with reserved bits %#x", *dev_len, XLFT_COPY_DEV_MAX,
                 XLFT_GET(32, in, copy_dev, reserved));
        return -EPROTO;
    }
    return 0;
}

void xlft_copy_reply_put(uint8_t out[XLFT_COPY_REPLY_SIZE], int32_t status,
                         uint32_t domid)
{
    memcpy(XLFT_AT(out, copy_reply, magic), REPLY_MAGIC,
           XLFT_SIZEOF(copy_reply, magic));
    XLFT_PUT(32, out, copy_reply, version, XLFT_COPY_VERSION);
    XLFT_PUT(32, out, copy_reply, status, (uint32_t)status);
    XLFT_PUT(32, out, copy_reply, domid, domid);
    XLFT_PUT(32, out, copy_reply, reserved, 0);
}

int xlft_copy_reply_get(const uint8_t in[XLFT_COPY_REPLY_SIZE],
                        int32_t *status, uint32_t *domid, char *err,
                        size_t errlen)
{
    int rc = check_start(in, REPLY_MAGIC, "reply", err, errlen);
    uint32_t s;

    if (rc)
        return rc;
    s = XLFT_GET(32, in, copy_reply, status);
    *domid = XLFT_GET(32, in, copy_reply, domid);
    /* Success names a domain, failure an errno value, and nothing else. */
    if (XLFT_GET(32, in, copy_reply, reserved) || (s == 0 && *domid == 0) ||
        (s != 0 && (*domid != 0 || (int32_t)s >= 0 ||
                    (int32_t)s < -4095))) {
        snprintf(err, errlen, "copy reply with status %d and domain %u",
                 (int32_t)s, *domid);
        return -EPROTO;
    }
    *status = (int32_t)s;
    return 0;
}
