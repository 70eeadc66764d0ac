/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_copy.h - the stream that creates a secondary on Xen, version 2
 * (WIRE.md, "The copy stream"): a header, the guest's libxl
 * configuration in JSON, libxl's own migration stream (version 2), then
 * the state of the guest's ftdm devices, taken where libxl's stream
 * ends (none if it has no ftdm); over a connection, the receiver
 * answers with a reply once the copy is made.  These helpers only
 * encode and check those fields, so that they build, and are tested and
 * fuzzed, without Xen; xlft_xen_copy.h makes and restores the copy
 * itself.
 *
 * The header and the reply are laid out below (xlft_layout.h; WIRE.md's
 * tables are checked against these lists).  Integers are little-endian.
 * Errors are negative errno values; 'err' says what is wrong.
 */
#ifndef XLFT_COPY_H
#define XLFT_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "xlft_layout.h"

#define XLFT_COPY_VERSION       2u     /* 2: the devices' state */
#define XLFT_COPY_CONFIG_MAX    (1u << 20)
#define XLFT_COPY_DEV_MAX       8192u  /* XLFT_DM_STATE_MAX */

/* The header, then the configuration, then libxl's stream. */
#define XLFT_COPY_HDR_FIELDS(F) \
    F(magic,         0, 8)  /* "XLFTCOPY" */ \
    F(version,       8, 4)  /* XLFT_COPY_VERSION */ \
    F(flags,        12, 4)  /* 0 */ \
    F(domid,        16, 4)  /* the primary's */ \
    F(config_len,   20, 4)  /* NUL included, 1 to XLFT_COPY_CONFIG_MAX */
XLFT_LAYOUT(copy_hdr, XLFT_COPY_HDR_FIELDS)
#define XLFT_COPY_HDR_SIZE      XLFT_LAYOUT_SIZE(copy_hdr)

/* After libxl's stream: the devices' state, 'dev_len' bytes of it. */
#define XLFT_COPY_DEV_FIELDS(F) \
    F(magic,         0, 8)  /* "XLFTCDEV" */ \
    F(dev_len,       8, 4)  /* 0 (no ftdm) to XLFT_COPY_DEV_MAX */ \
    F(reserved,     12, 4)  /* 0 */
XLFT_LAYOUT(copy_dev, XLFT_COPY_DEV_FIELDS)
#define XLFT_COPY_DEV_SIZE      XLFT_LAYOUT_SIZE(copy_dev)

/* The reply; magic and version where the header has them. */
#define XLFT_COPY_REPLY_FIELDS(F) \
    F(magic,         0, 8)  /* "XLFTCRPY" */ \
    F(version,       8, 4)  /* XLFT_COPY_VERSION */ \
    F(status,       12, 4)  /* 0, or -errno (-4095 to -1) */ \
    F(domid,        16, 4)  /* the copy's, 0 if none */ \
    F(reserved,     20, 4)  /* 0 */
XLFT_LAYOUT(copy_reply, XLFT_COPY_REPLY_FIELDS)
#define XLFT_COPY_REPLY_SIZE    XLFT_LAYOUT_SIZE(copy_reply)

struct xlft_copy_hdr {
    uint32_t domid;             /* the primary's, for messages */
    uint32_t config_len;        /* bytes of JSON that follow, NUL last */
};

void xlft_copy_hdr_put(uint8_t out[XLFT_COPY_HDR_SIZE],
                       const struct xlft_copy_hdr *h);
/* -EPROTO: not a copy stream; -EPROTONOSUPPORT: another version. */
int xlft_copy_hdr_get(const uint8_t in[XLFT_COPY_HDR_SIZE],
                      struct xlft_copy_hdr *h, char *err, size_t errlen);

/* The configuration: 'len' bytes, one NUL, the last.  0 or -EPROTO. */
int xlft_copy_config_check(const uint8_t *cfg, uint32_t len, char *err,
                           size_t errlen);

void xlft_copy_dev_put(uint8_t out[XLFT_COPY_DEV_SIZE], uint32_t dev_len);
/* 0 with the length of the state that follows, or -EPROTO. */
int xlft_copy_dev_get(const uint8_t in[XLFT_COPY_DEV_SIZE],
                      uint32_t *dev_len, char *err, size_t errlen);

void xlft_copy_reply_put(uint8_t out[XLFT_COPY_REPLY_SIZE], int32_t status,
                         uint32_t domid);
/*
 * 0 with the receiver's 'status' (0: the copy is domain 'domid') or
 * -EPROTO / -EPROTONOSUPPORT if the bytes are not such a reply.
 */
int xlft_copy_reply_get(const uint8_t in[XLFT_COPY_REPLY_SIZE],
                        int32_t *status, uint32_t *domid, char *err,
                        size_t errlen);

#endif /* XLFT_COPY_H */
