// SPDX-License-Identifier: GPL-2.0-only
/*
 * fakeram.c - flat guest RAM for the device core's tests (fakeram.h).
 */
#include <string.h>

#include "fakeram.h"

bool fakeram_ok(void *ram, uint64_t gpa, uint32_t len)
{
    const struct fakeram *r = ram;

    return gpa <= r->size && len <= r->size - gpa;
}

int fakeram_read(void *ram, uint64_t gpa, void *buf, uint32_t len)
{
    const struct fakeram *r = ram;

    if (!fakeram_ok(ram, gpa, len))
        return -1;
    memcpy(buf, r->mem + gpa, len);
    return 0;
}

int fakeram_write(void *ram, uint64_t gpa, const void *buf, uint32_t len)
{
    struct fakeram *r = ram;

    if (!fakeram_ok(ram, gpa, len))
        return -1;
    memcpy(r->mem + gpa, buf, len);
    return 0;
}
