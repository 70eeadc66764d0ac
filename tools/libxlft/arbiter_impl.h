/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arbiter_impl.h - the backends behind xlft_arbiter.h (internal).
 *
 * arbiter.c checks the names and picks the backend by the spec's prefix;
 * a backend only stores and reads claims.
 */
#ifndef XLFT_ARBITER_IMPL_H
#define XLFT_ARBITER_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xlft_arb_backend {
    const char *prefix;         /* "file:" */
    const char *usage;          /* what follows the prefix, for messages */
    /* 'arg' is the spec after the prefix; 'pair' is a good name. */
    int (*open)(void **priv, const char *arg, const char *pair, char *err,
                size_t errlen);
    void (*close)(void *priv);
    /* As xlft_arbiter_claim; 'me' is a good name, 'holder' is "". */
    int (*claim)(void *priv, uint64_t gen, const char *me, char *holder,
                 size_t holderlen, char *err, size_t errlen);
};

extern const struct xlft_arb_backend xlft_arb_file;
extern const struct xlft_arb_backend xlft_arb_etcd;

/* Pair ids and host names: letters, digits, '-', '_', '.'; not ".x". */
bool xlft_arb_good_name(const char *s);

#endif /* XLFT_ARBITER_IMPL_H */
