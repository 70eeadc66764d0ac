// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_sync.c - libFuzzer target: the header of the state stream a
 * secondary's peer sends (tools/ftd/sync_hdr.h).  The first 8 bytes
 * are the stream's length, the rest the header.  A refusal says why;
 * an accepted header names a pair in its characters, describes a stream
 * of that length, and writes back to exactly its bytes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sync_hdr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t again[SYNC_HDR];
    struct sync_hdr h;
    uint64_t total;
    char msg[200];
    size_t n;

    if (size < 8 + SYNC_HDR)
        return 0;
    memcpy(&total, data, 8);
    msg[0] = '\0';
    if (sync_hdr_get(data + 8, total, &h, msg, sizeof(msg))) {
        if (!msg[0])
            abort();
        return 0;
    }
    n = strlen(h.name);
    if (!n || n > 64 || h.size != total - SYNC_HDR)
        abort();
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)h.name[i] < 0x21 || (unsigned char)h.name[i] > 0x7e)
            abort();
    sync_hdr_put(again, &h);
    if (memcmp(again, data + 8, SYNC_HDR))
        abort();
    return 0;
}
