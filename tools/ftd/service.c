// SPDX-License-Identifier: GPL-2.0-only
/*
 * service.c - ftd as a per-host service: it listens for primaries that
 * want a secondary here (starting the guest's copy itself, from the
 * guest's section in ft.conf), and takes commands from xl-ft on its
 * control socket: enable NAME PEER, disable NAME, failover NAME, status.
 * The backend of ft.conf finds each guest and makes its copies ready
 * (backend.h).
 *
 * Everything runs on one loop that also carries every pair's heartbeats,
 * so nothing here waits: a peer is dialled without blocking (net.h), and
 * each control client has a deadline for its line and for taking the
 * answer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <openssl/crypto.h>

#include "config.h"
#include "metrics.h"
#include "net.h"
#include "pair.h"
#include "pair_stats.h"
#include "service.h"
#include "status_json.h"
#include "rundir.h"
#include "views.h"
#include "xlft_crypto.h"
#include "xlft_path.h"

#define PAIRS_MAX   FTD_GUESTS_MAX
/*
 * Connections that have not proved the key yet have a budget of their
 * own, apart from the pairs': a flood of them never refuses an enable, a
 * re-protection or a peer that has the key.
 */
#define UNAUTH_MAX          32
#define UNAUTH_PER_SOURCE   4
#define UNAUTH_MS           2000
#define SLOTS       (PAIRS_MAX + UNAUTH_MAX)
/* Room for a flood's connections to be taken and closed, so that the
 * kernel does not drop a real peer's SYN meanwhile. */
#define LISTEN_BACKLOG      256
#define CLIENTS_MAX 16          /* control clients at once */
#define CLIENT_MS   2000        /* to send its line, then to read the answer */
#define CMD_MAX     512         /* a command line, newline included */
#define DIAL_MS     5000        /* to reach a peer: lookup and connect */

struct client;

struct slot {
    struct service *svc;
    struct pair *pair;
    struct ftd_dial *dial;      /* primary, its peer not reached yet */
    struct client *waiter;      /* the enable that waits for the dial */
    bool again;                 /* the dial is a re-protection attempt */
    time_t dial_end;            /* the dial's deadline */
    char peer[256];             /* where the other copy is (an incoming
                                   pair: the primary's host, to protect
                                   the guest on again once it is live) */
    char expect[FTD_NAME_MAX + 1];  /* primary: the host the peer must
                                       prove it is, "" for any of the
                                       guest's peers */
    bool incoming;              /* accepted: a secondary here */
    bool ended;
    int reap_due;               /* reaper ticks seen since it ended */
    char name[FTD_NAME_MAX + 1];
    char end_why[300];
};

/* A primary that lost its secondary asks its peer again, backing off. */
struct reprotect {
    bool active;
    char name[FTD_NAME_MAX + 1];
    char peer[256];
    char expect[FTD_NAME_MAX + 1];  /* the host it must be (slot's) */
    unsigned int attempts;
    time_t next;
    char last[300];             /* why the last attempt failed */
    /*
     * An attempt's pair is running: it is done once protected, and an
     * end before that (the guest not live yet after a switchover, say)
     * is an attempt failed, tried again later.
     */
    bool trying;
};

/* One connection on the control socket: one command, one answer. */
struct client {
    struct service *svc;
    struct bufferevent *bev;    /* NULL: this entry is free */
    struct event *deadline;
    struct slot *waits;         /* an enable waiting for its peer */
};

struct service {
    const struct ftd_config *cfg;
    const struct backend *be;   /* ft.conf's */
    struct event_base *base;
    int lfd, cfd;
    struct event *lev, *cev, *reap;
    char ctl_path[300];
    struct slot slots[SLOTS];
    struct reprotect rp[PAIRS_MAX];
    struct client clients[CLIENTS_MAX];
    time_t refused_at;          /* connections refused over the budget */
    unsigned int refused;
    struct metrics *metrics;    /* NULL: no metrics file */
};

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void note(const char *fmt, ...)
{
    va_list ap;

    fputs("ftd: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static time_t mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec;
}

static struct reprotect *reprotect_of(struct service *s, const char *name,
                                      bool make)
{
    struct reprotect *spare = NULL;

    for (int i = 0; i < PAIRS_MAX; i++) {
        if (s->rp[i].active && !strcmp(s->rp[i].name, name))
            return &s->rp[i];
        if (!s->rp[i].active && !spare)
            spare = &s->rp[i];
    }
    if (!make || !spare)
        return NULL;
    memset(spare, 0, sizeof(*spare));
    spare->active = true;
    snprintf(spare->name, sizeof(spare->name), "%s", name);
    return spare;
}

/* A failed re-protection waits before the next: 2 s, 4 s, ... 30 s. */
static void reprotect_later(struct reprotect *r)
{
    unsigned int wait = r->attempts < 5 ? 1u << r->attempts : 30;

    r->next = mono_s() + (wait > 30 ? 30 : wait);
}

static void on_pair_end(void *arg, int err, const char *why)
{
    struct slot *sl = arg;

    struct reprotect *r;

    sl->ended = true;
    snprintf(sl->name, sizeof(sl->name), "%s", pair_name(sl->pair));
    r = reprotect_of(sl->svc, sl->name, false);
    if (r && r->trying) {
        r->trying = false;
        if (pair_was_protected(sl->pair)) {
            r->active = false;
        } else {
            snprintf(r->last, sizeof(r->last), "%s", why);
            reprotect_later(r);
        }
    }
    if (pair_unprotected(sl->pair) && sl->peer[0]) {
        r = reprotect_of(sl->svc, sl->name, true);

        if (r) {
            snprintf(r->peer, sizeof(r->peer), "%s", sl->peer);
            /* The same host again: the one that proved it was. */
            snprintf(r->expect, sizeof(r->expect), "%s",
                     pair_peer_host(sl->pair)[0] ? pair_peer_host(sl->pair)
                                                 : sl->expect);
            r->attempts = 0;
            r->next = mono_s() + 1;
            snprintf(r->last, sizeof(r->last), "%s",
                     pair_role_primary(sl->pair) ? "secondary lost"
                                                 : "went live here");
        }
    }
    snprintf(sl->end_why, sizeof(sl->end_why), "%s%s",
             err ? "error: " : "", why);
    /* Freed by the reaper, a second on: not inside the pair's own
     * callbacks, and its channel's last frame has gone out by then. */
}

/*
 * An accepted connection whose peer has not proved the key (yet, or
 * before it ended: its slot is the strangers' until it is reaped).
 */
static bool unauthenticated(const struct slot *sl)
{
    return sl->incoming && sl->pair && !pair_authenticated(sl->pair);
}

/*
 * A free slot for a pair of 'name' (NULL: an incoming connection from
 * 'host'), within the budget of its kind; NULL if there is none.
 */
static struct slot *free_slot_for(struct service *s, const char *name,
                                  const char *host)
{
    struct slot *spare = NULL;
    int pairs = 0, unauth = 0, from_host = 0;

    for (int i = 0; i < SLOTS; i++) {
        struct slot *sl = &s->slots[i];

        if ((sl->dial || (sl->pair && !sl->ended)) && name &&
            !strcmp(sl->name, name))
            return NULL;        /* already protected or being protected */
        if (unauthenticated(sl)) {
            unauth++;
            from_host += host && !strcmp(sl->peer, host);
        } else if (sl->pair || sl->dial) {
            pairs++;
        }
        if (!sl->pair && !sl->dial && !spare)
            spare = sl;
    }
    if (name ? pairs >= PAIRS_MAX
             : unauth >= UNAUTH_MAX || from_host >= UNAUTH_PER_SOURCE)
        return NULL;
    return spare;
}

/*
 * Who may hold a pair with this host (pair_cfg.accept): the guest's
 * section names the peer, and its key (a secondary's) is read now, so
 * that a key file replaced on both hosts holds from the next
 * connection on.
 */
static int accept_peer(void *arg, const char *pair, const char *peer_host,
                       uint8_t *key, char *why, size_t len)
{
    struct slot *sl = arg;
    const struct ftd_config *c = sl->svc->cfg;
    int rc = ftd_config_peer_ok(c, pair, peer_host, why, len);

    if (rc || !key)
        return rc;
    rc = xlft_key_load(ftd_config_key(c, pair), key, why, len);
    if (!rc)
        return 0;
    /* What is wrong with the key file is this host's, not the peer's. */
    note("%s: refused %s: %s", pair, peer_host, why);
    snprintf(why, len, "this host cannot read the key of pair %s", pair);
    return -ECONNREFUSED;
}

/* A copy of 'name' is coming: made ready as its section says. */
static int make_copy(void *arg, const char *name, char *spec, size_t len,
                     char *why, size_t whylen)
{
    const struct service *s = ((struct slot *)arg)->svc;

    return s->be->make_copy(s->cfg, name, spec, len, why, whylen);
}

static void fill_pair_cfg(struct service *s, struct pair_cfg *pc,
                          struct slot *sl)
{
    const struct ftd_config *c = s->cfg;

    *pc = (struct pair_cfg){
        .backend = s->be, .backend_flags = c->counter_flags,
        .base = s->base, .me = c->host_name, .accept = accept_peer,
        .encrypt = c->encrypt, .arbiter = c->arbiter,
        .hb = { c->heartbeat_ms, c->timeout_ms },
        .ring_data = c->ring_bytes,
        .buffer_max = (size_t)c->buffer_mib << 20,
        .lag_limit_us = c->lag_limit_us,
        .resolve = make_copy,
        .on_end = on_pair_end, .arg = sl,
    };
}

/* "ADDR:PORT" or "[ADDR]:PORT" of an accepted peer: its ftd is ADDR. */
static void peer_host(const char *peer, char *host, size_t len)
{
    const char *colon = strrchr(peer, ':');
    size_t n = colon ? (size_t)(colon - peer) : strlen(peer);

    if (n >= 2 && peer[0] == '[' && peer[n - 1] == ']') {
        peer++;
        n -= 2;
    }
    snprintf(host, len, "%.*s", (int)n, peer);
}

static void on_incoming(evutil_socket_t lfd, short what, void *arg)
{
    struct service *s = arg;
    char why[300], peer[FTD_PEER_MAX], host[256];
    struct pair_cfg pc;
    struct slot *sl;
    int fd = ftd_accept(lfd, peer);

    (void)what;
    if (fd < 0)
        return;
    peer_host(peer, host, sizeof(host));
    sl = free_slot_for(s, NULL, host);
    if (!sl) {
        /* Said once a second at most: a flood must not flood the log. */
        if (mono_s() != s->refused_at) {
            note("refusing %s: %d connections at most still to prove the "
                 "key, %d from one host (%u more refused in the second "
                 "before)", peer, UNAUTH_MAX, UNAUTH_PER_SOURCE,
                 s->refused);
            s->refused_at = mono_s();
            s->refused = 0;
        } else {
            s->refused++;
        }
        close(fd);
        return;
    }
    fill_pair_cfg(s, &pc, sl);
    pc.role = PAIR_SECONDARY;
    pc.fd = fd;
    pc.peer = peer;
    pc.handshake_ms = UNAUTH_MS;
    memset(sl, 0, sizeof(*sl));
    sl->svc = s;
    sl->incoming = true;
    snprintf(sl->peer, sizeof(sl->peer), "%s", host);
    if (pair_start(&sl->pair, &pc, why, sizeof(why))) {
        note("secondary for %s: %s", peer, why);
        sl->pair = NULL;
    }
}

/* A slot held for 'name': a pair, ended or not, or a dial. */
static struct slot *find_any(struct service *s, const char *name)
{
    for (int i = 0; i < SLOTS; i++)
        if ((s->slots[i].pair || s->slots[i].dial) &&
            !strcmp(s->slots[i].name, name))
            return &s->slots[i];
    return NULL;
}

static struct slot *find_dialing(struct service *s, const char *name)
{
    for (int i = 0; i < SLOTS; i++)
        if (s->slots[i].dial && !strcmp(s->slots[i].name, name))
            return &s->slots[i];
    return NULL;
}

static struct slot *find(struct service *s, const char *name)
{
    for (int i = 0; i < SLOTS; i++)
        if (s->slots[i].pair && !s->slots[i].ended &&
            !strcmp(s->slots[i].name, name))
            return &s->slots[i];
    return NULL;
}

static void client_answer(struct client *c);

/* A primary's dial has ended: start its pair and say how it went. */
static void on_dialed(void *arg, int fd, const char *dial_why)
{
    struct slot *sl = arg;
    struct service *s = sl->svc;
    struct reprotect *r = reprotect_of(s, sl->name, false);
    struct client *c = sl->waiter;
    bool again = sl->again;
    char spec[300], why[300];
    uint8_t key[XLFT_KEY_SIZE];
    struct pair_cfg pc;
    int rc = -ECONNREFUSED;

    sl->dial = NULL;
    sl->waiter = NULL;
    sl->again = false;
    snprintf(why, sizeof(why), "%s", dial_why);
    if (fd >= 0) {
        rc = s->be->guest_spec(s->cfg, sl->name, spec, sizeof(spec), why,
                               sizeof(why));
        if (rc) {
            close(fd);
            fd = -1;
        }
    }
    /* Read at each connection: a replaced key holds from the next. */
    if (fd >= 0) {
        rc = xlft_key_load(ftd_config_key(s->cfg, sl->name), key, why,
                           sizeof(why));
        if (rc) {
            close(fd);
            fd = -1;
        }
    }
    if (fd >= 0) {
        fill_pair_cfg(s, &pc, sl);
        pc.role = PAIR_PRIMARY;
        pc.name = sl->name;
        pc.key = key;
        pc.peer_name = sl->expect[0] ? sl->expect : NULL;
        pc.guest = spec;
        pc.fd = fd;
        pc.peer = sl->peer;
        rc = pair_start(&sl->pair, &pc, why, sizeof(why));
        if (rc)
            sl->pair = NULL;
        OPENSSL_cleanse(key, sizeof(key));
    }
    if (r && !rc && again) {
        note("%s: protecting again on %s (attempt %u)", r->name, r->peer,
             r->attempts);
        r->trying = true;
    } else if (r && !rc) {
        r->active = false;      /* the operator took over */
    } else if (r && again) {
        snprintf(r->last, sizeof(r->last), "%s", why);
        reprotect_later(r);
    }
    if (c) {
        struct evbuffer *out = bufferevent_get_output(c->bev);

        c->waits = NULL;
        if (rc)
            evbuffer_add_printf(out, "error: %s: %s\n", sl->name, why);
        else
            evbuffer_add_printf(out, "ok: protecting %s on %s (see "
                                "ft-status)\n", sl->name, sl->peer);
        client_answer(c);
    }
}

/*
 * The host an enable names must be among the guest's peers, and is then
 * the one the peer must prove it is; an address leaves any of them.
 */
static int peer_expected(struct service *s, const char *name,
                         const char *peer, char *expect, size_t elen,
                         char *why, size_t len)
{
    char host[256];
    uint8_t addr[16];
    int rc;

    peer_host(peer, host, sizeof(host));
    if (inet_pton(AF_INET, host, addr) == 1 ||
        inet_pton(AF_INET6, host, addr) == 1) {
        expect[0] = '\0';
        return ftd_config_peer_ok(s->cfg, name, NULL, why, len);
    }
    rc = ftd_config_peer_ok(s->cfg, name, host, why, len);
    if (!rc)
        snprintf(expect, elen, "%.*s", FTD_NAME_MAX, host);
    return rc;
}

/*
 * Protect guest 'name' on 'peer' once it is reached ('expect': the host
 * it must prove it is, "" for any of the guest's peers): 0, and
 * on_dialed answers 'c' (if any) later; or -errno with 'why'.  The slot
 * is the guest's from now on, so that a second enable of it is refused.
 */
static int enable(struct service *s, const char *name, const char *peer,
                  const char *expect, struct client *c, bool again,
                  char *why, size_t len)
{
    struct slot *sl = find_dialing(s, name);
    char named[FTD_NAME_MAX + 1];
    int rc;

    if (!ftd_name_ok(name)) {
        snprintf(why, len, "'%s' is not a guest name", name);
        return -EINVAL;
    }
    if (strlen(peer) >= sizeof(sl->peer)) {
        snprintf(why, len, "peer '%.40s...' is too long (%zu at most)",
                 peer, sizeof(sl->peer) - 1);
        return -EINVAL;
    }
    rc = expect ? ftd_config_peer_ok(s->cfg, name, expect, why, len)
                : peer_expected(s, name, peer, named, sizeof(named), why,
                                len);
    if (rc)
        return rc;
    if (sl) {
        snprintf(why, len, "already being connected to %s", sl->peer);
        return -EBUSY;
    }
    sl = free_slot_for(s, name, NULL);
    if (!sl) {
        snprintf(why, len, "%s is protected already (or too many pairs)",
                 name);
        return -EBUSY;
    }
    memset(sl, 0, sizeof(*sl));
    sl->svc = s;
    snprintf(sl->name, sizeof(sl->name), "%s", name);
    snprintf(sl->peer, sizeof(sl->peer), "%s", peer);
    snprintf(sl->expect, sizeof(sl->expect), "%s", expect ? expect : named);
    rc = ftd_dial_start(&sl->dial, s->base, peer, FTD_PORT, DIAL_MS,
                        on_dialed, sl, why, len);
    if (rc)
        return rc;
    sl->waiter = c;
    sl->again = again;
    sl->dial_end = mono_s() + DIAL_MS / 1000;
    if (c)
        c->waits = sl;
    return 0;
}

static void cmd_enable(struct service *s, struct client *c,
                       const char *name, const char *peer,
                       struct evbuffer *out)
{
    char why[300];

    if (enable(s, name, peer, NULL, c, false, why, sizeof(why)))
        evbuffer_add_printf(out, "error: %s: %s\n", name, why);
}

/* Stop a dial before it reached its peer; its enable is told so. */
static void stop_dial(struct slot *sl)
{
    struct reprotect *r = reprotect_of(sl->svc, sl->name, false);

    ftd_dial_cancel(sl->dial);
    sl->dial = NULL;
    if (r)
        r->active = false;
    if (sl->waiter) {
        evbuffer_add_printf(bufferevent_get_output(sl->waiter->bev),
                            "error: %s: disabled before %s was reached\n",
                            sl->name, sl->peer);
        sl->waiter->waits = NULL;
        client_answer(sl->waiter);
        sl->waiter = NULL;
    }
}

/* Primaries that lost their secondary try again: 1 s, 2 s, ... 30 s. */
static void reprotect_due(struct service *s)
{
    time_t now = mono_s();

    for (int i = 0; i < PAIRS_MAX; i++) {
        struct reprotect *r = &s->rp[i];

        if (!r->active || now < r->next || find_any(s, r->name))
            continue;
        r->attempts++;
        if (enable(s, r->name, r->peer, r->expect[0] ? r->expect : NULL,
                   NULL, true, r->last, sizeof(r->last)))
            reprotect_later(r);
    }
}

static void cmd_status(struct service *s, const char *name,
                       struct evbuffer *out)
{
    int shown = 0;

    for (int i = 0; i < SLOTS; i++) {
        struct slot *sl = &s->slots[i];
        char line[400];

        if (sl->dial) {
            time_t left = sl->dial_end - mono_s();

            if (name && strcmp(sl->name, name))
                continue;
            evbuffer_add_printf(out, "pair=%s role=primary state=connecting"
                                " peer=%s (%lds left)\n", sl->name, sl->peer,
                                (long)(left > 0 ? left : 0));
            shown++;
            continue;
        }
        if (!sl->pair && !sl->ended)
            continue;
        if (sl->pair) {
            pair_status(sl->pair, line, sizeof(line));
            snprintf(sl->name, sizeof(sl->name), "%s",
                     pair_name(sl->pair));
        }
        if (name && strcmp(sl->name, name))
            continue;
        if (sl->pair)
            evbuffer_add_printf(out, "%s%s%s\n", line,
                                sl->ended ? " ended: " : "",
                                sl->ended ? sl->end_why : "");
        else
            evbuffer_add_printf(out, "pair=%s ended: %s\n", sl->name,
                                sl->end_why);
        shown++;
    }
    for (int i = 0; i < PAIRS_MAX; i++) {
        struct reprotect *r = &s->rp[i];

        if (!r->active || (name && strcmp(r->name, name)))
            continue;
        evbuffer_add_printf(out, "pair=%s unprotected: protecting again on "
                            "%s, attempt %u, next in %lds (%s)\n", r->name,
                            r->peer, r->attempts + 1,
                            (long)(r->next > mono_s() ? r->next - mono_s()
                                                      : 0), r->last);
        shown++;
    }
    if (!shown) {
        if (name)
            evbuffer_add_printf(out, "error: no pair for %s on this host\n",
                                name);
        else
            evbuffer_add_printf(out, "no pairs\n");
    }
}

int service_views(struct service *s, const char *name, view_fn *fn,
                  void *arg)
{
    time_t now = mono_s();
    int shown = 0;

    for (int i = 0; i < SLOTS; i++) {
        struct slot *sl = &s->slots[i];
        struct pair_view v = { .kind = VIEW_PAIR, .peer = sl->peer };

        if (!sl->dial && !sl->pair && !sl->ended)
            continue;
        if (sl->pair)
            snprintf(sl->name, sizeof(sl->name), "%s",
                     pair_name(sl->pair));
        if (name && strcmp(sl->name, name))
            continue;
        v.name = sl->name;
        v.pair = sl->pair;
        v.ended = sl->ended;
        v.end_why = sl->end_why;
        if (sl->dial) {
            v.kind = VIEW_CONNECTING;
            v.secs = sl->dial_end > now ? (long)(sl->dial_end - now) : 0;
        }
        fn(arg, &v);
        shown++;
    }
    for (int i = 0; i < PAIRS_MAX; i++) {
        struct reprotect *r = &s->rp[i];
        struct pair_view v = { .kind = VIEW_REPROTECT };

        if (!r->active || (name && strcmp(r->name, name)))
            continue;
        v.name = r->name;
        v.peer = r->peer;
        v.secs = r->next > now ? (long)(r->next - now) : 0;
        v.attempt = r->attempts + 1;
        v.last = r->last;
        fn(arg, &v);
        shown++;
    }
    return shown;
}

static void cmd_stop(struct service *s, const char *verb, const char *name,
                     struct evbuffer *out)
{
    bool disable = !strcmp(verb, "disable");
    struct slot *sl = find(s, name);
    struct reprotect *r;
    char why[300];
    int rc;

    if (!sl) {
        sl = find_dialing(s, name);
        r = reprotect_of(s, name, false);
        if (sl && disable) {
            evbuffer_add_printf(out, "ok: %s stays unprotected (%s was not "
                                "reached yet)\n", name, sl->peer);
            stop_dial(sl);
        } else if (sl) {
            evbuffer_add_printf(out, "error: %s is not protected yet: "
                                "connecting to %s\n", name, sl->peer);
        } else if (r && disable) {
            r->active = false;
            evbuffer_add_printf(out, "ok: %s stays unprotected\n", name);
        } else {
            evbuffer_add_printf(out, "error: %s is not protected from this "
                                "host\n", name);
        }
        return;
    }
    r = reprotect_of(s, name, false);
    if (r && disable)
        r->active = false;      /* an attempt under way ends here */
    rc = disable ? pair_disable(sl->pair, why, sizeof(why))
                 : pair_failover(sl->pair, why, sizeof(why));
    if (rc)
        evbuffer_add_printf(out, "error: %s\n", why);
    else
        evbuffer_add_printf(out, "ok: %s %s (see ft-status)\n", name,
                            disable ? "is being disabled"
                                    : "is being handed over");
}

static void command(struct service *s, struct client *c, char *line,
                    struct evbuffer *out)
{
    char *w[4] = { NULL }, *save = NULL;
    int n = 0;

    for (char *t = strtok_r(line, " \t\r\n", &save); t && n < 4;
         t = strtok_r(NULL, " \t\r\n", &save))
        w[n++] = t;
    if (n == 3 && !strcmp(w[0], "enable"))
        cmd_enable(s, c, w[1], w[2], out);
    else if ((n == 1 || n == 2) && !strcmp(w[0], "status"))
        cmd_status(s, w[1], out);
    else if ((n == 2 || n == 3) && !strcmp(w[0], "status-json"))
        status_json(s, s->cfg->host_name, w[1], w[2], out);
    else if (n == 2 && (!strcmp(w[0], "disable") ||
                        !strcmp(w[0], "failover")))
        cmd_stop(s, w[0], w[1], out);
    else
        evbuffer_add_printf(out, "error: commands are 'enable NAME "
                            "HOST[:PORT]', 'disable NAME', 'failover NAME', "
                            "'status [NAME]', 'status-json VERSION "
                            "[NAME]'\n");
}

static void client_free(struct client *c)
{
    if (c->waits)
        c->waits->waiter = NULL;
    bufferevent_free(c->bev);
    if (c->deadline)
        event_free(c->deadline);
    memset(c, 0, sizeof(*c));
}

static void client_deadline(struct client *c)
{
    struct timeval tv = { CLIENT_MS / 1000, CLIENT_MS % 1000 * 1000 };

    evtimer_add(c->deadline, &tv);
}

/* The answer is in the output: send it, within the deadline. */
static void client_answer(struct client *c)
{
    bufferevent_disable(c->bev, EV_READ);
    bufferevent_enable(c->bev, EV_WRITE);
    client_deadline(c);
}

/* The client's line, or what it sent before it closed: run it. */
static void client_line(struct client *c, char *line, size_t n)
{
    struct evbuffer *out = bufferevent_get_output(c->bev);

    evtimer_del(c->deadline);
    bufferevent_disable(c->bev, EV_READ);
    if (n >= CMD_MAX)
        evbuffer_add_printf(out, "error: a command is one line of less "
                            "than %d bytes\n", CMD_MAX);
    else if (!line || !n || memchr(line, '\0', n))
        evbuffer_add_printf(out, "error: no command\n");
    else
        command(c->svc, c, line, out);
    if (!c->waits)
        client_answer(c);
}

static void on_client_read(struct bufferevent *bev, void *arg)
{
    struct evbuffer *in = bufferevent_get_input(bev);
    size_t n;
    char *line = evbuffer_readln(in, &n, EVBUFFER_EOL_LF);

    if (!line && evbuffer_get_length(in) < CMD_MAX)
        return;                 /* more to come */
    client_line(arg, line, line ? n : CMD_MAX);
    free(line);
}

static void on_client_written(struct bufferevent *bev, void *arg)
{
    struct client *c = arg;

    if (!evbuffer_get_length(bufferevent_get_output(bev)))
        client_free(c);         /* answered */
}

static void on_client_event(struct bufferevent *bev, short what, void *arg)
{
    struct client *c = arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    size_t n = evbuffer_get_length(in);
    char line[CMD_MAX];

    /* A client that closed after a line without its newline. */
    if ((what & BEV_EVENT_EOF) && (what & BEV_EVENT_READING) &&
        !c->waits && n < CMD_MAX) {
        evbuffer_remove(in, line, n);
        line[n] = '\0';
        client_line(c, line, n);
        return;
    }
    client_free(c);
}

static void on_client_deadline(evutil_socket_t fd, short what, void *arg)
{
    static const char late[] = "error: no command within 2 s\n";
    struct client *c = arg;

    (void)fd;
    (void)what;
    if (bufferevent_get_enabled(c->bev) & EV_READ)
        send(bufferevent_getfd(c->bev), late, sizeof(late) - 1,
             MSG_DONTWAIT | MSG_NOSIGNAL);
    client_free(c);
}

/*
 * One command per connection.  Nothing here waits on a client: each has
 * CLIENT_MS to send its line and as long again to take the answer (an
 * enable's answer comes when its dial ends, DIAL_MS at most).
 */
static void on_control(evutil_socket_t lfd, short what, void *arg)
{
    static const char busy[] = "error: ftd is busy: too many control "
                               "clients at once; try again\n";
    struct service *s = arg;
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    struct client *c = NULL;

    (void)what;
    if (fd < 0)
        return;
    for (int i = 0; i < CLIENTS_MAX && !c; i++)
        if (!s->clients[i].bev)
            c = &s->clients[i];
    if (!c) {
        send(fd, busy, sizeof(busy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
        close(fd);
        return;
    }
    c->svc = s;
    c->bev = bufferevent_socket_new(s->base, fd, BEV_OPT_CLOSE_ON_FREE);
    if (!c->bev)
        close(fd);
    else
        c->deadline = evtimer_new(s->base, on_client_deadline, c);
    if (!c->deadline) {
        if (c->bev)
            client_free(c);
        note("control: cannot take a client: out of memory");
        return;
    }
    bufferevent_setcb(c->bev, on_client_read, on_client_written,
                      on_client_event, c);
    bufferevent_enable(c->bev, EV_READ);
    client_deadline(c);
}

/* Once a second: children that exited, pairs that ended a while ago. */
static void on_reap(evutil_socket_t fd, short what, void *arg)
{
    struct service *s = arg;

    (void)fd;
    (void)what;
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    /* Before the reaping: an ended pair is counted at least once. */
    for (int i = 0; i < SLOTS; i++)
        if (s->slots[i].pair)
            pair_stats_sample(s->slots[i].pair);
    if (s->metrics)
        metrics_tick(s->metrics, s);
    for (int i = 0; i < SLOTS; i++) {
        struct slot *sl = &s->slots[i];

        /* A copy or claim still under way is not waited for here. */
        if (sl->pair && sl->ended && sl->reap_due++ &&
            !pair_busy(sl->pair)) {
            pair_free(sl->pair);
            sl->pair = NULL;
        }
    }
    reprotect_due(s);
}

/* The control socket at 'path', listening: its descriptor, or -1. */
static int listen_unix(const char *path, char *why, size_t len)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    mode_t old;
    int fd = -1, rc = -1;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        snprintf(why, len, "control socket path too long: %s", path);
        goto out;
    }
    if (ftd_run_sock_ok(path, why, len))
        goto out;
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(why, len, "control socket %s: %s", path, strerror(errno));
        goto out;
    }
    if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        snprintf(why, len, "%s: another ftd runs on this host", path);
        goto out;
    }
    /* A socket no one listens on: left by an ftd that died. */
    if (errno == ECONNREFUSED)
        unlink(path);
    old = umask(077);
    rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
    umask(old);
    if (rc || listen(fd, 8)) {
        snprintf(why, len, "control socket %s: %s", path, strerror(errno));
        rc = -1;
        goto out;
    }
    rc = fd;
    fd = -1;
out:
    if (fd >= 0)
        close(fd);
    return rc;
}

/*
 * The run directory holds the control socket and the copies' sockets,
 * consoles and logs, which ftd (root) opens, connects to and hands to
 * xl-ft: whoever may write in it, or replace it, could make ftd write
 * elsewhere or answer its commands (xlft_path.h says what is checked).
 */
static int run_dir_ok(const char *dir, char *why, size_t len)
{
    if (mkdir(dir, 0700) && errno != EEXIST) {
        int err = errno;

        snprintf(why, len, "run-dir %s: cannot create it: %s", dir,
                 strerror(err));
        return -err;
    }
    return xlft_dir_trusted("run-dir", dir, XLFT_DIR_OWNED, why, len);
}

/*
 * Every key file a pair would read is read once at the start, so that a
 * mistake stops ftd now rather than refusing a pair later; the keys are
 * read again at each connection (accept_peer, on_dialed).
 */
static int keys_ok(const struct ftd_config *cfg, char *why, size_t len)
{
    uint8_t key[XLFT_KEY_SIZE];
    bool host_key = !cfg->nguests;
    char text[300];
    int rc = 0;

    for (unsigned int i = 0; i < cfg->nguests && !rc; i++) {
        const struct ftd_guest *g = &cfg->guests[i];

        if (!g->key[0]) {
            host_key = true;
            continue;
        }
        rc = xlft_key_load(g->key, key, text, sizeof(text));
        if (rc)
            snprintf(why, len, "guest %s: %s", g->name, text);
    }
    if (!rc && host_key) {
        rc = xlft_key_load(cfg->key, key, text, sizeof(text));
        if (rc)
            snprintf(why, len, "%s", text);
    }
    OPENSSL_cleanse(key, sizeof(key));
    return rc ? -EINVAL : 0;
}

int service_run(const struct ftd_config *cfg, struct event_base *base,
                char *why, size_t len)
{
    static struct service svc;
    struct service *s = &svc;
    struct timeval tv = { 1, 0 };
    int rc;

    memset(s, 0, sizeof(*s));
    s->cfg = cfg;
    s->be = backend_named(cfg->backend);
    s->base = base;
    s->lfd = s->cfd = -1;
    rc = run_dir_ok(cfg->run_dir, why, len);
    if (rc)
        goto out;
    rc = keys_ok(cfg, why, len);
    if (rc)
        goto out;
    if (cfg->metrics_file[0]) {
        rc = metrics_new(&s->metrics, cfg->metrics_file, cfg->host_name,
                         why, len);
        if (rc)
            goto out;
    }
    snprintf(s->ctl_path, sizeof(s->ctl_path), "%s/ftd.sock", cfg->run_dir);
    s->cfd = listen_unix(s->ctl_path, why, len);
    if (s->cfd < 0) {
        rc = -EADDRINUSE;
        goto out;
    }
    s->lfd = ftd_listen(cfg->listen, LISTEN_BACKLOG, why, len);
    if (s->lfd < 0) {
        rc = -EADDRINUSE;
        goto out;
    }
    s->lev = event_new(base, s->lfd, EV_READ | EV_PERSIST, on_incoming, s);
    s->cev = event_new(base, s->cfd, EV_READ | EV_PERSIST, on_control, s);
    s->reap = event_new(base, -1, EV_PERSIST, on_reap, s);
    if (!s->lev || !s->cev || !s->reap || event_add(s->lev, NULL) ||
        event_add(s->cev, NULL) || event_add(s->reap, &tv)) {
        snprintf(why, len, "cannot set up the event loop");
        rc = -ENOMEM;
        goto out;
    }
    note("host %s: listening on %s, control %s", cfg->host_name,
         cfg->listen, s->ctl_path);
    event_base_dispatch(base);
out:
    for (int i = 0; i < CLIENTS_MAX; i++)
        if (s->clients[i].bev)
            client_free(&s->clients[i]);
    for (int i = 0; i < SLOTS; i++) {
        ftd_dial_cancel(s->slots[i].dial);
        pair_free(s->slots[i].pair);
    }
    metrics_free(s->metrics);
    if (s->lev)
        event_free(s->lev);
    if (s->cev)
        event_free(s->cev);
    if (s->reap)
        event_free(s->reap);
    if (s->lfd >= 0)
        close(s->lfd);
    /* Only a socket of this ftd's is removed: another's may be there. */
    if (s->cfd >= 0) {
        close(s->cfd);
        unlink(s->ctl_path);
    }
    return rc;
}
