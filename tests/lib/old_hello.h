/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * old_hello.h - the HELLO frame a peer of an earlier channel version
 * sends, byte by byte from that version's WIRE.md, for the tests that
 * an old peer is refused cleanly: version 1 (52 bytes: an 8-byte pair
 * id, no names) and version 2 (172 bytes: names, no counter).  Both
 * offer their own version alone, as primary of pair vm1 on host hostA,
 * encrypted, with this build's log format.
 */
#ifndef XENFT_OLD_HELLO_H
#define XENFT_OLD_HELLO_H

#include <stddef.h>
#include <stdint.h>

/* Payload sizes of the HELLO of versions 1 and 2. */
#define OLD_HELLO_V1_SIZE 52u
#define OLD_HELLO_V2_SIZE 172u

/*
 * Write the whole frame (header included) of 'version' (1 or 2) into
 * 'out', which has room for 20 + OLD_HELLO_V2_SIZE bytes: its length.
 */
size_t old_hello(uint8_t *out, unsigned int version);

#endif
