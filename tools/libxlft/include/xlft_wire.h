/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_wire.h - the logging channel's wire format, version 2.
 *
 * The one definition of what travels between the primary's and the
 * secondary's ftd; tools/libxlft/WIRE.md explains it and the two change
 * together.  Every integer is little-endian and at the offset given
 * here; there is no padding, no optional field and no field a reader
 * may ignore: a frame that does not match this exactly is refused.
 */
#ifndef XLFT_WIRE_H
#define XLFT_WIRE_H

/* Versions of the channel protocol this code speaks. */
#define XLFT_WIRE_VERSION_MIN  2u
#define XLFT_WIRE_VERSION_MAX  2u
/*
 * The header version of every HELLO, whatever it offers, so that any
 * version reads it; and of an ERROR answering one a side cannot take.
 */
#define XLFT_WIRE_VERSION_HELLO 1u

/*
 * Frame header, XLFT_HDR_SIZE bytes, then 'length' bytes of payload.
 *   0  4  magic XLFT_WIRE_MAGIC ("XFTC")
 *   4  1  version: the negotiated version (HELLO: see WIRE.md)
 *   5  1  type, XLFT_T_*
 *   6  2  flags, XLFT_F_*; undefined bits are 0
 *   8  4  payload length, at most XLFT_FRAME_MAX - XLFT_HDR_SIZE
 *  12  8  frame sequence number: 0, 1, 2, ... per direction
 * An encrypted payload is the ciphertext followed by a 16-byte tag; the
 * header is its additional authenticated data.
 */
#define XLFT_WIRE_MAGIC   0x43544658u   /* "XFTC" */
#define XLFT_HDR_SIZE     20u
#define XLFT_FRAME_MAX    (1u << 20)    /* header included */
#define XLFT_TAG_SIZE     16u
/* Largest plaintext payload: room for a tag is kept in either mode. */
#define XLFT_PLAIN_MAX    (XLFT_FRAME_MAX - XLFT_HDR_SIZE - XLFT_TAG_SIZE)

#define XLFT_F_ENCRYPTED  0x0001u       /* AES-256-GCM payload + tag */
#define XLFT_F_ALL        XLFT_F_ENCRYPTED

/* Frame types. */
#define XLFT_T_HELLO      1u    /* initiator -> responder, in clear */
#define XLFT_T_HELLO_ACK  2u    /* both ways once, in clear, with a MAC */
#define XLFT_T_LOG        3u    /* primary -> secondary: records */
#define XLFT_T_ACK        4u    /* secondary -> primary */
#define XLFT_T_HEARTBEAT  5u    /* both ways */
#define XLFT_T_STATE      6u    /* primary -> secondary: state stream */
#define XLFT_T_GOLIVE     7u    /* primary -> secondary */
#define XLFT_T_SHUTDOWN   8u    /* both ways */
#define XLFT_T_ERROR      9u    /* both ways, then the sender closes */
#define XLFT_T_MAX        9u

/*
 * A name on the wire (a host's, a pair's): 1 to XLFT_NAME_SIZE bytes of
 * [A-Za-z0-9._-], not starting with '.', then NUL bytes to the end of
 * the field.
 */
#define XLFT_NAME_SIZE       64u

/*
 * HELLO, XLFT_HELLO_SIZE bytes, laid out so whatever range it offers
 * that includes version 2.
 *   0  2  lowest channel version the sender speaks (>= 1)
 *   2  2  highest (>= lowest)
 *   4  1  sender's role, XLFT_ROLE_*
 *   5  1  sender's encryption setting, XLFT_ENC_*
 *   6  2  log format version (FT_LOG_VERSION) of the records it sends
 *   8  4  domid of the protected guest on the sender's host
 *  12 64  host: the sender's host name (ft.conf host-name)
 *  76 64  pair: the protected guest's name, the same on both hosts
 * 140 32  sender's nonce, fresh random bytes
 */
#define XLFT_HELLO_SIZE      172u
#define XLFT_NONCE_SIZE      32u

/*
 * HELLO_ACK, XLFT_HELLO_ACK_SIZE bytes.
 *   0  2  the chosen channel version
 *   2  1  sender's role
 *   3  1  sender's encryption setting
 *   4  2  log format version
 *   6  4  sender's domid
 *  10 64  host: the sender's host name
 *  74 64  pair
 * 138 32  sender's nonce
 * 170 32  key confirmation: HMAC-SHA256 (WIRE.md, "Handshake")
 */
#define XLFT_HELLO_ACK_SIZE  202u
#define XLFT_MAC_SIZE        32u

#define XLFT_ROLE_PRIMARY    1u
#define XLFT_ROLE_SECONDARY  2u

#define XLFT_ENC_DISABLED    0u   /* for measurement only: no secrecy */
#define XLFT_ENC_REQUIRED    1u

/*
 * LOG, XLFT_LOG_HDR_SIZE bytes, then the records.
 *   0  8  sequence number of the first record (>= 1)
 *   8  8  sender's clock (ns, CLOCK_MONOTONIC) when the frame was sent
 *  16  4  number of records (>= 1, at most the number of record bytes)
 *  20  .  records, encoded as hvm/core/FORMAT.md says (>= 1 byte)
 */
#define XLFT_LOG_HDR_SIZE    20u

/*
 * ACK, XLFT_ACK_SIZE bytes.
 *   0  8  highest record sequence number the secondary holds, with all
 *         before it
 *   8  8  last record replayed (<= the one above)
 *  16  8  echo: the sender's clock of the LOG frame that brought the
 *         record at offset 0 (0 before any)
 *  24  8  receiver's clock (ns, CLOCK_MONOTONIC) when the ACK was sent
 */
#define XLFT_ACK_SIZE        32u

/*
 * HEARTBEAT, XLFT_HEARTBEAT_SIZE bytes.
 *   0  8  sender's clock (ns)
 *   8  8  echo: the clock of the last heartbeat received (0 before any)
 */
#define XLFT_HEARTBEAT_SIZE  16u

/*
 * STATE, XLFT_STATE_HDR_SIZE bytes, then a chunk of the state stream.
 *   0  8  offset of the chunk in the stream
 *   8  8  total size of the stream, the same in every chunk
 *  16  8  sequence number of the last record the state includes; LOG
 *         frames go on from the next one
 *  24  .  the chunk: offset + its length <= total; empty only when the
 *         stream is (total 0, offset 0)
 */
#define XLFT_STATE_HDR_SIZE  24u

/*
 * GOLIVE, XLFT_GOLIVE_SIZE bytes.
 *   0  8  the receiver goes live once it has replayed this record
 */
#define XLFT_GOLIVE_SIZE     8u

/*
 * SHUTDOWN, XLFT_SHUTDOWN_SIZE bytes.
 *   0  8  last record sequence number the sender has sent (0: none)
 */
#define XLFT_SHUTDOWN_SIZE   8u

/*
 * ERROR, XLFT_ERROR_HDR_SIZE bytes, then the reason.
 *   0  4  code, XLFT_ERR_*
 *   4  2  reason length, at most XLFT_ERROR_REASON_MAX
 *   6  .  reason: printable ASCII (0x20-0x7e), no terminating NUL
 */
#define XLFT_ERROR_HDR_SIZE    6u
#define XLFT_ERROR_REASON_MAX  200u

#define XLFT_ERR_VERSION   1u   /* no channel or log version in common */
#define XLFT_ERR_AUTH      2u   /* key confirmation failed */
#define XLFT_ERR_CONFIG    3u   /* roles, pair, encryption disagree; a
                                   host or pair this side refuses */
#define XLFT_ERR_PROTOCOL  4u   /* a frame refused: malformed, out of turn */
#define XLFT_ERR_MAX       4u

#endif /* XLFT_WIRE_H */
