// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_etcd.c - libFuzzer target: what an etcd server (or anything at
 * its address) sends the etcd arbiter.  The first byte's low bit says
 * whether the rest is a whole HTTP reply, parsed as it would be read
 * off the socket, or a reply body straight to the JSON decoders (so the
 * fuzzer need not get the HTTP framing right to reach them); its other
 * bits pick where the reply is first parsed cut short.
 *
 * The parser must say "whole", "more" or "bad" and nothing else, a bad
 * reply always comes with a message, and whatever the decoders accept
 * must be within what the arbiter relies on: positive lease ids and
 * TTLs, a valid host name as a holder.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter_impl.h"
#include "etcd_msg.h"
#include "http.h"
#include "xlft_json.h"

static struct xlft_http_reply r;

static void check_err(int rc, const char *err, size_t errlen)
{
    if (rc < 0 && (!err[0] || !memchr(err, '\0', errlen)))
        abort();
}

static void decode(const char *body, size_t n)
{
    char err[256], msg[160];
    struct xlft_etcd_kv kv;
    struct xlft_json v;
    int64_t id, ttl;
    bool put;
    int rc;

    err[0] = '\0';
    rc = xlft_etcd_grant_reply(body, n, &id, &ttl, err, sizeof(err));
    check_err(rc, err, sizeof(err));
    if (rc ? rc != -EBADMSG : id < 1 || ttl < 1)
        abort();

    err[0] = '\0';
    rc = xlft_etcd_txn_reply(body, n, "/xenft/dom9/1", &put, &kv, err,
                             sizeof(err));
    check_err(rc, err, sizeof(err));
    if (rc && rc != -EBADMSG)
        abort();
    if (!rc && !put && kv.found &&
        (!xlft_arb_good_name(kv.value) || kv.mod_rev < 1 || kv.lease < 0))
        abort();

    xlft_etcd_error_reply(body, n, msg, sizeof(msg));
    if (!memchr(msg, '\0', sizeof(msg)))
        abort();
    for (const char *c = msg; *c; c++) {
        if (*c < 0x20 || *c > 0x7e)
            abort();
    }

    if (!xlft_json_check(body, n) &&
        xlft_json_get(body, n, "responses.0.response_range.kvs.0", &v) &&
        (v.p < body || v.p + v.n > body + n))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    size_t cut;
    int rc;

    if (size < 1)
        return 0;
    if (data[0] & 1) {
        char *body = malloc(size);  /* exact: ASan sees over-reads */

        if (!body)
            return 0;
        memcpy(body, data + 1, size - 1);
        decode(body, size - 1);
        free(body);
        return 0;
    }
    data++;
    size--;
    if (size > sizeof(r.raw))
        size = sizeof(r.raw);
    memcpy(r.raw, data, size);

    /* Part of it first, as a read that returned early. */
    cut = size ? (size_t)(data[-1] >> 1) * size / 128 : 0;
    r.len = cut;
    err[0] = '\0';
    rc = xlft_http_parse(&r, false, err, sizeof(err));
    check_err(rc, err, sizeof(err));
    if (rc != 0 && rc != 1 && rc != -EBADMSG)
        abort();

    r.len = size;
    err[0] = '\0';
    rc = xlft_http_parse(&r, true, err, sizeof(err));
    check_err(rc, err, sizeof(err));
    if (rc != 1 && rc != -EBADMSG)
        abort();                /* at the end, never "more" */
    if (rc == 1) {
        if (r.status < 200 || r.status > 599 || r.bodylen > XLFT_HTTP_MAX ||
            r.body != r.buf || r.body[r.bodylen] != '\0')
            abort();
        decode(r.body, r.bodylen);
    }
    return 0;
}
