/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vblk.h - virtio-blk for xenft guests: one request at a time, waited
 * for with interrupts on.
 */
#ifndef XENFT_GUEST_VBLK_H
#define XENFT_GUEST_VBLK_H

#include "virtio.h"

#define VBLK_VECTOR 0x48            /* config 0x48, requests 0x49 */
#define VBLK_IN     0u
#define VBLK_OUT    1u

/* Find and start the disk; its size in 512-byte sectors.  0 or -1. */
int vblk_start(uint64_t *sectors, const char *who);
/* Read or write 'count' sectors at 'sector': the request's status (0
 * ok, 1 I/O error, 2 unsupported). */
uint8_t vblk_rw(uint32_t type, uint64_t sector, void *buf, uint32_t count);

#endif /* XENFT_GUEST_VBLK_H */
