/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sync_hdr.h - the header in front of the guest state a primary streams
 * to its secondary in STATE frames: which pair the state is of, the
 * generation it was made in, and how long it is.
 *
 *   0  8  magic "XFTDSYNC"
 *   8  4  version (2)
 *  12  4  0
 *  16  8  the pair's generation when the state was taken
 *  24  8  bytes of state after this header
 *  32 72  the pair's name, NUL-padded (1 to XLFT_ARB_NAME_MAX letters,
 *         digits, '-', '_' and '.')
 *
 * Integers in the host's byte order (both ends are x86).
 */
#ifndef FTD_SYNC_HDR_H
#define FTD_SYNC_HDR_H

#include <stddef.h>
#include <stdint.h>

#define SYNC_MAGIC  "XFTDSYNC"
#define SYNC_NAME   72u
#define SYNC_HDR    (32u + SYNC_NAME)
#define SYNC_VERSION 2u

struct sync_hdr {
    uint64_t gen;
    uint64_t size;              /* of the state after the header */
    char name[SYNC_NAME + 1];
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
