/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_wire.h - the logging channel's wire format, version 3.
 *
 * The one definition of what travels between the primary's and the
 * secondary's ftd; tools/libxlft/WIRE.md explains it.  Each frame's
 * fields are listed once, as XLFT_*_FIELDS (xlft_layout.h): the code
 * takes every offset from those lists, and WIRE.md's tables are checked
 * against them.  Every integer is little-endian; there is no padding,
 * no optional field and no field a reader may ignore: a frame that does
 * not match this exactly is refused.
 */
#ifndef XLFT_WIRE_H
#define XLFT_WIRE_H

#include "xlft_layout.h"

/* Versions of the channel protocol this code speaks. */
#define XLFT_WIRE_VERSION_MIN  3u
#define XLFT_WIRE_VERSION_MAX  3u
/*
 * The header version of every HELLO, whatever it offers, so that any
 * version reads it; and of an ERROR answering one a side cannot take.
 */
#define XLFT_WIRE_VERSION_HELLO 1u

/*
 * Frame header, then 'len' bytes of payload.  An encrypted payload is
 * the ciphertext followed by a 16-byte tag; the header is its additional
 * authenticated data.
 */
#define XLFT_HDR_FIELDS(F) \
    F(magic,    0, 4)   /* XLFT_WIRE_MAGIC */ \
    F(version,  4, 1)   /* the negotiated version (HELLO: see WIRE.md) */ \
    F(type,     5, 1)   /* XLFT_T_* */ \
    F(flags,    6, 2)   /* XLFT_F_*; undefined bits are 0 */ \
    F(len,      8, 4)   /* at most XLFT_FRAME_MAX - XLFT_HDR_SIZE */ \
    F(seq,     12, 8)   /* frame sequence number: 0, 1, 2, ... per way */
XLFT_LAYOUT(hdr, XLFT_HDR_FIELDS)
#define XLFT_HDR_SIZE     XLFT_LAYOUT_SIZE(hdr)

#define XLFT_WIRE_MAGIC   0x43544658u   /* "XFTC" */
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
#define XLFT_NONCE_SIZE      32u
#define XLFT_MAC_SIZE        32u

/*
 * HELLO: the layout of every one that offers a range including version
 * 3.  Every version's HELLO starts with the range it offers.
 */
#define XLFT_HELLO_FIELDS(F) \
    F(ver_min,       0, 2)  /* lowest channel version offered (>= 1) */ \
    F(ver_max,       2, 2)  /* highest (>= lowest) */ \
    F(role,          4, 1)  /* the sender's, XLFT_ROLE_* */ \
    F(enc,           5, 1)  /* its encryption setting, XLFT_ENC_* */ \
    F(log_version,   6, 2)  /* FT_LOG_VERSION of the records it sends */ \
    F(domid,         8, 4)  /* the guest's on the sender's host */ \
    F(host,         12, XLFT_NAME_SIZE)     /* ft.conf host-name */ \
    F(pair,         76, XLFT_NAME_SIZE)     /* the guest's name */ \
    F(nonce,       140, XLFT_NONCE_SIZE)    /* fresh random bytes */ \
    F(counter,     172, 1)  /* FT_COUNTER_* its log's points count */ \
    F(cpu,         173, 1)  /* FT_CPU_* that counts them */
XLFT_LAYOUT(hello, XLFT_HELLO_FIELDS)
#define XLFT_HELLO_SIZE      XLFT_LAYOUT_SIZE(hello)

/* HELLO_ACK: the sender's fields, as in its HELLO, then its MAC. */
#define XLFT_HELLO_ACK_FIELDS(F) \
    F(version,       0, 2)  /* the chosen channel version */ \
    F(role,          2, 1) \
    F(enc,           3, 1) \
    F(log_version,   4, 2) \
    F(domid,         6, 4) \
    F(host,         10, XLFT_NAME_SIZE) \
    F(pair,         74, XLFT_NAME_SIZE) \
    F(nonce,       138, XLFT_NONCE_SIZE) \
    F(counter,     170, 1) \
    F(cpu,         171, 1) \
    F(mac,         172, XLFT_MAC_SIZE)      /* WIRE.md, "Handshake" */
XLFT_LAYOUT(hello_ack, XLFT_HELLO_ACK_FIELDS)
#define XLFT_HELLO_ACK_SIZE  XLFT_LAYOUT_SIZE(hello_ack)

#define XLFT_ROLE_PRIMARY    1u
#define XLFT_ROLE_SECONDARY  2u

#define XLFT_ENC_DISABLED    0u   /* for measurement only: no secrecy */
#define XLFT_ENC_REQUIRED    1u

/*
 * LOG, then the records, encoded as hvm/core/FORMAT.md says (>= 1
 * byte).
 */
#define XLFT_LOG_FIELDS(F) \
    F(first_seq,     0, 8)  /* the first record's sequence number (>= 1) */ \
    F(sent_ns,       8, 8)  /* sender's CLOCK_MONOTONIC when sent */ \
    F(count,        16, 4)  /* records, 1 to the number of record bytes */
XLFT_LAYOUT(log, XLFT_LOG_FIELDS)
#define XLFT_LOG_HDR_SIZE    XLFT_LAYOUT_SIZE(log)

/* ACK; clocks are ns of CLOCK_MONOTONIC. */
#define XLFT_ACK_FIELDS(F) \
    F(acked,         0, 8)  /* highest record held, with all before it */ \
    F(replayed,      8, 8)  /* last record replayed (<= acked) */ \
    F(echo_ns,      16, 8)  /* sent_ns of the LOG that brought 'acked' */ \
    F(recv_ns,      24, 8)  /* receiver's clock when the ACK was sent */
XLFT_LAYOUT(ack, XLFT_ACK_FIELDS)
#define XLFT_ACK_SIZE        XLFT_LAYOUT_SIZE(ack)

#define XLFT_HEARTBEAT_FIELDS(F) \
    F(sent_ns,       0, 8)  /* sender's clock */ \
    F(echo_ns,       8, 8)  /* that of the last heartbeat received, or 0 */
XLFT_LAYOUT(heartbeat, XLFT_HEARTBEAT_FIELDS)
#define XLFT_HEARTBEAT_SIZE  XLFT_LAYOUT_SIZE(heartbeat)

/*
 * STATE, then a chunk of the state stream: offset + its length <=
 * total; empty only when the stream is (total 0, offset 0).
 */
#define XLFT_STATE_FIELDS(F) \
    F(offset,        0, 8)  /* of the chunk in the stream */ \
    F(total,         8, 8)  /* size of the stream, the same in every chunk */ \
    F(base_seq,     16, 8)  /* last record the state includes */
XLFT_LAYOUT(state, XLFT_STATE_FIELDS)
#define XLFT_STATE_HDR_SIZE  XLFT_LAYOUT_SIZE(state)

/* GOLIVE: the receiver goes live once it has replayed record 'seq'. */
#define XLFT_GOLIVE_FIELDS(F) \
    F(seq,           0, 8)
XLFT_LAYOUT(golive, XLFT_GOLIVE_FIELDS)
#define XLFT_GOLIVE_SIZE     XLFT_LAYOUT_SIZE(golive)

/* SHUTDOWN: the last record the sender has sent (0: none). */
#define XLFT_SHUTDOWN_FIELDS(F) \
    F(seq,           0, 8)
XLFT_LAYOUT(shutdown, XLFT_SHUTDOWN_FIELDS)
#define XLFT_SHUTDOWN_SIZE   XLFT_LAYOUT_SIZE(shutdown)

/*
 * ERROR, then the reason: printable ASCII (0x20-0x7e), no terminating
 * NUL.
 */
#define XLFT_ERROR_FIELDS(F) \
    F(code,          0, 4)  /* XLFT_ERR_* */ \
    F(len,           4, 2)  /* of the reason, <= XLFT_ERROR_REASON_MAX */
XLFT_LAYOUT(error, XLFT_ERROR_FIELDS)
#define XLFT_ERROR_HDR_SIZE    XLFT_LAYOUT_SIZE(error)
#define XLFT_ERROR_REASON_MAX  200u

#define XLFT_ERR_VERSION   1u   /* no channel or log version in common */
#define XLFT_ERR_AUTH      2u   /* key confirmation failed */
#define XLFT_ERR_CONFIG    3u   /* roles, pair, encryption disagree; a
                                   host or pair this side refuses */
#define XLFT_ERR_PROTOCOL  4u   /* a frame refused: malformed, out of turn */
#define XLFT_ERR_MAX       4u

#endif /* XLFT_WIRE_H */
