/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * views.h - the service's pairs as its status readers see them
 * (status_json.c, metrics.c): a pair running or ended, a peer being
 * dialled, a guest waiting to be protected again.
 */
#ifndef FTD_VIEWS_H
#define FTD_VIEWS_H

#include <stdbool.h>

struct pair;
struct service;

enum view_kind {
    VIEW_PAIR,                  /* a pair, running or ended */
    VIEW_CONNECTING,            /* an enable dialling its peer */
    VIEW_REPROTECT,             /* unprotected, protecting again soon */
};

struct pair_view {
    enum view_kind kind;
    const char *name;
    const char *peer;           /* the other copy's host ("" unknown) */
    struct pair *pair;          /* VIEW_PAIR: the pair, or NULL once freed */
    bool ended;
    const char *end_why;        /* ended: why ("error: ..." if failed) */
    long secs;                  /* connecting: left; reprotect: to next */
    unsigned int attempt;       /* reprotect: the next attempt's number */
    const char *last;           /* reprotect: why the last one failed */
};

typedef void view_fn(void *arg, const struct pair_view *v);

/* Each view of the service ('name': of that guest only); how many. */
int service_views(struct service *s, const char *name, view_fn *fn,
                  void *arg);

#endif /* FTD_VIEWS_H */
