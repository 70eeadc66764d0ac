/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_layout.h - the fixed byte layouts of the formats libxlft speaks
 * (channel frames, stored logs, the copy stream), each written once.
 *
 * A layout is the list of its fields in order, F(name, offset, size) in
 * bytes:
 *
 *   #define XLFT_GOLIVE_FIELDS(F) \
 *       F(seq, 0, 8)
 *   XLFT_LAYOUT(golive, XLFT_GOLIVE_FIELDS)
 *
 * XLFT_LAYOUT declares struct xlft_layout_golive, one byte array per
 * field, and has the compiler check every offset against it: a field
 * that does not start where the one before ends, or a layout with a
 * gap, does not build.  Encoders and decoders take each offset and
 * size from it by name (XLFT_OFF, XLFT_SIZEOF), never from a number
 * of their own; the struct is never read or written as such, and the
 * byte order stays the code's (little-endian, tools/libxlft/bytes.h).
 * The documents' tables of these layouts (WIRE.md, hvm/core/FORMAT.md)
 * are checked against the lists by tests/unit/test_layout.c.
 */
#ifndef XLFT_LAYOUT_H
#define XLFT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define XLFT_LAYOUT_MEMBER(name, off, size)  uint8_t name[size];
#define XLFT_LAYOUT_AT(name, off, size) \
    _Static_assert(offsetof(xlft_layout_this, name) == (off), \
                   "field " #name " is not at offset " #off);
#define XLFT_LAYOUT_SUM(name, off, size)  + (size)

/* The checks sit in a function only for the block scope of its typedef. */
#define XLFT_LAYOUT(tag, FIELDS) \
    struct xlft_layout_##tag { FIELDS(XLFT_LAYOUT_MEMBER) }; \
    __attribute__((unused)) static void xlft_layout_check_##tag(void) \
    { \
        typedef struct xlft_layout_##tag xlft_layout_this; \
        FIELDS(XLFT_LAYOUT_AT) \
        _Static_assert(sizeof(xlft_layout_this) == \
                       0 FIELDS(XLFT_LAYOUT_SUM), \
                       "layout " #tag " has padding"); \
    }

/* Bytes of a whole layout. */
#define XLFT_LAYOUT_SIZE(tag)  ((unsigned int)sizeof(struct xlft_layout_##tag))

/* Where field 'f' of layout 'tag' starts, its size, where it ends. */
#define XLFT_OFF(tag, f)     offsetof(struct xlft_layout_##tag, f)
#define XLFT_SIZEOF(tag, f)  sizeof(((struct xlft_layout_##tag *)0)->f)
#define XLFT_END(tag, f)     (XLFT_OFF(tag, f) + XLFT_SIZEOF(tag, f))

#endif /* XLFT_LAYOUT_H */
