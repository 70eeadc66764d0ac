/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sync_hdr.h - the header in front of the guest state a primary streams
 * to its secondary in STATE frames: which pair the state is of, the
 * generation it was made in, and how long it is.
 *
 * Laid out below (xlft_layout.h; WIRE.md's "state header" table is
 * checked against this list).  Integers are little-endian.
 */
#ifndef FTD_SYNC_HDR_H
#define FTD_SYNC_HDR_H

#include <stddef.h>
#include <stdint.h>

#include "xlft_layout.h"

#define SYNC_MAGIC   "XFTDSYNC"
#define SYNC_VERSION 2u

#define SYNC_HDR_FIELDS(F) \
    F(magic,     0, 8)  /* SYNC_MAGIC */ \
    F(version,   8, 4)  /* SYNC_VERSION */ \
    F(pad,      12, 4)  /* 0 */ \
    F(gen,      16, 8)  /* the pair's generation when the state was taken */ \
    F(size,     24, 8)  /* bytes of state after this header */ \
    F(name,     32, 72) /* the pair's name, NUL-padded */
XLFT_LAYOUT(sync_hdr, SYNC_HDR_FIELDS)
#define SYNC_HDR    XLFT_LAYOUT_SIZE(sync_hdr)
#define SYNC_NAME   ((unsigned int)XLFT_SIZEOF(sync_hdr, name))

struct sync_hdr {
    uint64_t gen;
    uint64_t size;              /* of the state after the header */
    char name[SYNC_NAME + 1];   /* NUL-terminated */
};

void sync_hdr_put(uint8_t out[SYNC_HDR], const struct sync_hdr *h);

/*
 * The header of a state stream of 'total' bytes: 0, or -EPROTO with
 * 'why' naming what is wrong (magic, version, padding, a size that is
 * not the stream's, a name that is empty, too long, of other characters
 * or not NUL-padded).
 */
int sync_hdr_get(const uint8_t in[SYNC_HDR], uint64_t total,
                 struct sync_hdr *h, char *why, size_t len);

#endif /* FTD_SYNC_HDR_H */
