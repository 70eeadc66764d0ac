// SPDX-License-Identifier: GPL-2.0-only
/*
 * arbiter_etcd.c - the etcd:URL[,URL...][?ttl=S&timeout=MS] arbiter.
 *
 * The claim of generation G of pair P is the key /xenft/P/G, created by
 * one transaction that puts it only if it does not exist yet (its
 * create_revision is 0) and otherwise reads it: etcd orders all
 * transactions, so exactly one creator wins.  It is created under the
 * claimant's lease, so that a claimant dying before it is done lets it
 * go, and then settled: put again with no lease, conditional on the
 * revision it was read at.  Only a settled claim is granted, and a
 * settled claim stays for good (xlft_arbiter.h).  A key that names 'me'
 * but is not settled yet (this handle's, or an earlier one's of the same
 * host) is settled the same way.  Every request is safe to repeat, so a
 * URL that does not answer is simply followed by the next one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xlft_arbiter.h"
#include "arbiter_impl.h"
#include "etcd_msg.h"
#include "http.h"

#define MAX_URLS        8
#define DEFAULT_TTL     10      /* seconds */
#define DEFAULT_TIMEOUT 2000    /* milliseconds, per request per URL */
#define CLAIM_ROUNDS    8       /* create, read back, settle: 3 */

struct etcd_arb {
    struct xlft_http_url url[MAX_URLS];
    char name[MAX_URLS][300];           /* as given, for messages */
    unsigned nurl, cur;                 /* cur: the last that answered */
    int64_t ttl;
    int timeout_ms;
    char pair[XLFT_ARB_NAME_MAX + 1];
    int64_t lease;                      /* 0: none */
    uint64_t deadline;                  /* of the lease, monotonic ms */
    struct xlft_http_reply reply;
};

static uint64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* "ttl=10" into *out if within [min, max]: 1 taken, 0 not this option. */
static int option(const char *p, size_t n, const char *name, long min,
                  long max, long *out, char *err, size_t errlen)
{
    size_t k = strlen(name);
    long v = 0;

    if (n <= k || strncmp(p, name, k) || p[k] != '=')
        return 0;
    for (size_t i = k + 1; i < n; i++) {
        if (p[i] < '0' || p[i] > '9' || v > max)
            break;
        v = v * 10 + (p[i] - '0');
        if (i + 1 == n && v >= min && v <= max) {
            *out = v;
            return 1;
        }
    }
    snprintf(err, errlen, "etcd arbiter: %s must be from %ld to %ld, not "
             "'%.*s'", name, min, max, (int)(n - k - 1), p + k + 1);
    return -EINVAL;
}

static int parse_options(struct etcd_arb *e, const char *p, char *err,
                         size_t errlen)
{
    long ttl = DEFAULT_TTL, timeout = DEFAULT_TIMEOUT;

    while (p && *p) {
        size_t n = strcspn(p, "&");
        int rc = option(p, n, "ttl", 1, 3600, &ttl, err, errlen);

        if (!rc)
            rc = option(p, n, "timeout", 10, 60000, &timeout, err, errlen);
        if (rc < 0)
            return rc;
        if (!rc) {
            snprintf(err, errlen, "etcd arbiter: unknown option '%.*s' "
                     "(ttl=SECONDS, timeout=MS)", (int)n, p);
            return -EINVAL;
        }
        p += n + (p[n] == '&');
    }
    if (timeout >= ttl * 1000) {
        snprintf(err, errlen, "etcd arbiter: timeout=%ld ms must be "
                 "shorter than the lease, ttl=%ld s", timeout, ttl);
        return -EINVAL;
    }
    e->ttl = ttl;
    e->timeout_ms = (int)timeout;
    return 0;
}

static int etcd_open(void **priv, const char *arg, const char *pair,
                     char *err, size_t errlen)
{
    const char *opts = strchr(arg, '?'), *p = arg;
    const char *end = opts ? opts : arg + strlen(arg);
    struct etcd_arb *e = calloc(1, sizeof(*e));
    int rc;

    if (!e) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    rc = parse_options(e, opts ? opts + 1 : NULL, err, errlen);
    while (!rc && p <= end) {
        size_t n = strcspn(p, ",?");

        if (e->nurl == MAX_URLS) {
            snprintf(err, errlen, "etcd arbiter: more than %d URLs",
                     MAX_URLS);
            rc = -EINVAL;
        } else if (n >= sizeof(e->name[0])) {
            snprintf(err, errlen, "etcd arbiter: URL too long");
            rc = -EINVAL;
        } else {
            rc = xlft_http_parse_url(p, n, &e->url[e->nurl], err, errlen);
            memcpy(e->name[e->nurl++], p, n);
        }
        p += n + 1;
    }
    if (rc) {
        free(e);
        return rc;
    }
    strcpy(e->pair, pair);
    *priv = e;
    return 0;
}

static void etcd_close(void *priv)
{
    free(priv);
}

/*
 * POST 'body' to 'path', at each URL in turn from the last that
 * answered, until one gives a 200 reply: 0, the reply in e->reply.
 * -ENOLCK when etcd does not know our lease.
 */
static int call(struct etcd_arb *e, const char *path, const char *body,
                char *err, size_t errlen)
{
    char why[200], msg[160];
    int rc = -EHOSTUNREACH;

    for (unsigned k = 0; k < e->nurl; k++) {
        unsigned i = (e->cur + k) % e->nurl;
        struct xlft_http_reply *r = &e->reply;

        rc = xlft_http_request(&e->url[i], "POST", path, body,
                               e->timeout_ms, r, why, sizeof(why));
        if (!rc && r->status == 200) {
            e->cur = i;
            return 0;
        }
        if (!rc) {
            xlft_etcd_error_reply(r->body, r->bodylen, msg, sizeof(msg));
            snprintf(why, sizeof(why), "HTTP status %d: %s", r->status,
                     msg);
            rc = r->status >= 500 ? -EIO : -EPROTO;
            if (strstr(msg, "requested lease not found"))
                rc = -ENOLCK;
        }
        snprintf(err, errlen, "etcd %s%s: %s", e->name[i],
                 e->nurl > 1 ? " (the last URL tried)" : "", why);
        if (rc == -EPROTO || rc == -ENOLCK)
            break;              /* an answer: the others would agree */
    }
    return rc;
}

/* Whole milliseconds the lease surely lasts after a grant or renewal. */
static uint64_t span(const struct etcd_arb *e, int64_t ttl)
{
    uint64_t ms = (uint64_t)(ttl < e->ttl ? ttl : e->ttl) * 1000;

    return ms - ms / 100;
}

static int ensure_lease(struct etcd_arb *e, char *err, size_t errlen)
{
    uint64_t t0 = mono_ms();
    char req[128];
    int64_t id, ttl;
    int rc;

    if (e->lease && t0 < e->deadline)
        return 0;
    e->lease = 0;
    if ((rc = xlft_etcd_grant_req(req, sizeof(req), e->ttl)) ||
        (rc = call(e, "/v3/lease/grant", req, err, errlen)) ||
        (rc = xlft_etcd_grant_reply(e->reply.body, e->reply.bodylen, &id,
                                    &ttl, err, errlen)))
        return rc;
    e->lease = id;
    e->deadline = t0 + span(e, ttl);
    return 0;
}

static int etcd_claim(void *priv, uint64_t gen, const char *me,
                      char *holder, size_t holderlen, char *err,
                      size_t errlen)
{
    struct etcd_arb *e = priv;
    struct xlft_etcd_kv kv = { .found = false };
    char key[XLFT_ETCD_KEY_MAX], req[1024];
    bool settle = false, put;
    int rc;

    snprintf(key, sizeof(key), "/xenft/%s/%" PRIu64, e->pair, gen);
    for (int round = 0; round < CLAIM_ROUNDS; round++) {
        if ((rc = ensure_lease(e, err, errlen)))
            return rc;
        if (settle)
            rc = xlft_etcd_move_req(req, sizeof(req), key, me, kv.mod_rev,
                                    0);
        else
            rc = xlft_etcd_claim_req(req, sizeof(req), key, me, e->lease);
        if (rc) {
            snprintf(err, errlen, "etcd request for %s too long", key);
            return rc;
        }
        rc = call(e, "/v3/kv/txn", req, err, errlen);
        if (rc == -ENOLCK) {
            e->lease = 0;
            settle = false;
            continue;
        }
        if (rc ||
            (rc = xlft_etcd_txn_reply(e->reply.body, e->reply.bodylen, key,
                                      &put, &kv, err, errlen)))
            return rc;
        if (put && settle) {
            snprintf(holder, holderlen, "%s", me);
            return 1;
        }
        settle = false;
        if (put || !kv.found)
            continue;           /* made, to be read back; or lapsed: anew */
        if (strcmp(kv.value, me) && kv.lease) {
            /* Its claimant may die before settling it: not a loss yet. */
            snprintf(err, errlen, "etcd key %s: %s's claim is not settled "
                     "yet", key, kv.value);
            return -EAGAIN;
        }
        if (strcmp(kv.value, me)) {
            snprintf(holder, holderlen, "%s", kv.value);
            return 0;
        }
        if (!kv.lease) {
            snprintf(holder, holderlen, "%s", me);
            return 1;           /* settled already */
        }
        settle = true;
    }
    snprintf(err, errlen, "etcd key %s kept changing in %d attempts", key,
             CLAIM_ROUNDS);
    return -EAGAIN;
}

const struct xlft_arb_backend xlft_arb_etcd = {
    .prefix = "etcd:",
    .usage = "URL[,URL...][?ttl=S&timeout=MS]",
    .open = etcd_open,
    .close = etcd_close,
    .claim = etcd_claim,
};
