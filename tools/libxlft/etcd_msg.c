// SPDX-License-Identifier: GPL-2.0-only
/*
 * etcd_msg.c - the etcd v3 JSON gateway messages of the etcd arbiter
 * (etcd_msg.h).
 *
 * Replies come from the network: each field used is looked up, typed and
 * range-checked, and a reply that lacks one is refused rather than read
 * as a default - an absent "succeeded" is the one field etcd leaves out
 * on purpose (false), and the failure branch's range must then be there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "etcd_msg.h"
#include "arbiter_impl.h"
#include "xlft_json.h"

#define BAD(...) (snprintf(err, errlen, __VA_ARGS__), -EBADMSG)

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64enc(const char *in, char *out)
{
    size_t n = strlen(in), o = 0;
    const unsigned char *s = (const unsigned char *)in;

    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)s[i] << 16;

        if (i + 1 < n)
            v |= (unsigned)s[i + 1] << 8;
        if (i + 2 < n)
            v |= s[i + 2];
        out[o++] = b64[v >> 18];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? b64[v & 63] : '=';
    }
    out[o] = '\0';
}

/* Strict: whole quanta, padding only at the end. */
static int b64dec(const char *in, char *out, size_t outlen)
{
    size_t n = strlen(in), o = 0;

    if (n % 4)
        return -EBADMSG;
    for (size_t i = 0; i < n; i += 4) {
        unsigned v = 0;
        int pad = 0;

        for (int j = 0; j < 4; j++) {
            const char *c = in[i + j] ? strchr(b64, in[i + j]) : NULL;

            if (in[i + j] == '=' && i + 4 == n && j >= 2 &&
                (j == 3 || in[i + 3] == '=')) {
                pad++;
                v <<= 6;
                continue;
            }
            if (!c || pad)
                return -EBADMSG;
            v = v << 6 | (unsigned)(c - b64);
        }
        if (o + 3 - (size_t)pad >= outlen)
            return -EMSGSIZE;
        out[o++] = (char)(v >> 16);
        if (pad < 2)
            out[o++] = (char)(v >> 8);
        if (pad < 1)
            out[o++] = (char)v;
    }
    if (!outlen)
        return -EMSGSIZE;
    out[o] = '\0';
    return strlen(out) == o ? 0 : -EBADMSG;
}

static int fit(int n, size_t len)
{
    return n < 0 || (size_t)n >= len ? -EMSGSIZE : 0;
}

int xlft_etcd_grant_req(char *buf, size_t len, int64_t ttl)
{
    return fit(snprintf(buf, len, "{\"TTL\":\"%" PRId64 "\"}", ttl), len);
}

static int txn_req(char *buf, size_t len, const char *key, const char *me,
                   const char *target, const char *field, int64_t rev,
                   int64_t lease)
{
    char k[XLFT_ETCD_KEY_MAX * 2], v[XLFT_ARB_NAME_MAX * 2];

    if (strlen(key) > XLFT_ETCD_KEY_MAX || strlen(me) > XLFT_ARB_NAME_MAX)
        return -EMSGSIZE;
    b64enc(key, k);
    b64enc(me, v);
    return fit(snprintf(buf, len,
        "{\"compare\":[{\"target\":\"%s\",\"key\":\"%s\",\"%s\":\"%" PRId64
        "\"}],\"success\":[{\"request_put\":{\"key\":\"%s\",\"value\":"
        "\"%s\",\"lease\":\"%" PRId64 "\"}}],\"failure\":[{"
        "\"request_range\":{\"key\":\"%s\"}}]}",
        target, k, field, rev, k, v, lease, k), len);
}

int xlft_etcd_claim_req(char *buf, size_t len, const char *key,
                        const char *me, int64_t lease)
{
    return txn_req(buf, len, key, me, "CREATE", "create_revision", 0,
                   lease);
}

int xlft_etcd_move_req(char *buf, size_t len, const char *key,
                       const char *me, int64_t mod_rev, int64_t lease)
{
    return txn_req(buf, len, key, me, "MOD", "mod_revision", mod_rev,
                   lease);
}

/* A whole number at 'path', at least 'min': 0, -ENOENT absent, -EBADMSG. */
static int get_int(const char *body, size_t n, const char *path,
                   int64_t min, int64_t *out, char *err, size_t errlen)
{
    struct xlft_json v;

    if (!xlft_json_get(body, n, path, &v))
        return -ENOENT;
    if (xlft_json_int(&v, out) || *out < min)
        return BAD("etcd reply: \"%s\" is not a whole number from %" PRId64,
                   path, min);
    return 0;
}

static int need_int(const char *body, size_t n, const char *path,
                    int64_t min, int64_t *out, char *err, size_t errlen)
{
    int rc = get_int(body, n, path, min, out, err, errlen);

    if (rc == -ENOENT)
        return BAD("etcd reply has no \"%s\"", path);
    return rc;
}

static int json_ok(const char *body, size_t n, char *err, size_t errlen)
{
    if (xlft_json_check(body, n))
        return BAD("etcd reply is not JSON (%zu bytes)", n);
    return 0;
}

int xlft_etcd_grant_reply(const char *body, size_t n, int64_t *lease,
                          int64_t *ttl, char *err, size_t errlen)
{
    int rc;

    if ((rc = json_ok(body, n, err, errlen)) ||
        (rc = need_int(body, n, "ID", 1, lease, err, errlen)) ||
        (rc = need_int(body, n, "TTL", 1, ttl, err, errlen)))
        return rc;
    return 0;
}

static int read_kv(const char *body, size_t n, const char *key,
                   struct xlft_etcd_kv *kv, char *err, size_t errlen)
{
    const char *kvs = "responses.0.response_range.kvs";
    char path[64], s[XLFT_ETCD_KEY_MAX * 2], got[XLFT_ETCD_KEY_MAX + 1];
    struct xlft_json v;
    int64_t count;
    int rc;

    memset(kv, 0, sizeof(*kv));
    if (!xlft_json_get(body, n, "responses.0.response_range", &v) ||
        v.type != XLFT_JSON_OBJECT)
        return BAD("etcd reply to a claim has neither \"succeeded\" nor "
                   "a range");
    rc = get_int(body, n, "responses.0.response_range.count", 0, &count,
                 err, errlen);
    if (rc == -ENOENT)
        count = 0;
    else if (rc)
        return rc;
    if (xlft_json_get(body, n, "responses.1", &v))
        return BAD("etcd reply to a claim has more than one response");
    snprintf(path, sizeof(path), "%s.1", kvs);
    if (count > 1 || xlft_json_get(body, n, path, &v))
        return BAD("etcd reply to a claim holds more than one key");
    snprintf(path, sizeof(path), "%s.0", kvs);
    if (!xlft_json_get(body, n, path, &v)) {
        if (count)
            return BAD("etcd reply counts %" PRId64 " keys, gives none",
                       count);
        return 0;
    }
    if (v.type != XLFT_JSON_OBJECT || count != 1)
        return BAD("etcd reply: a key that is not counted or not an "
                   "object");
    snprintf(path, sizeof(path), "%s.0.key", kvs);
    if (!xlft_json_get(body, n, path, &v) || xlft_json_str(&v, s, sizeof(s))
        || b64dec(s, got, sizeof(got)) || strcmp(got, key))
        return BAD("etcd reply is not about key %s", key);
    snprintf(path, sizeof(path), "%s.0.value", kvs);
    if (!xlft_json_get(body, n, path, &v) || xlft_json_str(&v, s, sizeof(s))
        || b64dec(s, kv->value, sizeof(kv->value)) ||
        !xlft_arb_good_name(kv->value))
        return BAD("key %s in etcd holds no valid host name: remove it by "
                   "hand once you know which copy is live", key);
    snprintf(path, sizeof(path), "%s.0.mod_revision", kvs);
    if ((rc = need_int(body, n, path, 1, &kv->mod_rev, err, errlen)))
        return rc;
    snprintf(path, sizeof(path), "%s.0.lease", kvs);
    rc = get_int(body, n, path, 1, &kv->lease, err, errlen);
    if (rc && rc != -ENOENT)
        return rc;
    kv->found = true;
    return 0;
}

int xlft_etcd_txn_reply(const char *body, size_t n, const char *key,
                        bool *put, struct xlft_etcd_kv *kv, char *err,
                        size_t errlen)
{
    struct xlft_json v;
    int rc;

    *put = false;
    memset(kv, 0, sizeof(*kv));
    if ((rc = json_ok(body, n, err, errlen)))
        return rc;
    if (xlft_json_get(body, n, "succeeded", &v) &&
        v.type != XLFT_JSON_FALSE) {
        if (v.type != XLFT_JSON_TRUE)
            return BAD("etcd reply: \"succeeded\" is not true or false");
        if (!xlft_json_get(body, n, "responses.0.response_put", &v) ||
            v.type != XLFT_JSON_OBJECT ||
            xlft_json_get(body, n, "responses.1", &v))
            return BAD("etcd reply to a claim succeeded without its put");
        *put = true;
        return 0;
    }
    return read_kv(body, n, key, kv, err, errlen);
}

void xlft_etcd_error_reply(const char *body, size_t n, char *msg,
                           size_t msglen)
{
    static const char *const paths[] = { "message", "error",
                                         "error.message" };
    struct xlft_json v;

    if (!msglen)
        return;
    if (!xlft_json_check(body, n)) {
        for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
            if (xlft_json_get(body, n, paths[i], &v) &&
                v.type == XLFT_JSON_STRING &&
                xlft_json_str(&v, msg, msglen) != -EBADMSG) {
                for (char *c = msg; *c; c++) {
                    if (*c < 0x20 || *c > 0x7e)
                        *c = '?';
                }
                return;
            }
        }
    }
    snprintf(msg, msglen, "no error message");
}
