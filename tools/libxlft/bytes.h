/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bytes.h - little-endian fields of the formats libxlft reads and
 * writes (stored logs, channel frames, the copy stream), whatever the
 * host's byte order.  Internal to libxlft.
 */
#ifndef XLFT_BYTES_H
#define XLFT_BYTES_H

#include <stdint.h>

#include "xlft_layout.h"

/*
 * Field 'f' of layout 'tag' (xlft_layout.h) in 'buf', read or written
 * as a little-endian integer of 'bits': a field of another width does
 * not build.
 */
#define XLFT_AT(buf, tag, f)  ((buf) + XLFT_OFF(tag, f))
#define XLFT_WIDTH_IS(tag, f, bits) \
    ((void)sizeof(char[XLFT_SIZEOF(tag, f) * 8 == (bits) ? 1 : -1]))
#define XLFT_PUT(bits, buf, tag, f, v) \
    (XLFT_WIDTH_IS(tag, f, bits), xlft_put##bits(XLFT_AT(buf, tag, f), (v)))
#define XLFT_GET(bits, buf, tag, f) \
    (XLFT_WIDTH_IS(tag, f, bits), xlft_get##bits(XLFT_AT(buf, tag, f)))

static inline void xlft_put8(uint8_t *p, uint8_t v)
{
    p[0] = v;
}

static inline void xlft_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void xlft_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void xlft_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint8_t xlft_get8(const uint8_t *p)
{
    return p[0];
}

static inline uint16_t xlft_get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t xlft_get32(const uint8_t *p)
{
    uint32_t v = 0;

    for (int i = 0; i < 4; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static inline uint64_t xlft_get64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

#endif /* XLFT_BYTES_H */
