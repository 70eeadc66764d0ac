/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fakeram.h - guest RAM for tests of the device core: one flat buffer
 * from guest address 0, behind the RAM callbacks of struct vio_host.
 * The opaque pointer those callbacks get is the struct fakeram.
 */
#ifndef XENFT_FAKERAM_H
#define XENFT_FAKERAM_H

#include <stdbool.h>
#include <stdint.h>

struct fakeram {
    uint8_t *mem;
    uint64_t size;
};

/* vio_host.ram_read, .ram_write, .ram_ok: -1 or false outside RAM. */
int fakeram_read(void *ram, uint64_t gpa, void *buf, uint32_t len);
int fakeram_write(void *ram, uint64_t gpa, const void *buf, uint32_t len);
bool fakeram_ok(void *ram, uint64_t gpa, uint32_t len);

#endif
