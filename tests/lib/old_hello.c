// SPDX-License-Identifier: GPL-2.0-only
/*
 * old_hello.c - HELLO frames of channel versions 1 and 2 (old_hello.h).
 */
#include <string.h>

#include "ft_log.h"
#include "old_hello.h"

size_t old_hello(uint8_t *out, unsigned int version)
{
    /* The header of every HELLO: version 1, whatever it offers. */
    static const uint8_t hdr[20] = { 'X', 'F', 'T', 'C', 1, 1 };
    size_t len = version == 1 ? OLD_HELLO_V1_SIZE : OLD_HELLO_V2_SIZE;
    uint8_t *p = out + sizeof(hdr);

    memset(out, 0, sizeof(hdr) + len);
    memcpy(out, hdr, sizeof(hdr));
    out[8] = (uint8_t)len;
    p[0] = p[2] = (uint8_t)version;     /* versions N to N */
    p[4] = 1;                           /* primary */
    p[5] = 1;                           /* encryption required */
    p[6] = FT_LOG_VERSION;
    p[8] = 3;                           /* domid */
    if (version == 1) {
        memset(p + 12, 0xfe, 8);        /* pair id */
        memset(p + 20, 0x5a, 32);       /* nonce */
    } else {
        memcpy(p + 12, "hostA", 5);
        memcpy(p + 76, "vm1", 3);
        memset(p + 140, 0x5a, 32);      /* nonce */
    }
    return sizeof(hdr) + len;
}
