// SPDX-License-Identifier: GPL-2.0-only
/*
 * xs_status.c - FT status and control keys in xenstore (xlft_xs.h).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xenstore.h>

#include "xlft_xs.h"

/* Transactions that xenstore keeps aborting give up after this many. */
#define TX_TRIES 16

#define DOMID_MAX 0x7fefu   /* DOMID_FIRST_RESERVED - 1 */

struct xlft_xs {
    struct xs_handle *h;
    uint32_t watch_domid;
    bool watching;
    bool pending;           /* a watch event not yet acted on */
    char token[32];
};

static const char *const text_keys[] = { "state", "role", "peer", "error" };
static const char *const num_keys[] = {
    "seq-sent", "seq-acked", "lag-us", "log-bw"
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

int xlft_xs_open(struct xlft_xs **sp, char *err, size_t errlen)
{
    struct xlft_xs *s = calloc(1, sizeof(*s));

    *sp = NULL;
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    s->h = xs_open(0);
    if (!s->h) {
        int rc = errno ? -errno : -EIO;

        snprintf(err, errlen, "cannot connect to xenstore: %s "
                 "(is xenstored running?)", strerror(-rc));
        free(s);
        return rc;
    }
    *sp = s;
    return 0;
}

void xlft_xs_close(struct xlft_xs *s)
{
    if (!s)
        return;
    xs_close(s->h);
    free(s);
}

int xlft_xs_fd(const struct xlft_xs *s)
{
    return xs_fileno(s->h);
}

static int check_domid(uint32_t domid, char *err, size_t errlen)
{
    if (domid > DOMID_MAX) {
        snprintf(err, errlen, "domain %" PRIu32 ": not a domain id", domid);
        return -EINVAL;
    }
    return 0;
}

static int check_kv(uint32_t domid, const struct xlft_xs_kv *kv,
                    char *err, size_t errlen)
{
    const char *p;
    size_t i;

    for (i = 0; i < N(num_keys); i++) {
        if (strcmp(kv->key, num_keys[i]))
            continue;
        if (!*kv->val || strlen(kv->val) > 20)
            goto bad_num;
        for (p = kv->val; *p; p++)
            if (!isdigit((unsigned char)*p))
                goto bad_num;
        return 0;
    }
    for (i = 0; i < N(text_keys); i++) {
        if (strcmp(kv->key, text_keys[i]))
            continue;
        if (strlen(kv->val) > XLFT_XS_VAL_MAX) {
            snprintf(err, errlen, "domain %" PRIu32 ": ft/%s: value longer "
                     "than %d bytes", domid, kv->key, XLFT_XS_VAL_MAX);
            return -EINVAL;
        }
        for (p = kv->val; *p; p++)
            if (!isprint((unsigned char)*p)) {
                snprintf(err, errlen, "domain %" PRIu32 ": ft/%s: value "
                         "has a non-printable byte", domid, kv->key);
                return -EINVAL;
            }
        return 0;
    }
    snprintf(err, errlen, "domain %" PRIu32 ": '%s' is not an FT status "
             "key (state, role, peer, error, seq-sent, seq-acked, lag-us, "
             "log-bw)", domid, kv->key);
    return -EINVAL;

bad_num:
    snprintf(err, errlen, "domain %" PRIu32 ": ft/%s: '%s' is not an "
             "unsigned decimal number", domid, kv->key, kv->val);
    return -EINVAL;
}

/* -ESRCH if xenstore has no /local/domain/<domid> (as seen in 't'). */
static int domain_exists(struct xlft_xs *s, xs_transaction_t t,
                         uint32_t domid, char *err, size_t errlen)
{
    char path[64];
    unsigned int len;
    void *v;

    snprintf(path, sizeof(path), "/local/domain/%" PRIu32, domid);
    v = xs_read(s->h, t, path, &len);
    if (v) {
        free(v);
        return 0;
    }
    if (errno == ENOENT) {
        snprintf(err, errlen, "domain %" PRIu32 " does not exist "
                 "(no %s in xenstore)", domid, path);
        return -ESRCH;
    }
    snprintf(err, errlen, "domain %" PRIu32 ": reading %s: %s", domid, path,
             strerror(errno));
    return errno ? -errno : -EIO;
}

int xlft_xs_status_write(struct xlft_xs *s, uint32_t domid,
                         const struct xlft_xs_kv *kv, size_t n, char *err,
                         size_t errlen)
{
    char path[96];
    size_t i;
    int rc, tries;

    rc = check_domid(domid, err, errlen);
    if (rc)
        return rc;
    for (i = 0; i < n; i++) {
        rc = check_kv(domid, &kv[i], err, errlen);
        if (rc)
            return rc;
    }

    for (tries = 0; tries < TX_TRIES; tries++) {
        xs_transaction_t t = xs_transaction_start(s->h);

        if (t == XBT_NULL) {
            rc = errno ? -errno : -EIO;
            snprintf(err, errlen, "domain %" PRIu32 ": cannot start a "
                     "xenstore transaction: %s", domid, strerror(-rc));
            return rc;
        }
        rc = domain_exists(s, t, domid, err, errlen);
        for (i = 0; !rc && i < n; i++) {
            snprintf(path, sizeof(path), "/libxl/%" PRIu32 "/ft/%s", domid,
                     kv[i].key);
            if (!xs_write(s->h, t, path, kv[i].val, strlen(kv[i].val))) {
                rc = errno ? -errno : -EIO;
                snprintf(err, errlen, "domain %" PRIu32 ": writing %s: %s",
                         domid, path, strerror(-rc));
            }
        }
        if (rc) {
            xs_transaction_end(s->h, t, true);
            return rc;
        }
        if (xs_transaction_end(s->h, t, false))
            return 0;
        if (errno != EAGAIN) {
            rc = errno ? -errno : -EIO;
            snprintf(err, errlen, "domain %" PRIu32 ": committing the FT "
                     "status: %s", domid, strerror(-rc));
            return rc;
        }
    }
    snprintf(err, errlen, "domain %" PRIu32 ": the FT status transaction "
             "was aborted %d times in a row (xenstore busy)", domid,
             TX_TRIES);
    return -EAGAIN;
}

int xlft_xs_control_watch(struct xlft_xs *s, uint32_t domid, char *err,
                          size_t errlen)
{
    char path[64];
    int rc;

    rc = check_domid(domid, err, errlen);
    if (rc)
        return rc;
    if (s->watching) {
        snprintf(err, errlen, "domain %" PRIu32 ": this handle already "
                 "watches domain %" PRIu32, domid, s->watch_domid);
        return -EBUSY;
    }
    rc = domain_exists(s, XBT_NULL, domid, err, errlen);
    if (rc)
        return rc;
    snprintf(path, sizeof(path), "/libxl/%" PRIu32 "/ft/control", domid);
    snprintf(s->token, sizeof(s->token), "xlft-control-%" PRIu32, domid);
    if (!xs_watch(s->h, path, s->token)) {
        rc = errno ? -errno : -EIO;
        snprintf(err, errlen, "domain %" PRIu32 ": cannot watch %s: %s",
                 domid, path, strerror(-rc));
        return rc;
    }
    s->watch_domid = domid;
    s->watching = true;
    /* A new watch fires once: a request written before it is taken. */
    s->pending = true;
    return 0;
}

/* Drain the watch events queued on the handle; note ours. */
static void drain_events(struct xlft_xs *s)
{
    char **ev;
    int i;

    /* Bounded: each call consumes one queued event. */
    for (i = 0; i < 1024; i++) {
        ev = xs_check_watch(s->h);
        if (!ev)
            return;
        if (!strcmp(ev[XS_WATCH_TOKEN], s->token))
            s->pending = true;
        free(ev);
    }
}

int xlft_xs_control_read(struct xlft_xs *s, char *req, size_t reqlen,
                         char *err, size_t errlen)
{
    char path[64];
    unsigned int len;
    char *v;
    int rc;

    if (!s->watching) {
        snprintf(err, errlen, "no control key watched");
        return -EINVAL;
    }
    drain_events(s);
    if (!s->pending)
        return 0;
    s->pending = false;

    snprintf(path, sizeof(path), "/libxl/%" PRIu32 "/ft/control",
             s->watch_domid);
    v = xs_read(s->h, XBT_NULL, path, &len);
    if (!v) {
        if (errno == ENOENT)
            return 0;
        rc = errno ? -errno : -EIO;
        snprintf(err, errlen, "domain %" PRIu32 ": reading %s: %s",
                 s->watch_domid, path, strerror(-rc));
        return rc;
    }
    rc = 0;
    if (len >= reqlen || strlen(v) != len) {
        snprintf(err, errlen, "domain %" PRIu32 ": request in %s is too "
                 "long or has a NUL byte (%u bytes); removed",
                 s->watch_domid, path, len);
        rc = -EMSGSIZE;
    } else if (len) {
        memcpy(req, v, len + 1);
        rc = 1;
    }
    free(v);
    /* Removing fires the watch again; that event then finds no key. */
    if (!xs_rm(s->h, XBT_NULL, path) && errno != ENOENT && rc >= 0) {
        rc = errno ? -errno : -EIO;
        snprintf(err, errlen, "domain %" PRIu32 ": removing %s: %s",
                 s->watch_domid, path, strerror(-rc));
    }
    return rc;
}
