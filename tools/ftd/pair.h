/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pair.h - one protected guest seen from one host: the primary's side
 * (the guest runs here, its log goes out) or the secondary's (a copy
 * replays the log, ready to go live).  The engine of ftd.
 */
#ifndef FTD_PAIR_H
#define FTD_PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "backend.h"
#include "xlft_heartbeat.h"

enum pair_role { PAIR_PRIMARY = 1, PAIR_SECONDARY };

struct pair_cfg {
    struct event_base *base;
    enum pair_role role;
    const char *name;           /* the pair's id: the same on both hosts;
                                   NULL: a secondary serving any pair */
    const char *me;             /* this host's name: in the handshake,
                                   which the peer checks, and to the
                                   arbiter */
    const char *peer_name;      /* the host the peer must prove it is,
                                   or NULL: any but 'me' ('accept') */
    const struct backend *backend;  /* the guest's (backend.h) */
    unsigned int backend_flags;     /* BACKEND_F_* */
    const char *guest;          /* the guest (backend.h), or NULL: ask
                                   'resolve' once it is known */
    int fd;                     /* connected socket to the peer */
    const char *peer;           /* how messages name the peer */
    const uint8_t *key;         /* XLFT_KEY_SIZE bytes; NULL: a secondary
                                   whose 'accept' gives the pair's */
    bool encrypt;
    const char *arbiter;        /* xlft_arbiter.h spec */
    struct xlft_hb_cfg hb;
    unsigned int handshake_ms;  /* give up on a peer silent this long
                                   before the handshake (0: channel's) */
    uint32_t ring_data;         /* bytes of each ring (0: default) */
    size_t buffer_max;          /* secondary: log held ahead of replay */
    uint64_t lag_limit_us;      /* above: say so (0: no limit) */
    /*
     * Secondary without a guest yet: the spec of the copy of 'name',
     * made ready (backend.h, make_copy), into 'sock'; 0 or -errno and
     * 'why'.
     */
    int (*resolve)(void *arg, const char *name, char *sock, size_t len,
                   char *why, size_t whylen);
    /*
     * Whether the peer, named 'peer_host' in its hello, may hold pair
     * 'pair' with this host, and (a secondary's 'key' not NULL) that
     * pair's key: 0, or -errno and 'why' (xlft_accept_fn).  NULL: any.
     */
    int (*accept)(void *arg, const char *pair, const char *peer_host,
                  uint8_t *key, char *why, size_t whylen);
    /* Called once the pair has ended, for good, with why. */
    void (*on_end)(void *arg, int err, const char *why);
    void *arg;
};

struct pair;

/*
 * Start: the primary pauses its guest, copies it to the secondary and
 * records from then on; the secondary waits for that copy.  0 or -errno
 * with 'why'.
 */
int pair_start(struct pair **p, const struct pair_cfg *cfg, char *why,
               size_t whylen);
/*
 * A pair not ended yet ends as on an error (ftd is stopping: pair.c
 * says what then becomes of its guest).  Waits for a copy or a claim
 * still under way: call it once pair_busy() is false, or when the loop
 * is done.
 */
void pair_free(struct pair *p);
/* A copy or a question to the arbiter is under way on a thread. */
bool pair_busy(const struct pair *p);
/*
 * Ended, its channel still closing: its last frame (a SHUTDOWN) is on
 * its way, on the loop, within a second.
 */
bool pair_closing(const struct pair *p);

/*
 * Primary: end protection in order; the guest runs on unprotected and
 * the secondary stops its copy.
 */
int pair_disable(struct pair *p, char *why, size_t len);

/*
 * Primary: hand the guest over; it stops here and the secondary, once
 * it has replayed all of it, goes live.
 */
int pair_failover(struct pair *p, char *why, size_t len);

/* The pair's name ("" for a secondary that has not been told yet). */
const char *pair_name(const struct pair *p);
/* The host the peer proved it is ("" before the handshake is done). */
const char *pair_peer_host(const struct pair *p);

/*
 * A primary that lost its secondary and runs on alone, or a secondary
 * whose copy went live: either way the guest runs here unprotected.
 */
bool pair_unprotected(const struct pair *p);

/* It was protected at some point (an ended pair: before it ended). */
bool pair_was_protected(const struct pair *p);

bool pair_role_primary(const struct pair *p);
/* The peer has proved the key (an ended pair: before it ended). */
bool pair_authenticated(const struct pair *p);

/* One line on the pair's state, for status output. */
void pair_status(const struct pair *p, char *buf, size_t len);

#endif /* FTD_PAIR_H */
