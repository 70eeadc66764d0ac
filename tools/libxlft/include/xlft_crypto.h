/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_crypto.h - a logging channel session: the handshake (version
 * negotiation, mutual authentication from a pre-shared key, session keys
 * from HKDF-SHA256) and the protection of every frame after it
 * (AES-256-GCM, strict frame sequence numbers).  WIRE.md, "Handshake"
 * and "Per-frame protection", says what goes on the wire.  No I/O: the
 * caller moves the bytes.
 *
 * Errors are negative errno values, with a one-line explanation in the
 * caller's 'msg' buffer (which may be NULL):
 *   -EACCES           the peer has a different key;
 *   -EPROTONOSUPPORT  no channel or log format version in common;
 *   -ECONNREFUSED     the two sides' settings disagree (roles, pair,
 *                     encryption), the peer names this host, or 'accept'
 *                     refused it;
 *   -ECONNABORTED     the peer sent an ERROR frame (its reason is in msg);
 *   -EBADMSG          a malformed frame, or one that fails authentication
 *                     (altered, cut, forged);
 *   -EPROTO           a frame out of sequence (replayed, reordered, one
 *                     missing) or out of turn;
 *   -ENODATA          less than a whole frame given;
 *   -EINVAL           more than one frame given, or a bad argument;
 *   -EIO              OpenSSL failed (no random bytes, ...);
 *   and the header errors of xlft_frame.h.
 * The first error is final: the session refuses everything after it.
 */
#ifndef XLFT_CRYPTO_H
#define XLFT_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xlft_frame.h"

#define XLFT_KEY_SIZE  32u

/* Room for any frame the session writes by itself (HELLO_ACK, ERROR). */
#define XLFT_REPLY_MAX 256u

/*
 * Read a pre-shared key file (WIRE.md, "The key file": 64 hex digits and
 * an optional newline; a regular file owned by root or the caller's
 * euid, mode 0600 or 0400).  -ENOENT, -EACCES, ... if it cannot be read,
 * -ELOOP if the path is a symbolic link, -EPERM for another owner or
 * mode, -EINVAL if it is not a regular file or its contents not a key.
 */
int xlft_key_load(const char *path, uint8_t key[XLFT_KEY_SIZE],
                  char *msg, size_t msglen);

/*
 * Who a side accepts, asked once the peer has named its host and pair
 * (xlft_session_cfg.accept): on a responder at the HELLO, before the key
 * is proved (the MACs then prove the names), with 'key' to fill with the
 * pair's key; on an initiator once the responder's MAC is proved, with
 * 'key' NULL.  0, or a negative errno value with 'why' saying why: the
 * session then fails with -ECONNREFUSED (XLFT_ERR_CONFIG), and the peer
 * is told why.
 */
typedef int (*xlft_accept_fn)(void *arg, const char *pair,
                              const char *peer_host, uint8_t *key,
                              char *why, size_t whylen);

struct xlft_session_cfg {
    const uint8_t *key;     /* XLFT_KEY_SIZE bytes, copied; a responder
                               with 'accept' may leave it NULL */
    bool initiator;         /* this side connected */
    uint8_t role;           /* XLFT_ROLE_* of this side */
    uint8_t enc;            /* XLFT_ENC_*: both sides must agree */
    uint32_t domid;         /* the protected guest here */
    uint8_t counter;        /* FT_COUNTER_* and FT_CPU_* of this side's */
    uint8_t cpu;            /* log (its replay, on a secondary): both
                               sides must agree (ft_abi.h) */
    const char *host;       /* this host's name (xlft_name_ok); a peer
                               that gives the same name is refused */
    const char *pair;       /* the pair's name, both sides agree; NULL:
                               a responder serving whichever pair asks
                               (xlft_session_pair says which) */
    xlft_accept_fn accept;  /* NULL: any peer host but this one, and
                               'key' for any pair */
    void *arg;              /* accept's */
};

struct xlft_session;

int xlft_session_new(struct xlft_session **s,
                     const struct xlft_session_cfg *cfg,
                     char *msg, size_t msglen);
/* Wipes the keys. */
void xlft_session_free(struct xlft_session *s);

/* Initiator only: write the HELLO frame (at most XLFT_REPLY_MAX bytes). */
int xlft_session_start(struct xlft_session *s, uint8_t *out, size_t cap,
                       char *msg, size_t msglen);

/*
 * Take one whole received frame ('len' bytes, exactly the frame), which
 * is decrypted in place.  Returns
 *   1  a frame for the caller, in 'm' (LOG and STATE point into 'frame');
 *   0  a handshake frame, consumed;
 *  <0  an error.
 * In every case *reply_len bytes at 'reply' (XLFT_REPLY_MAX of room) are
 * to be sent to the peer: the next handshake frame, or an ERROR frame
 * telling it why the connection ends (send it, then close).
 */
int xlft_session_recv(struct xlft_session *s, uint8_t *frame, size_t len,
                      struct xlft_msg *m, uint8_t *reply, size_t *reply_len,
                      char *msg, size_t msglen);

/* Both sides have confirmed each other's key: frames may flow. */
bool xlft_session_established(const struct xlft_session *s);

/* The pair agreed (a responder serving any: the initiator's); "" before. */
const char *xlft_session_pair(const struct xlft_session *s);
/* The host the peer named ("" before its hello; proved once established). */
const char *xlft_session_peer_host(const struct xlft_session *s);

/*
 * Write 'm' as this side's next frame; returns its size, at most
 * xlft_payload_size(m) + xlft_session_overhead(s).  -ENOTCONN before the
 * session is established (the handshake frames are the session's own).
 * The data of a LOG or STATE message is encrypted straight into 'out',
 * so it must not overlap 'out'.
 */
int xlft_session_seal(struct xlft_session *s, const struct xlft_msg *m,
                      uint8_t *out, size_t cap, char *msg, size_t msglen);

/* Bytes a frame adds to its payload: the header, and a tag if sealed. */
size_t xlft_session_overhead(const struct xlft_session *s);

/* The negotiated channel version and the peer's domid (0 before). */
unsigned int xlft_session_version(const struct xlft_session *s);
uint32_t xlft_session_peer_domid(const struct xlft_session *s);

#endif /* XLFT_CRYPTO_H */
