// SPDX-License-Identifier: GPL-2.0-only
/*
 * arbiter.c - who may be the live copy of a pair (xlft_arbiter.h): the
 * checks every backend shares, and the choice of backend by the prefix
 * of the spec.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xlft_arbiter.h"
#include "arbiter_impl.h"

struct xlft_arbiter {
    const struct xlft_arb_backend *be;
    void *priv;
};

static const struct xlft_arb_backend *const backends[] = {
    &xlft_arb_file,
    &xlft_arb_etcd,
};
#define NBACKENDS (sizeof(backends) / sizeof(backends[0]))

bool xlft_arb_good_name(const char *s)
{
    size_t n = strlen(s);

    if (!n || n > XLFT_ARB_NAME_MAX || s[0] == '.')
        return false;
    for (; *s; s++) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ||
              *s == '.'))
            return false;
    }
    return true;
}

int xlft_arbiter_open(struct xlft_arbiter **ap, const char *spec,
                      const char *pair, char *err, size_t errlen)
{
    const struct xlft_arb_backend *be = NULL;
    struct xlft_arbiter *a;
    int rc;

    *ap = NULL;
    for (size_t i = 0; i < NBACKENDS; i++) {
        size_t n = strlen(backends[i]->prefix);

        if (!strncmp(spec, backends[i]->prefix, n) && spec[n])
            be = backends[i];
    }
    if (!be) {
        snprintf(err, errlen, "arbiter '%s': expected %s%s or %s%s", spec,
                 xlft_arb_file.prefix, xlft_arb_file.usage,
                 xlft_arb_etcd.prefix, xlft_arb_etcd.usage);
        return -EINVAL;
    }
    if (!xlft_arb_good_name(pair)) {
        snprintf(err, errlen, "pair id '%s': use 1 to %d letters, digits, "
                 "'-', '_' or '.', not starting with '.'", pair,
                 XLFT_ARB_NAME_MAX);
        return -EINVAL;
    }
    a = calloc(1, sizeof(*a));
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    a->be = be;
    rc = be->open(&a->priv, spec + strlen(be->prefix), pair, err, errlen);
    if (rc) {
        free(a);
        return rc;
    }
    *ap = a;
    return 0;
}

void xlft_arbiter_close(struct xlft_arbiter *a)
{
    if (!a)
        return;
    a->be->close(a->priv);
    free(a);
}

int xlft_arbiter_claim(struct xlft_arbiter *a, uint64_t gen, const char *me,
                       char *holder, size_t holderlen, char *err,
                       size_t errlen)
{
    holder[0] = '\0';
    if (!xlft_arb_good_name(me)) {
        snprintf(err, errlen, "host name '%s' cannot name a claim", me);
        return -EINVAL;
    }
    return a->be->claim(a->priv, gen, me, holder, holderlen, err, errlen);
}
