/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_frame.h - frames of the logging channel (xlft_wire.h, WIRE.md)
 * to and from bytes.  Pure functions: no I/O, no allocation, no keys
 * (encryption is xlft_session's).
 *
 * Errors are negative errno values; the decoders also write a one-line
 * explanation into the caller's 'msg' buffer (which may be NULL):
 *   -ENODATA          fewer bytes than the header or the frame needs;
 *   -EBADMSG          bad magic, undefined flags, a malformed payload;
 *   -EPROTONOSUPPORT  a channel version this code does not speak (in a
 *                     header, or a HELLO's whole range);
 *   -ENOMSG           an unknown frame type;
 *   -EMSGSIZE         a length over XLFT_FRAME_MAX.
 * The encoders apply the same rules and return -EINVAL for a message
 * that would not decode, -ENOBUFS when 'cap' is too small.
 */
#ifndef XLFT_FRAME_H
#define XLFT_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xlft_wire.h"

struct xlft_hdr {
    uint8_t version;
    uint8_t type;
    uint16_t flags;
    uint32_t len;               /* payload bytes that follow */
    uint64_t seq;               /* frame sequence number */
};

/* Names are NUL-terminated here, NUL-padded on the wire. */
struct xlft_hello {
    uint16_t ver_min, ver_max;
    uint8_t role;               /* XLFT_ROLE_* */
    uint8_t enc;                /* XLFT_ENC_* */
    uint16_t log_version;
    uint32_t domid;
    char host[XLFT_NAME_SIZE + 1];      /* the sender's host name */
    char pair[XLFT_NAME_SIZE + 1];      /* the guest's name */
    uint8_t nonce[XLFT_NONCE_SIZE];
    uint8_t counter;            /* FT_COUNTER_* */
    uint8_t cpu;                /* FT_CPU_* */
};

struct xlft_hello_ack {
    uint16_t version;
    uint8_t role;
    uint8_t enc;
    uint16_t log_version;
    uint32_t domid;
    char host[XLFT_NAME_SIZE + 1];
    char pair[XLFT_NAME_SIZE + 1];
    uint8_t nonce[XLFT_NONCE_SIZE];
    uint8_t counter;
    uint8_t cpu;
    uint8_t mac[XLFT_MAC_SIZE];
};

struct xlft_log {
    uint64_t first_seq;
    uint64_t sent_ns;
    uint32_t count;
    uint32_t len;
    const uint8_t *recs;        /* decoded: points into the frame */
};

struct xlft_ack {
    uint64_t acked;
    uint64_t replayed;
    uint64_t echo_ns;
    uint64_t recv_ns;
};

struct xlft_heartbeat {
    uint64_t sent_ns;
    uint64_t echo_ns;
};

struct xlft_state {
    uint64_t offset;
    uint64_t total;
    uint64_t base_seq;
    uint32_t len;
    const uint8_t *data;        /* decoded: points into the frame */
};

struct xlft_error {
    uint32_t code;              /* XLFT_ERR_* */
    uint16_t len;
    char reason[XLFT_ERROR_REASON_MAX + 1];     /* NUL-terminated */
};

/* One frame's payload, by type. */
struct xlft_msg {
    uint8_t type;               /* XLFT_T_* */
    union {
        struct xlft_hello hello;
        struct xlft_hello_ack hello_ack;
        struct xlft_log log;
        struct xlft_ack ack;
        struct xlft_heartbeat heartbeat;
        struct xlft_state state;
        uint64_t golive_seq;
        uint64_t shutdown_seq;
        struct xlft_error error;
    } u;
};

/* A host or pair name as the wire allows it (xlft_wire.h). */
bool xlft_name_ok(const char *s);

/* "LOG", "ACK", ...; "unknown" for anything else. */
const char *xlft_type_name(unsigned int type);

void xlft_hdr_put(uint8_t out[XLFT_HDR_SIZE], const struct xlft_hdr *h);

/*
 * Check and decode the header at 'buf' ('len' bytes available, only the
 * first XLFT_HDR_SIZE read).  Succeeds for a header whose payload is
 * not (all) there yet: h->len says how much to wait for, and it is at
 * most XLFT_FRAME_MAX - XLFT_HDR_SIZE.
 */
int xlft_hdr_get(const uint8_t *buf, size_t len, struct xlft_hdr *h,
                 char *msg, size_t msglen);

/* Plaintext payload size of 'm', 0 if it is not a valid message. */
size_t xlft_payload_size(const struct xlft_msg *m);

/* Encode the payload of 'm'; returns its size. */
int xlft_payload_put(const struct xlft_msg *m, uint8_t *out, size_t cap,
                     char *msg, size_t msglen);

/* The bytes a LOG or STATE payload carries after its fixed part. */
struct xlft_data {
    const uint8_t *bytes;
    size_t len;
};

/*
 * The same but for the data of a LOG or STATE payload, left to the
 * caller to place right after what this returns (a sealer encrypts it
 * from where it lies, rather than copying it first).  'cap' must hold
 * the whole payload; *data is { NULL, 0 } for the other types.
 */
int xlft_payload_put_head(const struct xlft_msg *m, uint8_t *out,
                          size_t cap, struct xlft_data *data,
                          char *msg, size_t msglen);

/* Decode a plaintext payload of 'len' bytes of frame type 'type'. */
int xlft_payload_get(unsigned int type, const uint8_t *p, size_t len,
                     struct xlft_msg *m, char *msg, size_t msglen);

/* Fill 'm' as an ERROR frame; the reason is cut to fit. */
void xlft_msg_error(struct xlft_msg *m, uint32_t code, const char *reason);

/*
 * A whole frame in clear (flags 0, version 'version'): header and
 * payload.  _put returns the frame's size; _get the number of bytes it
 * took from 'buf', with -ENODATA when 'buf' holds less than a whole
 * frame, and -EBADMSG for an encrypted frame (that needs a session).
 */
int xlft_frame_put(const struct xlft_msg *m, uint8_t version, uint64_t seq,
                   uint8_t *out, size_t cap, char *msg, size_t msglen);
int xlft_frame_get(const uint8_t *buf, size_t len, struct xlft_hdr *h,
                   struct xlft_msg *m, char *msg, size_t msglen);

#endif /* XLFT_FRAME_H */
