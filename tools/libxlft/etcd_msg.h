/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * etcd_msg.h - the etcd v3 JSON gateway messages the etcd arbiter uses
 * (internal).  Checked against etcd 3.4's gateway: keys and values are
 * base64, 64-bit numbers are JSON strings, fields holding zero or false
 * are left out of replies.
 *
 *   POST /v3/lease/grant      {"TTL":S}
 *     -> {"header":{..},"ID":"N","TTL":"S"}
 *   POST /v3/kv/txn           compare / success / failure, see etcd_msg.c
 *     -> {"header":{..},"succeeded":true,"responses":[{"response_put":..}]}
 *     -> {"header":{..},"responses":[{"response_range":{"kvs":[{"key":..,
 *         "create_revision":"R","mod_revision":"R","version":"V",
 *         "value":..,"lease":"N"}],"count":"1"}}]}
 *   errors: a status other than 200 and {"error":..,"message":..,..}
 *
 * Request builders return 0, or -EMSGSIZE if 'buf' is too small.  Reply
 * decoders return 0, or -EBADMSG with 'err' naming what is wrong.
 */
#ifndef XLFT_ETCD_MSG_H
#define XLFT_ETCD_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xlft_arbiter.h"

#define XLFT_ETCD_KEY_MAX 128

int xlft_etcd_grant_req(char *buf, size_t len, int64_t ttl);
/* Put key=me under 'lease' if the key does not exist; else read it. */
int xlft_etcd_claim_req(char *buf, size_t len, const char *key,
                        const char *me, int64_t lease);
/* Put key=me under 'lease' (0: none, for good) if the key is still at
 * revision 'mod_rev'; else read it. */
int xlft_etcd_move_req(char *buf, size_t len, const char *key,
                       const char *me, int64_t mod_rev, int64_t lease);

int xlft_etcd_grant_reply(const char *body, size_t n, int64_t *lease,
                          int64_t *ttl, char *err, size_t errlen);

struct xlft_etcd_kv {
    bool found;
    char value[XLFT_ARB_NAME_MAX + 1];      /* a good host name */
    int64_t lease;                          /* 0: none */
    int64_t mod_rev;
};
/* The reply to a claim or move of 'key': whether the put was done, and
 * if not the key as the failure branch read it. */
int xlft_etcd_txn_reply(const char *body, size_t n, const char *key,
                        bool *put, struct xlft_etcd_kv *kv, char *err,
                        size_t errlen);

/* The message of an error reply, printable, or a note that it has none. */
void xlft_etcd_error_reply(const char *body, size_t n, char *msg,
                           size_t msglen);

#endif /* XLFT_ETCD_MSG_H */
