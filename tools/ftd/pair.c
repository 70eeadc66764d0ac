// SPDX-License-Identifier: GPL-2.0-only
/*
 * pair.c - one protected guest on one host (pair.h): its life, the
 * channel to the peer, heartbeats, and how it ends (pair_impl.h says
 * which file does the rest).
 *
 * How a pair ends decides what its guest may do, since the peer may go
 * live the moment this side falls silent:
 *   - an asked-for disable, or a won claim: the log ends in order, what
 *     the output gate holds goes out, the guest runs on unprotected;
 *   - a lost claim: the copy halts and its held outputs are thrown away;
 *   - a secondary gone live: it is the guest now;
 *   - a primary's guest that stopped by itself (powered off): its log
 *     ended in order, and once the secondary holds all of it the guest
 *     is stopped and the secondary told, as for a disable;
 *   - any other end (an error, ftd stopping) of a primary whose
 *     secondary may hold the whole copy: the guest halts, as for a lost
 *     claim, and the secondary's arbiter decides; of a primary whose copy
 *     never got across: the guest runs on (resumed if paused for it);
 *     of a secondary: its copy halts, the guest it started included.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "ft_log.h"
#include "pair_impl.h"

#define TICK_MS     10
#define RETRY_MS    100                 /* arbiter unreachable: again */
/* A copy paused this long is given up, not a pause of a few seconds. */
#define STUCK_MS    10000u

static const char *const state_names[] = {
    "handshake", "sync", "protected", "arbitrating", "going-live", "live",
    "halted", "ended",
};

const char *pair_state_name(enum state st)
{
    return state_names[st];
}

uint64_t pair_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void pair_say(struct pair *p, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "ftd: %s %s (peer %s): ",
            p->cfg.role == PAIR_PRIMARY ? "primary" : "secondary", p->name,
            p->peer);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int pair_settle(struct pair *p, enum guest_op op)
{
    char why[400];
    int rc = p->be->call(p->vm, op, 0, -1, why, sizeof(why));

    if (rc)
        pair_say(p, "%s", why);
    else
        p->settled = true;
    return rc;
}

bool pair_throttle(struct pair *p, uint32_t pct)
{
    char why[400];

    if (!p->be->call(p->vm, GUEST_THROTTLE, pct, -1, why, sizeof(why)))
        return true;
    pair_say(p, "cannot run the guest at %u%% speed: %s", pct, why);
    return false;
}

/* The safe fate of a guest whose pair ended without one (see the top). */
static void fate(struct pair *p, enum state was)
{
    if (p->settled)
        return;
    if (p->won_late)
        was = p->cfg.role == PAIR_PRIMARY ? S_LIVE : S_GOING_LIVE;
    if (!p->vm && p->cfg.role == PAIR_SECONDARY && p->guest_path[0] &&
        p->be->drop_copy) {
        char why[300];

        /* What this host started for the copy goes too. */
        if (p->be->drop_copy(p->guest_path, p->peer,
                             p->cfg.backend_flags | BACKEND_F_COPY, why,
                             sizeof(why)))
            pair_say(p, "cannot stop the guest started for the copy: %s",
                     why);
        else
            p->settled = true;
        return;
    }
    if (!p->vm)
        return;
    if (p->cfg.role == PAIR_SECONDARY && was == S_GOING_LIVE &&
        !p->fifo_len) {
        /* Its claim won, for good: the other copy halts. */
        if (!pair_settle(p, GUEST_GOLIVE))
            pair_say(p, "it won its claim: the copy goes live");
    } else if (p->cfg.role == PAIR_SECONDARY && was == S_GOING_LIVE) {
        /* Live without what it holds, it could not explain outputs the
         * primary let out: lost, rather than wrong. */
        if (!pair_settle(p, GUEST_HALT))
            pair_say(p, "won the claim but ended with %zu bytes of log "
                     "not replayed: the copy is halted, the guest lost",
                     p->fifo_len);
    } else if (p->cfg.role == PAIR_SECONDARY) {
        pair_settle(p, GUEST_HALT);
    } else if (was == S_LIVE) {
        if (!pair_settle(p, GUEST_DISABLE))
            pair_say(p, "won the claim: the guest runs on, unprotected");
    } else if (!p->have_ring) {
        if (p->paused_here && !pair_settle(p, GUEST_UNPAUSE))
            pair_say(p, "the copy was not made: the guest runs on, "
                     "unprotected");
    } else if (was == S_SYNC) {
        /* Ended between RECORD and its UNPAUSE: paused for the copy. */
        if (!pair_settle(p, GUEST_DISABLE) &&
            (!p->paused_here || !pair_settle(p, GUEST_UNPAUSE)))
            pair_say(p, "the secondary never held the whole copy: the "
                     "guest runs on, unprotected");
    } else if (!pair_settle(p, GUEST_HALT)) {
        pair_say(p, "the secondary may go live: the guest is halted and "
                 "its held outputs dropped");
    }
}

/* ftvm serves one client: no copy of the connection may outlive ours. */
static void unwatch_gone(struct pair *p)
{
    if (p->gone_ev)
        event_free(p->gone_ev);
    p->gone_ev = NULL;
    if (p->gone_fd >= 0)
        close(p->gone_fd);
    p->gone_fd = -1;
}

void pair_finish(struct pair *p)
{
    if (!p->ended || p->finished || pair_busy(p))
        return;
    p->finished = true;
    fate(p, p->end_st);
    if (!p->vm)
        return;
    /* The guest is free for its next client (a backend may take one). */
    p->have_ring = false;
    unwatch_gone(p);
    p->be->close(p->vm);
    p->vm = NULL;
}

void pair_end(struct pair *p, int err, const char *fmt, ...)
{
    char why[600];
    va_list ap;

    if (p->ended)
        return;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    pair_say(p, "%s", why);
    p->ended = true;
    p->end_st = p->st;
    if (p->st != S_LIVE && p->st != S_HALTED)
        p->st = S_ENDED;
    if (p->chan) {
        struct xlft_msg m = { .type = XLFT_T_SHUTDOWN };

        /*
         * Only a primary whose log ended in order says so: the secondary
         * then halts its copy (or goes live after a GOLIVE) instead of
         * asking the arbiter (WIRE.md, SHUTDOWN).
         */
        m.u.shutdown_seq = p->sent;
        if (!err && p->cfg.role == PAIR_PRIMARY)
            xlft_chan_send(p->chan, &m);
        xlft_chan_close(p->chan);
    }
    if (p->vm && p->be->status && !p->job->running)
        p->be->status(p->vm, err ? "error" : state_names[p->st],
                      err ? why : NULL);
    if (p->tick)
        event_del(p->tick);
    if (p->up_ev)
        event_del(p->up_ev);
    if (p->gone_ev)
        event_del(p->gone_ev);
    if (pair_busy(p))
        pair_say(p, "the %s under way finishes first",
                 p->job->running ? "request of the guest" : "claim");
    else
        pair_finish(p);
    p->cfg.on_end(p->cfg.arg, err, why);
}

int pair_send(struct pair *p, const struct xlft_msg *m)
{
    int rc;

    if (!p->chan)
        return -ENOTCONN;
    rc = xlft_chan_send(p->chan, m);
    if (!rc)
        xlft_hb_sent(&p->hb, pair_now_ns());
    return rc;
}

static void on_up_fd(evutil_socket_t fd, short what, void *arg);

/*
 * The guest's platform has gone (ftvm killed, crashed): a protected
 * primary sends what its guest recorded first and then ends as a host
 * that went would (primary_watch_end), so that the secondary takes
 * over; a secondary's copy is lost, and the primary runs on without it.
 */
static void guest_gone(struct pair *p)
{
    p->guest_gone = true;
    snprintf(p->guest_end, sizeof(p->guest_end), "its platform closed its "
             "control connection");
    if (p->cfg.role == PAIR_PRIMARY && p->st == S_PROTECTED)
        primary_watch_end(p, pair_now_ns());
    else if (p->cfg.role == PAIR_PRIMARY)
        pair_end(p, -EPIPE, "the guest is gone (%s) while %s", p->guest_end,
                 p->st == S_SYNC ? "its copy was made: no secondary holds "
                 "it" : "its peer was lost: the guest is lost");
    else
        pair_end(p, -EPIPE, "the copy is gone (%s)%s", p->guest_end,
                 p->st == S_ARBITRATING || p->st == S_GOING_LIVE ?
                 " after the primary was lost: the guest is lost" :
                 ": the guest runs on its primary, unprotected");
}

/*
 * A request under way may be what closed it (a HALT the platform
 * obeyed, then exited): the close and the reply arrive in either order,
 * and the reply says first (job_in calls pair_gone_held).
 */
static void on_gone(evutil_socket_t fd, short what, void *arg)
{
    struct pair *p = arg;

    (void)fd;
    (void)what;
    event_del(p->gone_ev);      /* it stays closed */
    if (p->job->running)
        p->gone_held = true;
    else
        guest_gone(p);
}

void pair_gone_held(struct pair *p)
{
    if (p->gone_held && !p->ended)
        guest_gone(p);
    p->gone_held = false;
}

/* Watched where the event loop can see a close alone (epoll). */
static int watch_gone(struct pair *p)
{
    int fd = p->be->ctl_fd ? p->be->ctl_fd(p->vm) : -1;

    if (fd < 0 || !(event_base_get_features(p->cfg.base) &
                    EV_FEATURE_EARLY_CLOSE))
        return 0;
    p->gone_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (p->gone_fd < 0)
        return -errno;
    p->gone_ev = event_new(p->cfg.base, p->gone_fd, EV_CLOSED | EV_PERSIST,
                           on_gone, p);
    if (!p->gone_ev || event_add(p->gone_ev, NULL))
        return -ENOMEM;
    return 0;
}

bool pair_watch_ring(struct pair *p)
{
    int rc;

    p->ring = p->be->ring(p->vm);
    p->have_ring = true;
    /* The handshake promised the peer this: a ring saying else breaks it. */
    if (p->ring->counter != p->counter || p->ring->cpu != p->cpu) {
        pair_end(p, -EPROTO, "the guest's ring counts %s on %s, not the "
                 "%s on %s this host said it would",
                 ft_counter_name(p->ring->counter),
                 ft_cpu_name(p->ring->cpu), ft_counter_name(p->counter),
                 ft_cpu_name(p->cpu));
        return false;
    }
    p->up_ev = event_new(p->cfg.base, p->be->ring_fd(p->vm),
                         EV_READ | EV_PERSIST, on_up_fd, p);
    if (!p->up_ev || event_add(p->up_ev, NULL)) {
        pair_end(p, -ENOMEM, "cannot watch the ring");
        return false;
    }
    rc = watch_gone(p);
    if (rc) {
        pair_end(p, rc, "cannot watch the guest's control connection: %s",
                 strerror(-rc));
        return false;
    }
    return true;
}

static void on_drop(evutil_socket_t fd, short what, void *arg)
{
    struct pair *p = arg;

    (void)fd;
    (void)what;
    if (p->chan) {
        xlft_chan_free(p->chan);
        p->chan = NULL;
    }
}

/*
 * Given up: no frame more is taken, and the peer, if it lives, sees the
 * connection break and asks the arbiter too.  Freed on the next pass of
 * the loop, outside the channel's own calls.
 */
static void chan_drop(struct pair *p)
{
    if (!p->chan)
        return;
    xlft_chan_pause(p->chan, true);
    event_active(p->drop_ev, EV_TIMEOUT, 0);
}

void pair_peer_lost(struct pair *p, const char *why)
{
    if (p->job->running) {
        pair_end(p, -ECONNRESET, "peer lost while the copy was made: %s",
                 why);
        return;
    }
    if (p->st == S_HANDSHAKE) {
        pair_end(p, -ECONNRESET, "no handshake: %s", why);
        return;
    }
    /* A primary that never recorded: the guest simply runs on. */
    if (p->st == S_SYNC && (p->cfg.role == PAIR_SECONDARY || !p->have_ring)) {
        pair_end(p, -ECONNRESET, "peer lost before the copy was made: %s",
                 why);
        return;
    }
    if (p->st != S_SYNC && p->st != S_PROTECTED)
        return;
    p->lost_ns = pair_now_ns();
    pair_say(p, "peer lost (%s): asking the arbiter", why);
    p->st = S_ARBITRATING;
    chan_drop(p);
    p->retry_ns = p->lost_ns + RETRY_MS * 1000000ull;
    claim_arbitrate(p);
}

/* The peer ended the pair in order (SHUTDOWN, then its close). */
static void peer_ended(struct pair *p)
{
    if (p->cfg.role == PAIR_PRIMARY) {
        /* A secondary sends none: whatever it meant, it is lost. */
        pair_peer_lost(p, "the secondary closed the channel");
        return;
    }
    if (p->golive) {
        /* A switchover: the primary has stopped and sent it all. */
        p->lost_ns = pair_now_ns();
        p->st = S_ARBITRATING;
        chan_drop(p);
        claim_arbitrate(p);
        return;
    }
    /* The primary holds the generation: this copy is not needed (a
     * restore under way: halted once it is done, pair_finish). */
    if (p->vm && !p->job->running)
        pair_settle(p, GUEST_HALT);
    pair_end(p, 0, "the primary ended the pair");
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    struct pair *p = arg;
    uint64_t now = pair_now_ns();

    (void)fd;
    (void)what;
    if (p->st == S_ARBITRATING) {
        if (now >= p->retry_ns) {
            p->retry_ns = now + RETRY_MS * 1000000ull;
            claim_arbitrate(p);
        }
        return;
    }
    if (p->st == S_GOING_LIVE && p->golive_sent) {
        secondary_watch_live(p);
        return;
    }
    if (p->st != S_SYNC && p->st != S_PROTECTED)
        return;
    if (p->st == S_SYNC && p->cfg.role == PAIR_SECONDARY &&
        p->sync_total && p->sync_off == p->sync_total)
        secondary_restore(p);
    if (p->save_again_ns && now >= p->save_again_ns)
        primary_save_again(p);
    if (p->ended)
        return;
    /*
     * A secondary that stopped taking frames does not hear the primary
     * behind them: its silence is no death.  It listens again once its
     * replay has caught up, and could not go live sooner anyway.
     */
    if (p->paused_in && p->have_ring) {
        uint64_t seq = ft_ring_cons_seq(p->ring);

        if (seq != p->stuck_seq || !p->stuck_ns) {
            p->stuck_seq = seq;
            p->stuck_ns = now;
        } else if (now - p->stuck_ns > STUCK_MS * 1000000ull) {
            /* A copy that does not replay is of no use: the primary's
             * claim will win. */
            pair_end(p, -ETIMEDOUT, "the copy replayed nothing for %u ms "
                     "with the log buffer full", STUCK_MS);
            return;
        }
    } else {
        p->stuck_ns = 0;
    }
    if (p->cfg.role == PAIR_PRIMARY && p->st == S_PROTECTED) {
        primary_check_ring(p, now);
        if (p->ended)
            return;
        primary_watch_end(p, now);
        if (p->ended)
            return;
    }
    if (!p->paused_in && xlft_hb_peer(&p->hb, now) == XLFT_PEER_LOST) {
        if (p->peer_shutdown)
            peer_ended(p);      /* its close was lost on the way */
        else
            pair_peer_lost(p, "silent for the heartbeat timeout");
        return;
    }
    if (xlft_hb_due(&p->hb, now)) {
        struct xlft_msg m = { .type = XLFT_T_HEARTBEAT };

        m.u.heartbeat.sent_ns = now;
        pair_send(p, &m);       /* a full queue is traffic enough */
    }
}

static void on_up_fd(evutil_socket_t fd, short what, void *arg)
{
    struct pair *p = arg;
    int rc = p->be->ring_drain(p->vm);

    (void)fd;
    (void)what;
    if (rc) {
        pair_end(p, rc, "ring notification: %s", strerror(-rc));
        return;
    }
    if (p->cfg.role == PAIR_PRIMARY) {
        primary_pump(p);
        return;
    }
    /* Said once the job that holds the guest is done (its UNPAUSE). */
    if ((ft_ring_flags(p->ring) & (FT_RING_F_DIVERGED | FT_RING_F_BADLOG)) &&
        !p->job->running) {
        char why[300];

        p->meter.diverged = ft_ring_flags(p->ring) & FT_RING_F_DIVERGED;
        p->be->why_stopped(p->vm, why, sizeof(why));
        if (p->golive_sent)
            pair_end(p, -EIO, "replay failed while going live: %s; the "
                     "guest is lost with its primary", why);
        else
            pair_end(p, -EIO, "replay failed: %s", why);
        return;
    }
    secondary_feed(p);
}

static void on_chan_up(struct xlft_chan *c, void *arg)
{
    struct pair *p = arg;

    xlft_hb_heard(&p->hb, pair_now_ns());
    snprintf(p->peer_host, sizeof(p->peer_host), "%s",
             xlft_chan_peer_host(c));
    /* A secondary serving any pair knows which from the handshake. */
    if (!p->name[0])
        snprintf(p->name, sizeof(p->name), "%s", xlft_chan_pair(c));
    pair_say(p, "channel up: the peer is host %s", p->peer_host);
    if (p->cfg.role == PAIR_PRIMARY) {
        primary_up(p);
        return;
    }
    /* Only a peer that proved the key gets the log buffer. */
    p->fifo = malloc(p->fifo_cap);
    if (!p->fifo) {
        pair_end(p, -ENOMEM, "no memory for a log buffer of %zu bytes",
                 p->fifo_cap);
        return;
    }
    p->st = S_SYNC;
}

static void on_chan_msg(struct xlft_chan *c, const struct xlft_msg *m,
                        void *arg)
{
    struct pair *p = arg;
    bool primary = p->cfg.role == PAIR_PRIMARY;

    (void)c;
    if (p->ended)
        return;
    xlft_hb_heard(&p->hb, pair_now_ns());
    switch (m->type) {
    case XLFT_T_HEARTBEAT:
        return;
    case XLFT_T_SHUTDOWN:
        /* The close that follows is orderly. */
        p->peer_shutdown = true;
        return;
    case XLFT_T_ACK:
        if (primary) {
            primary_on_ack(p, &m->u.ack);
            return;
        }
        break;
    case XLFT_T_STATE:
        if (!primary) {
            secondary_on_state(p, &m->u.state);
            return;
        }
        break;
    case XLFT_T_LOG:
        if (!primary) {
            secondary_on_log(p, &m->u.log);
            return;
        }
        break;
    case XLFT_T_GOLIVE:
        if (!primary && p->st == S_PROTECTED &&
            m->u.golive_seq == p->held) {
            p->golive = true;       /* once the primary closes */
            return;
        }
        break;
    default:
        break;
    }
    pair_end(p, -EPROTO, "unexpected %s frame", xlft_type_name(m->type));
}

static void on_chan_writable(struct xlft_chan *c, void *arg)
{
    struct pair *p = arg;

    (void)c;
    if (p->job->running || p->cfg.role != PAIR_PRIMARY)
        return;                 /* the state is still being made */
    if (p->st == S_SYNC)
        primary_send_state(p);
    else
        primary_pump(p);
}

static void on_chan_down(struct xlft_chan *c, int err, const char *why,
                         void *arg)
{
    struct pair *p = arg;
    char reason[300];

    /* 'why' lives in the channel, freed here. */
    snprintf(reason, sizeof(reason), "%s", why ? why : "");
    p->chan = NULL;
    xlft_chan_free(c);
    if (p->ended)
        return;
    if (!err)
        peer_ended(p);
    else
        pair_peer_lost(p, reason);
}

/* The handshake's question (xlft_accept_fn), for the owner to answer. */
static int accept_peer(void *arg, const char *pair, const char *peer_host,
                       uint8_t *key, char *why, size_t whylen)
{
    struct pair *p = arg;
    int rc;

    if (p->cfg.peer_name && strcmp(peer_host, p->cfg.peer_name)) {
        snprintf(why, whylen, "this host asked for host %s, and the peer "
                 "proved it is another", p->cfg.peer_name);
        return -ECONNREFUSED;
    }
    /* A key given to the pair is its key; else the owner's, by pair. */
    rc = p->cfg.accept ? p->cfg.accept(p->cfg.arg, pair, peer_host,
                                       p->cfg.key ? NULL : key, why,
                                       whylen)
                       : 0;
    if (!rc && key && p->cfg.key)
        memcpy(key, p->cfg.key, XLFT_KEY_SIZE);
    return rc;
}

int pair_start(struct pair **pp, const struct pair_cfg *cfg, char *why,
               size_t whylen)
{
    struct xlft_chan_cfg cc = {
        .base = cfg->base, .fd = cfg->fd, .peer = cfg->peer,
        .in_max = 4u << 20, .out_max = 4u << 20,
        .handshake_ms = cfg->handshake_ms,
        .on_up = on_chan_up, .on_msg = on_chan_msg,
        .on_writable = on_chan_writable, .on_down = on_chan_down,
    };
    struct timeval tv = { 0, TICK_MS * 1000 };
    struct pair *p = calloc(1, sizeof(*p));
    int fd = cfg->fd, rc;

    *pp = NULL;
    if (!p) {
        snprintf(why, whylen, "out of memory");
        rc = -ENOMEM;
        goto out;
    }
    p->cfg = *cfg;
    p->be = cfg->backend;
    p->sync_fd = -1;
    p->gone_fd = -1;
    if (!cfg->key && !cfg->accept) {
        snprintf(why, whylen, "no key for the pair");
        rc = -EINVAL;
        goto out;
    }
    if (cfg->key) {
        memcpy(p->key, cfg->key, XLFT_KEY_SIZE);
        p->cfg.key = p->key;
    }
    snprintf(p->name, sizeof(p->name), "%s", cfg->name ? cfg->name : "");
    snprintf(p->me, sizeof(p->me), "%s", cfg->me);
    snprintf(p->peer, sizeof(p->peer), "%s", cfg->peer);
    if (!p->cfg.buffer_max)
        p->cfg.buffer_max = 64u << 20;
    xlft_lag_init(&p->lag);
    rc = xlft_hb_init(&p->hb, &cfg->hb, pair_now_ns(), why, whylen);
    if (rc)
        goto out;
    /* A secondary serving any pair learns its guest with the copy. */
    if (cfg->name &&
        (rc = xlft_arbiter_open(&p->arb, cfg->arbiter, cfg->name, why,
                                whylen)))
        goto out;
    if (cfg->guest &&
        (rc = p->be->open(&p->vm, cfg->guest, cfg->peer, cfg->backend_flags,
                          why, whylen)))
        goto out;
    if ((rc = claim_setup(p)) || (rc = job_setup(p))) {
        snprintf(why, whylen, "cannot set up the pair's threads: %s",
                 strerror(-rc));
        goto out;
    }
    p->batch = malloc(BATCH > CHUNK ? BATCH : CHUNK);
    p->fifo_cap = p->cfg.buffer_max + XLFT_FRAME_MAX;
    p->tick = event_new(cfg->base, -1, EV_PERSIST, on_tick, p);
    p->drop_ev = event_new(cfg->base, -1, 0, on_drop, p);
    if (!p->batch || !p->tick || !p->drop_ev || event_add(p->tick, &tv)) {
        snprintf(why, whylen, "out of memory");
        rc = -ENOMEM;
        goto out;
    }
    p->be->kind(cfg->backend_flags, &p->counter, &p->cpu);
    if (p->cpu == FT_CPU_UNKNOWN) {
        snprintf(why, whylen, "this host's CPU is neither Intel's nor "
                 "AMD's: no log made here could be replayed");
        rc = -ENODEV;
        goto out;
    }
    cc.session = (struct xlft_session_cfg){
        .key = cfg->key, .initiator = cfg->role == PAIR_PRIMARY,
        .counter = (uint8_t)p->counter, .cpu = (uint8_t)p->cpu,
        .role = cfg->role == PAIR_PRIMARY ? XLFT_ROLE_PRIMARY
                                          : XLFT_ROLE_SECONDARY,
        .enc = cfg->encrypt ? XLFT_ENC_REQUIRED : XLFT_ENC_DISABLED,
        .host = cfg->me, .pair = cfg->name,
        .accept = accept_peer, .arg = p,
    };
    cc.arg = p;
    rc = xlft_chan_new(&p->chan, &cc, why, whylen);
    fd = -1;                    /* the channel's now, or closed */
    if (rc)
        goto out;
    p->started = true;
    *pp = p;
    return 0;
out:
    if (fd >= 0)
        close(fd);
    pair_free(p);
    return rc;
}

bool pair_busy(const struct pair *p)
{
    return (p->job && p->job->running) || (p->claim && p->claim->running);
}

bool pair_closing(const struct pair *p)
{
    return p->ended && p->chan;
}

void pair_free(struct pair *p)
{
    if (!p)
        return;
    /* ftd is stopping (or a pair was never started): see the top. */
    if (p->started && !p->ended)
        pair_end(p, -ESHUTDOWN, "ftd is stopping");
    if (p->job && p->job->running) {
        /* The loop has stopped: job_in will not see it finish. */
        pthread_join(p->job->thread, NULL);
        p->job->running = false;
        job_done_ended(p);
    }
    if (p->claim && p->claim->running) {
        pthread_join(p->claim->thread, NULL);
        p->claim->running = false;
        p->won_late = p->claim->rc == 1;
    }
    pair_finish(p);
    job_free(p);
    claim_free(p);
    if (p->chan)
        xlft_chan_free(p->chan);
    if (p->tick)
        event_free(p->tick);
    if (p->drop_ev)
        event_free(p->drop_ev);
    if (p->up_ev)
        event_free(p->up_ev);
    unwatch_gone(p);
    if (p->sync_fd >= 0)
        close(p->sync_fd);
    p->be->close(p->vm);
    xlft_arbiter_close(p->arb);
    OPENSSL_cleanse(p->key, sizeof(p->key));
    free(p->batch);
    free(p->fifo);
    free(p);
}

void pair_status(const struct pair *p, char *buf, size_t len)
{
    struct pair_stats st;
    int n = snprintf(buf, len, "pair=%s role=%s state=%s gen=%" PRIu64
                     " sent=%" PRIu64 " acked=%" PRIu64 " held=%" PRIu64
                     " lag-us=%" PRIu64, p->name[0] ? p->name : "(incoming)",
                     p->cfg.role == PAIR_PRIMARY ? "primary" : "secondary",
                     state_names[p->st], p->gen, p->sent, p->acked, p->held,
                     xlft_lag_avg_us(&p->lag));

    if (n < 0 || (size_t)n >= len)
        return;
    pair_stats(p, &st);
    pair_stats_text(&st, buf + n, len - (size_t)n);
}

bool pair_authenticated(const struct pair *p)
{
    return (p->ended ? p->end_st : p->st) != S_HANDSHAKE;
}

bool pair_role_primary(const struct pair *p)
{
    return p->cfg.role == PAIR_PRIMARY;
}

const char *pair_name(const struct pair *p)
{
    return p->name;
}

const char *pair_peer_host(const struct pair *p)
{
    return p->peer_host;
}

bool pair_unprotected(const struct pair *p)
{
    return p->st == S_LIVE;
}

bool pair_was_protected(const struct pair *p)
{
    return p->was_protected;
}
