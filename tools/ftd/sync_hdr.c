// SPDX-License-Identifier: GPL-2.0-only
/*
 * sync_hdr.c - the state stream's header (sync_hdr.h), written by the
 * primary and checked by the secondary before it takes the stream for
 * the guest it names.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sync_hdr.h"
#include "xlft_arbiter.h"

void sync_hdr_put(uint8_t out[SYNC_HDR], const struct sync_hdr *h)
{
    memset(out, 0, SYNC_HDR);
    memcpy(out, SYNC_MAGIC, 8);
    memcpy(out + 8, &(uint32_t){ SYNC_VERSION }, 4);
    memcpy(out + 16, &h->gen, 8);
    memcpy(out + 24, &h->size, 8);
    memcpy(out + 32, h->name, strnlen(h->name, SYNC_NAME));
}

int sync_hdr_get(const uint8_t in[SYNC_HDR], uint64_t total,
                 struct sync_hdr *h, char *why, size_t len)
{
    const uint8_t *name = in + 32;
    uint32_t version, pad;
    size_t n;

    memcpy(&version, in + 8, 4);
    memcpy(&pad, in + 12, 4);
    memcpy(&h->gen, in + 16, 8);
    memcpy(&h->size, in + 24, 8);
    if (memcmp(in, SYNC_MAGIC, 8)) {
        snprintf(why, len, "the state does not start with a sync header");
        return -EPROTO;
    }
    if (version != SYNC_VERSION || pad) {
        snprintf(why, len, "sync header of version %u (this side reads %u)"
                 "%s", version, SYNC_VERSION, pad ? " with unknown bits" : "");
        return -EPROTO;
    }
    if (total < SYNC_HDR || h->size != total - SYNC_HDR) {
        snprintf(why, len, "sync header for %llu bytes of state in a "
                 "stream of %llu", (unsigned long long)h->size,
                 (unsigned long long)total);
        return -EPROTO;
    }
    n = strnlen((const char *)name, SYNC_NAME);
    for (size_t i = n; i < SYNC_NAME; i++) {
        if (name[i]) {
            snprintf(why, len, "sync header with bytes after its name");
            return -EPROTO;
        }
    }
    if (!n || n > XLFT_ARB_NAME_MAX) {
        snprintf(why, len, "sync header with a name of %zu bytes (1 to %d)",
                 n, XLFT_ARB_NAME_MAX);
        return -EPROTO;
    }
    /* A pair's name, as the arbiter takes it, and printable in messages. */
    for (size_t i = 0; i < n; i++) {
        if (!isalnum(name[i]) && !memchr("-_.", name[i], 3)) {
            snprintf(why, len, "sync header with a name of other "
                     "characters than letters, digits, '-', '_' and '.'");
            return -EPROTO;
        }
    }
    memcpy(h->name, name, n);
    h->name[n] = '\0';
    return 0;
}
