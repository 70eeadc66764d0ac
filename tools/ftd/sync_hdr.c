// SPDX-License-Identifier: GPL-2.0-only
/*
 * sync_hdr.c - the state stream's header (sync_hdr.h), written by the
 * primary and checked by the secondary before it takes the stream for
 * the guest it names.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sync_hdr.h"
#include "xlft_arbiter.h"

_Static_assert(sizeof(SYNC_MAGIC) - 1 == XLFT_SIZEOF(sync_hdr, magic),
               "sync magic of another size than its field");

#define AT(buf, f)  ((buf) + XLFT_OFF(sync_hdr, f))

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return le32toh(v);
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return le64toh(v);
}

static void put32(uint8_t *p, uint32_t v)
{
    v = htole32(v);
    memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v)
{
    v = htole64(v);
    memcpy(p, &v, sizeof(v));
}

void sync_hdr_put(uint8_t out[SYNC_HDR], const struct sync_hdr *h)
{
    memset(out, 0, SYNC_HDR);
    memcpy(AT(out, magic), SYNC_MAGIC, XLFT_SIZEOF(sync_hdr, magic));
    put32(AT(out, version), SYNC_VERSION);
    put64(AT(out, gen), h->gen);
    put64(AT(out, size), h->size);
    memcpy(AT(out, name), h->name, strnlen(h->name, SYNC_NAME));
}

int sync_hdr_get(const uint8_t in[SYNC_HDR], uint64_t total,
                 struct sync_hdr *h, char *why, size_t len)
{
    const uint8_t *name = AT(in, name);
    uint32_t version = get32(AT(in, version)), pad = get32(AT(in, pad));
    size_t n;

    h->gen = get64(AT(in, gen));
    h->size = get64(AT(in, size));
    if (memcmp(AT(in, magic), SYNC_MAGIC, XLFT_SIZEOF(sync_hdr, magic))) {
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
