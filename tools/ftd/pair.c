// SPDX-License-Identifier: GPL-2.0-only
/*
 * pair.c - one protected guest on one host (pair.h).
 *
 * Primary: once the channel is up, the guest is paused, saved into a
 * memfd, set recording and resumed; the saved state goes to the
 * secondary first (STATE frames), then the log (LOG frames, as records
 * appear in the ring).  ACKs become ack_seq in the record ring, which
 * lets ftvm's output gate release what the secondary covers.
 *
 * Secondary: the state is gathered into a memfd, restored into the
 * waiting guest, which then replays from its ring; LOG frames are held
 * in a bounded buffer (ACKed once held) and fed into the ring as it
 * frees space.
 *
 * Both: heartbeats; when the peer is lost, the arbiter decides.  The
 * winner goes on alone (the secondary after replaying everything it
 * holds), the loser stops its guest.  A side that cannot reach the
 * arbiter asks again and again, and never goes on meanwhile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "ft_log.h"
#include "backend.h"
#include "pair.h"
#include "xlft_arbiter.h"
#include "xlft_channel.h"
#include "xlft_lag.h"

#define BATCH       (256u << 10)        /* records per LOG frame, bytes */
#define CHUNK       (256u << 10)        /* state per STATE frame */
#define TICK_MS     10
#define RETRY_MS    100                 /* arbiter unreachable: again */
#define GUEST_WAIT_MS 10000             /* a started guest must answer */
#define THROTTLED_PCT 50                /* a primary too far ahead */
#define SYNC_MAGIC  "XFTDSYNC"
/* magic, version, pad, gen, size, the pair's name (NUL-padded) */
#define SYNC_HDR    (32u + SYNC_NAME)
#define SYNC_NAME   72u
#define SYNC_VERSION 2u

enum state {
    S_HANDSHAKE,        /* channel not up yet */
    S_SYNC,             /* the guest's state on its way */
    S_PROTECTED,        /* the log flows */
    S_ARBITRATING,      /* the peer is lost: who goes on? */
    S_GOING_LIVE,       /* secondary: replaying what it holds first */
    S_LIVE,             /* alone: went live, or primary unprotected */
    S_HALTED,           /* lost the arbitration: guest stopped */
    S_ENDED,
};

static const char *const state_names[] = {
    "handshake", "sync", "protected", "arbitrating", "going-live", "live",
    "halted", "ended",
};

struct pair {
    struct pair_cfg cfg;
    char name[XLFT_ARB_NAME_MAX + 1], me[XLFT_ARB_NAME_MAX + 1];
    char peer[128];
    enum state st;
    uint64_t gen;
    struct xlft_chan *chan;
    const struct backend *be;
    struct guest *vm;
    struct ft_ring *ring;       /* the guest's, once it has one */
    bool have_ring;
    struct event *up_ev, *tick;
    struct xlft_hb hb;
    struct xlft_lag lag;
    struct xlft_arbiter *arb;
    uint64_t lost_ns;           /* when the peer was lost */
    uint64_t retry_ns;          /* when to ask the arbiter again */
    bool lag_warned;
    bool ended;                 /* on_end has been called */
    bool golive;                /* secondary: told to take over */
    bool switching;             /* primary: handing the guest over */
    bool disabling;             /* primary: asking to go on alone */
    bool peer_shutdown;         /* the peer said it ends the pair */
    bool header_seen;           /* secondary: the sync header is in */
    char guest_path[300];       /* secondary: the guest started for it */
    uint64_t guest_wait_ns;
    struct claim *claim;
    struct job *job;

    /* Primary. */
    int sync_fd;                /* memfd: sync header and saved state */
    uint64_t sync_off, sync_total;
    uint8_t *batch;             /* a LOG frame's records not sent yet */
    uint32_t batch_len, batch_nrec;
    uint64_t sent;              /* last record sent */
    uint64_t acked;

    /* Secondary. */
    uint8_t *fifo;              /* records held, not yet in the ring */
    size_t fifo_cap, fifo_head, fifo_len;
    uint64_t held;              /* last record held */
    bool paused_in;
};

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void say(struct pair *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(struct pair *p, const char *fmt, ...)
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

static void end(struct pair *p, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void job_join(struct pair *p);

static void end(struct pair *p, int err, const char *fmt, ...)
{
    char why[600];
    va_list ap;

    if (p->ended)
        return;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    say(p, "%s", why);
    p->ended = true;
    if (p->st != S_LIVE && p->st != S_HALTED)
        p->st = S_ENDED;
    if (p->chan) {
        struct xlft_msg m = { .type = XLFT_T_SHUTDOWN };

        /* An orderly end tells the peer so: it then does not take the
         * close for this host's death. */
        m.u.shutdown_seq = p->cfg.role == PAIR_PRIMARY ? p->sent : p->held;
        if (!err)
            xlft_chan_send(p->chan, &m);
        xlft_chan_close(p->chan);
    }
    job_join(p);
    if (p->vm && p->be->status)
        p->be->status(p->vm, err ? "error" : state_names[p->st],
                      err ? why : NULL);
    if (p->tick)
        event_del(p->tick);
    if (p->up_ev)
        event_del(p->up_ev);
    /* The guest is free for its next client (ftvm takes one at a time). */
    p->have_ring = false;
    p->be->close(p->vm);
    p->vm = NULL;
    p->cfg.on_end(p->cfg.arg, err, why);
}

/* A request to the guest; false (and the pair ended) if refused. */
static bool guest(struct pair *p, enum guest_op op, uint32_t arg, int fd)
{
    char why[400];
    int rc = p->be->call(p->vm, op, arg, fd, why, sizeof(why));

    if (!rc)
        return true;
    end(p, rc, "%s", why);
    return false;
}

static int send_msg(struct pair *p, const struct xlft_msg *m)
{
    int rc = xlft_chan_send(p->chan, m);

    if (!rc)
        xlft_hb_sent(&p->hb, now_ns());
    return rc;
}

static void on_up_fd(evutil_socket_t fd, short what, void *arg);

static bool map_ring(struct pair *p, enum guest_op op)
{
    if (!guest(p, op, p->cfg.ring_data, -1))
        return false;
    p->ring = p->be->ring(p->vm);
    p->have_ring = true;
    p->up_ev = event_new(p->cfg.base, p->be->ring_fd(p->vm),
                         EV_READ | EV_PERSIST, on_up_fd, p);
    if (!p->up_ev || event_add(p->up_ev, NULL)) {
        end(p, -ENOMEM, "cannot watch the ring");
        return false;
    }
    return true;
}

/*
 * A copy of the guest (SAVE, RESTORE) takes seconds on Xen: it runs on
 * a thread of its own while the loop keeps the channel and heartbeats
 * going.  Nothing else asks the guest anything meanwhile.
 */
struct job {
    pthread_t thread;
    int efd;                    /* eventfd: the copy is done */
    struct event *ev;
    bool running;
    enum guest_op op;
    int fd, rc;
    char why[400];
    void (*done)(struct pair *p);
};

static void *job_main(void *arg)
{
    struct pair *p = arg;
    struct job *j = p->job;
    uint64_t one = 1;

    j->rc = p->be->call(p->vm, j->op, 0, j->fd, j->why, sizeof(j->why));
    if (write(j->efd, &one, sizeof(one)) < 0)
        j->rc = -EIO;
    return NULL;
}

/* The thread is done with the guest: wait for it. */
static void job_join(struct pair *p)
{
    if (!p->job || !p->job->running)
        return;
    pthread_join(p->job->thread, NULL);
    p->job->running = false;
}

static void job_in(evutil_socket_t fd, short what, void *arg)
{
    struct pair *p = arg;
    struct job *j = p->job;
    uint64_t n;

    (void)what;
    if (read(fd, &n, sizeof(n)) < 0 || !j->running)
        return;
    job_join(p);
    if (p->ended)
        return;
    if (j->rc) {
        end(p, j->rc, "%s", j->why);
        return;
    }
    j->done(p);
}

static void job_start(struct pair *p, enum guest_op op, int fd,
                      void (*done)(struct pair *p))
{
    struct job *j = p->job;

    j->op = op;
    j->fd = fd;
    j->done = done;
    j->running = true;
    if (pthread_create(&j->thread, NULL, job_main, p)) {
        j->running = false;
        end(p, -EAGAIN, "cannot start a thread for the copy");
    }
}

/* ---- primary -------------------------------------------------------- */

static void pump(struct pair *p);
static void hand_over(struct pair *p);
static void peer_lost(struct pair *p, const char *why);

static void send_state(struct pair *p)
{
    while (p->sync_off < p->sync_total) {
        uint8_t *buf = p->batch;        /* free until the log flows */
        uint32_t n = p->sync_total - p->sync_off < CHUNK ?
                     (uint32_t)(p->sync_total - p->sync_off) : CHUNK;
        struct xlft_msg m = { .type = XLFT_T_STATE };
        int rc;

        if (pread(p->sync_fd, buf, n, (off_t)p->sync_off) != (ssize_t)n) {
            end(p, -EIO, "cannot read the saved state back");
            return;
        }
        m.u.state = (struct xlft_state){ .offset = p->sync_off,
                                         .total = p->sync_total,
                                         .len = n, .data = buf };
        rc = send_msg(p, &m);
        if (rc == -EAGAIN)
            return;             /* on_writable resumes */
        if (rc) {
            end(p, rc, "cannot send the state: %s", strerror(-rc));
            return;
        }
        p->sync_off += n;
    }
    close(p->sync_fd);
    p->sync_fd = -1;
    p->st = S_PROTECTED;
    if (p->be->status)
        p->be->status(p->vm, "protected", NULL);
    say(p, "secondary created (%" PRIu64 " bytes of state), protected",
        p->sync_total);
    pump(p);
}

static void primary_saved(struct pair *p);

/* Pause, save, record, resume: the copy and the log start together. */
static void primary_up(struct pair *p)
{
    uint8_t hdr[SYNC_HDR] = SYNC_MAGIC;
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    p->gen = (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
    p->sync_fd = memfd_create("ftd-sync", MFD_CLOEXEC);
    if (p->sync_fd < 0 || write(p->sync_fd, hdr, SYNC_HDR) != SYNC_HDR) {
        end(p, -errno, "cannot keep the state: %s", strerror(errno));
        return;
    }
    if (!guest(p, GUEST_PAUSE, 0, -1))
        return;
    /* Heartbeats go on while the copy is made. */
    p->st = S_SYNC;
    job_start(p, GUEST_SAVE, p->sync_fd, primary_saved);
}

static void primary_saved(struct pair *p)
{
    uint8_t hdr[SYNC_HDR] = SYNC_MAGIC;
    off_t size;

    if (!map_ring(p, GUEST_RECORD) || !guest(p, GUEST_UNPAUSE, 0, -1))
        return;
    size = lseek(p->sync_fd, 0, SEEK_END);
    memcpy(hdr + 8, &(uint32_t){ SYNC_VERSION }, 4);
    memcpy(hdr + 16, &p->gen, 8);
    memcpy(hdr + 24, &(uint64_t){ (uint64_t)size - SYNC_HDR }, 8);
    memcpy(hdr + 32, p->name, strlen(p->name));
    if (size < SYNC_HDR || pwrite(p->sync_fd, hdr, SYNC_HDR, 0) != SYNC_HDR) {
        end(p, -EIO, "cannot keep the state");
        return;
    }
    p->sync_total = (uint64_t)size;
    send_state(p);
}

/* Records from the ring into LOG frames, as long as the channel takes. */
static void pump(struct pair *p)
{
    while (p->st == S_PROTECTED || p->st == S_ARBITRATING) {
        struct xlft_msg m = { .type = XLFT_T_LOG };
        uint64_t now;
        bool notify;
        int n, rc;

        if (!p->batch_len) {
            n = ft_ring_read_records(p->ring, p->batch, BATCH,
                                     &p->batch_nrec, &notify);
            if (n < 0) {
                end(p, -EPROTO, "record ring: %s", ft_strerror(n));
                return;
            }
            if (notify)
                p->be->ring_notify(p->vm);
            if (n == 0) {
                if (ft_ring_wait(p->ring) == FT_EAGAIN)
                    return;     /* ftvm notifies the next record */
                continue;
            }
            p->batch_len = (uint32_t)n;
        }
        if (p->st == S_ARBITRATING)
            return;             /* held: nobody to send it to */
        now = now_ns();
        m.u.log = (struct xlft_log){ .first_seq = p->sent + 1,
                                     .sent_ns = now,
                                     .count = p->batch_nrec,
                                     .len = p->batch_len,
                                     .recs = p->batch };
        rc = send_msg(p, &m);
        if (rc == -EAGAIN)
            return;             /* the guest stalls on its ring meanwhile */
        /* A connection gone is a peer lost: the arbiter says who goes on. */
        if (rc == -ENOTCONN || rc == -EPIPE || rc == -ECONNRESET) {
            peer_lost(p, strerror(-rc));
            return;
        }
        if (rc) {
            end(p, rc, "cannot send the log: %s", strerror(-rc));
            return;
        }
        p->sent += p->batch_nrec;
        p->batch_len = 0;
        xlft_lag_produced(&p->lag, p->sent, now);
    }
}

static void on_ack(struct pair *p, const struct xlft_ack *a)
{
    if (a->acked > p->sent || a->acked < p->acked ||
        a->replayed > a->acked) {
        end(p, -EPROTO, "ACK of record %" PRIu64 " (replayed %" PRIu64
            ") after %" PRIu64 " sent and %" PRIu64 " acknowledged",
            a->acked, a->replayed, p->sent, p->acked);
        return;
    }
    if (a->acked > p->acked) {
        p->acked = a->acked;
        /* ftvm's gate lets out what the secondary now holds. */
        ft_ring_set_ack(p->ring, a->acked);
        p->be->ring_notify(p->vm);
    }
    if (p->switching && !p->batch_len && p->acked == p->sent &&
        ft_ring_avail(p->ring) == 0) {
        hand_over(p);
        return;
    }
    xlft_lag_replayed(&p->lag, a->replayed, now_ns());
    /* Acted on when crossing the limit, not at every ACK. */
    if (xlft_lag_over(&p->lag, p->cfg.lag_limit_us) != p->lag_warned) {
        p->lag_warned = !p->lag_warned;
        /* Slow the primary until the secondary catches up. */
        if (!guest(p, GUEST_THROTTLE, p->lag_warned ? THROTTLED_PCT : 100,
                   -1))
            return;
        say(p, "secondary %" PRIu64 " us behind: %s the limit of %" PRIu64
            " us, guest at %d%% speed", xlft_lag_avg_us(&p->lag),
            p->lag_warned ? "above" : "back under", p->cfg.lag_limit_us,
            p->lag_warned ? THROTTLED_PCT : 100);
    }
}

/* ---- secondary ------------------------------------------------------ */

/* Held records into the replay ring, whole, as far as it has room. */
static void feed(struct pair *p)
{
    while (p->fifo_len && p->have_ring) {
        int space = ft_ring_space(p->ring), n;
        uint32_t nrec, want = p->fifo_len < (size_t)INT32_MAX ?
                              (uint32_t)p->fifo_len : INT32_MAX;

        if (space < 0) {
            end(p, -EPROTO, "replay ring: %s", ft_strerror(space));
            return;
        }
        if (want > (uint32_t)space)
            want = (uint32_t)space;
        n = ft_log_scan(p->fifo + p->fifo_head, want, &nrec);
        if (n < 0) {
            end(p, -EPROTO, "malformed records from the primary: %s",
                ft_strerror(n));
            return;
        }
        if (n == 0) {
            /* Full: the replayer notifies once it has made room. */
            if (ft_ring_stall(p->ring, FT_LOG_REC_MAX) == FT_EFULL)
                break;
            continue;
        }
        ft_ring_write(p->ring, 0, p->fifo + p->fifo_head, (uint32_t)n);
        ft_ring_publish(p->ring, (uint32_t)n, nrec);
        p->fifo_head += (size_t)n;
        p->fifo_len -= (size_t)n;
        if (ft_ring_consumer_waiting(p->ring))
            p->be->ring_notify(p->vm);
    }
    if (!p->fifo_len)
        p->fifo_head = 0;
    if (p->paused_in && p->fifo_len < p->cfg.buffer_max / 2) {
        p->paused_in = false;
        xlft_chan_pause(p->chan, false);
    }
    if (p->st == S_GOING_LIVE && !p->fifo_len) {
        /* All it holds is in the ring: it goes live once replayed. */
        if (!guest(p, GUEST_GOLIVE, 0, -1))
            return;
        p->st = S_LIVE;
        end(p, 0, "live at record %" PRIu64 ", %" PRIu64 " ms after the "
            "primary was lost", p->held, (now_ns() - p->lost_ns) / 1000000);
    }
}

/*
 * The secondary learns which guest it holds a copy of from the sync
 * header: the name must be the one the handshake agreed on (its hash is
 * the pair id), and this host must have that guest to offer.  A guest
 * started for it comes up while the rest of the state streams in.
 */
static int bind_guest(struct pair *p, const char *field)
{
    char name[SYNC_NAME + 1], why[300];
    int rc;

    memcpy(name, field, SYNC_NAME);
    name[SYNC_NAME] = '\0';
    if (!name[0] || strlen(name) > XLFT_ARB_NAME_MAX ||
        XXH3_64bits(name, strlen(name)) != xlft_chan_pair_id(p->chan) ||
        (p->name[0] && strcmp(name, p->name))) {
        end(p, -EPROTO, "the copy is of guest '%.*s', not the pair agreed",
            XLFT_ARB_NAME_MAX, name);
        return -EPROTO;
    }
    memcpy(p->name, name, strlen(name) + 1);     /* checked: it fits */
    if (p->vm)
        return 0;
    rc = p->cfg.resolve(p->cfg.arg, name, p->guest_path,
                        sizeof(p->guest_path), why, sizeof(why));
    if (!rc)
        rc = xlft_arbiter_open(&p->arb, p->cfg.arbiter, name, why,
                               sizeof(why));
    if (rc) {
        end(p, rc, "guest %s: %s", name, why);
        return rc;
    }
    p->guest_wait_ns = now_ns();
    return 0;
}

static void restored(struct pair *p);

/* The whole state is here: into the guest, once it answers. */
static void restore(struct pair *p)
{
    char why[300];

    if (p->job->running)
        return;
    if (!p->vm && p->be->open(&p->vm, p->guest_path[0] ? p->guest_path
                                                       : NULL,
                              p->peer, p->cfg.backend_flags, why,
                              sizeof(why))) {
        if (now_ns() - p->guest_wait_ns < GUEST_WAIT_MS * 1000000ull)
            return;             /* the tick tries again */
        end(p, -ETIMEDOUT, "guest %s did not come up in %u ms: %s",
            p->name, GUEST_WAIT_MS, why);
        return;
    }
    lseek(p->sync_fd, SYNC_HDR, SEEK_SET);
    job_start(p, GUEST_RESTORE, p->sync_fd, restored);
}

static void restored(struct pair *p)
{
    if (!map_ring(p, GUEST_REPLAY) || !guest(p, GUEST_UNPAUSE, 0, -1))
        return;
    close(p->sync_fd);
    p->sync_fd = -1;
    p->st = S_PROTECTED;
    if (p->be->status)
        p->be->status(p->vm, "protected", NULL);
    say(p, "copy of the guest restored (%" PRIu64 " bytes), replaying",
        p->sync_total - SYNC_HDR);
    feed(p);
}

static void on_state(struct pair *p, const struct xlft_state *s)
{
    uint8_t hdr[SYNC_HDR];
    uint64_t size;

    if (p->st != S_SYNC || s->offset != p->sync_off ||
        s->total < SYNC_HDR || s->total > (1ull << 32) ||
        (p->sync_total && s->total != p->sync_total) ||
        s->len > s->total - s->offset) {
        end(p, -EPROTO, "state frame at %" PRIu64 " of %" PRIu64 " out of "
            "order", s->offset, s->total);
        return;
    }
    if (p->sync_fd < 0) {
        p->sync_fd = memfd_create("ftd-sync", MFD_CLOEXEC);
        p->sync_total = s->total;
        if (p->sync_fd < 0) {
            end(p, -errno, "cannot keep the state: %s", strerror(errno));
            return;
        }
    }
    if (pwrite(p->sync_fd, s->data, s->len, (off_t)s->offset) !=
        (ssize_t)s->len) {
        end(p, -EIO, "cannot keep the state: %s", strerror(errno));
        return;
    }
    p->sync_off += s->len;
    if (!p->header_seen && p->sync_off >= SYNC_HDR) {
        if (pread(p->sync_fd, hdr, SYNC_HDR, 0) != SYNC_HDR ||
            memcmp(hdr, SYNC_MAGIC, 8)) {
            end(p, -EPROTO, "the state does not start with a sync header");
            return;
        }
        memcpy(&size, hdr + 24, 8);
        if (memcmp(hdr + 8, &(uint32_t){ SYNC_VERSION }, 4) ||
            size != p->sync_total - SYNC_HDR) {
            end(p, -EPROTO, "sync header of another version or size");
            return;
        }
        memcpy(&p->gen, hdr + 16, 8);
        p->header_seen = true;
        if (bind_guest(p, (const char *)hdr + 32))
            return;
    }
    if (p->sync_off == p->sync_total)
        restore(p);
}

static void on_log(struct pair *p, const struct xlft_log *l)
{
    struct xlft_msg a = { .type = XLFT_T_ACK };
    uint32_t nrec;
    int n, rc;

    if (p->st != S_PROTECTED && p->st != S_ARBITRATING &&
        !(p->st == S_SYNC && p->sync_off == p->sync_total)) {
        end(p, -EPROTO, "log frame before the guest's state");
        return;
    }
    if (l->first_seq != p->held + 1) {
        end(p, -EPROTO, "log frame from record %" PRIu64 ", expected %"
            PRIu64, l->first_seq, p->held + 1);
        return;
    }
    n = ft_log_scan(l->recs, l->len, &nrec);
    if (n != (int)l->len || nrec != l->count) {
        end(p, -EPROTO, "log frame at record %" PRIu64 " does not hold %u "
            "whole records", l->first_seq, l->count);
        return;
    }
    if (p->fifo_head + p->fifo_len + l->len > p->fifo_cap) {
        memmove(p->fifo, p->fifo + p->fifo_head, p->fifo_len);
        p->fifo_head = 0;
    }
    if (p->fifo_len + l->len > p->fifo_cap) {
        end(p, -ENOBUFS, "log buffer overrun");
        return;
    }
    memcpy(p->fifo + p->fifo_head + p->fifo_len, l->recs, l->len);
    p->fifo_len += l->len;
    p->held += l->count;
    /* Held here: the primary may let out what these records cover. */
    a.u.ack = (struct xlft_ack){ .acked = p->held,
                                 .replayed = p->have_ring ?
                                     ft_ring_cons_seq(p->ring) : 0,
                                 .echo_ns = l->sent_ns,
                                 .recv_ns = now_ns() };
    if (a.u.ack.replayed > p->held)
        a.u.ack.replayed = p->held;
    rc = send_msg(p, &a);
    if (rc && rc != -EAGAIN) {
        end(p, rc, "cannot acknowledge: %s", strerror(-rc));
        return;
    }
    if (!p->paused_in && p->fifo_len > p->cfg.buffer_max) {
        p->paused_in = true;
        xlft_chan_pause(p->chan, true);
    }
    feed(p);
}

/* ---- both ----------------------------------------------------------- */

/*
 * Asking the arbiter may take long (an NFS server, an etcd timeout): it
 * runs on a thread of its own, so that the event loop keeps sending
 * heartbeats meanwhile and the peer does not take the wait for a death.
 */
struct claim {
    pthread_t thread;
    int efd;                    /* eventfd: the answer is in */
    struct event *ev;
    bool running;
    int rc;
    char holder[XLFT_ARB_NAME_MAX + 1], err[300];
    void (*done)(struct pair *p, int rc, const char *holder,
                 const char *err);
};

static void *claim_main(void *arg)
{
    struct pair *p = arg;
    struct claim *c = p->claim;
    uint64_t one = 1;

    c->rc = xlft_arbiter_claim(p->arb, p->gen, p->me, c->holder,
                               sizeof(c->holder), c->err, sizeof(c->err));
    if (write(c->efd, &one, sizeof(one)) < 0)
        c->rc = -EIO;
    return NULL;
}

static void claim_in(evutil_socket_t fd, short what, void *arg)
{
    struct pair *p = arg;
    struct claim *c = p->claim;
    uint64_t n;

    (void)what;
    if (read(fd, &n, sizeof(n)) < 0)
        return;
    pthread_join(c->thread, NULL);
    c->running = false;
    c->done(p, c->rc, c->holder, c->err);
}

/* Ask for the pair's generation; 'done' gets the answer in the loop. */
static int claim_start(struct pair *p,
                       void (*done)(struct pair *, int, const char *,
                                    const char *))
{
    struct claim *c = p->claim;

    if (c->running)
        return -EBUSY;
    c->done = done;
    c->running = true;
    if (pthread_create(&c->thread, NULL, claim_main, p)) {
        c->running = false;
        return -EAGAIN;
    }
    return 0;
}

static void arbitrated(struct pair *p, int rc, const char *holder,
                       const char *err)
{
    char why[400];

    if (p->ended || p->st != S_ARBITRATING)
        return;
    if (rc < 0) {
        say(p, "%s; asking again", err);
        return;                 /* the tick asks again */
    }
    if (rc == 0) {
        p->be->call(p->vm, GUEST_STOP, 0, -1, why, sizeof(why));
        p->st = S_HALTED;
        end(p, 0, "halted: %s went on with generation %" PRIu64, holder,
            p->gen);
        return;
    }
    if (p->cfg.role == PAIR_PRIMARY) {
        if (!guest(p, GUEST_DISABLE, 0, -1) ||
            (p->lag_warned && !guest(p, GUEST_THROTTLE, 100, -1)))
            return;
        p->st = S_LIVE;
        end(p, 0, "secondary lost: running unprotected");
    } else {
        p->st = S_GOING_LIVE;
        feed(p);
    }
}

/* The peer is lost: the arbiter says who goes on. */
static void arbitrate(struct pair *p)
{
    if (p->st == S_ARBITRATING)
        claim_start(p, arbitrated);
}

static void peer_lost(struct pair *p, const char *why)
{
    if (p->job->running) {
        end(p, -ECONNRESET, "peer lost while the copy was made: %s", why);
        return;
    }
    if (p->st == S_HANDSHAKE || (p->st == S_SYNC &&
                                 p->cfg.role == PAIR_SECONDARY)) {
        end(p, -ECONNRESET, "peer lost before the copy was made: %s", why);
        return;
    }
    if (p->st != S_SYNC && p->st != S_PROTECTED)
        return;
    p->lost_ns = now_ns();
    say(p, "peer lost (%s): asking the arbiter", why);
    p->st = S_ARBITRATING;
    p->retry_ns = p->lost_ns + RETRY_MS * 1000000ull;
    arbitrate(p);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    struct pair *p = arg;
    uint64_t now = now_ns();

    (void)fd;
    (void)what;
    if (p->st == S_ARBITRATING) {
        if (now >= p->retry_ns) {
            p->retry_ns = now + RETRY_MS * 1000000ull;
            arbitrate(p);
        }
        return;
    }
    if ((p->st != S_SYNC && p->st != S_PROTECTED) || p->peer_shutdown)
        return;
    if (p->st == S_SYNC && p->cfg.role == PAIR_SECONDARY &&
        p->sync_total && p->sync_off == p->sync_total)
        restore(p);
    if (p->ended)
        return;
    if (xlft_hb_peer(&p->hb, now) == XLFT_PEER_LOST) {
        peer_lost(p, "silent for the heartbeat timeout");
        return;
    }
    if (xlft_hb_due(&p->hb, now)) {
        struct xlft_msg m = { .type = XLFT_T_HEARTBEAT };

        m.u.heartbeat.sent_ns = now;
        send_msg(p, &m);        /* a full queue is traffic enough */
    }
}

static void on_up_fd(evutil_socket_t fd, short what, void *arg)
{
    struct pair *p = arg;
    int rc = p->be->ring_drain(p->vm);

    (void)fd;
    (void)what;
    if (rc) {
        end(p, rc, "ring notification: %s", strerror(-rc));
        return;
    }
    if (p->cfg.role == PAIR_PRIMARY) {
        pump(p);
        return;
    }
    if (ft_ring_flags(p->ring) & (FT_RING_F_DIVERGED | FT_RING_F_BADLOG)) {
        char why[300];

        p->be->why_stopped(p->vm, why, sizeof(why));
        end(p, -EIO, "replay failed: %s", why);
        return;
    }
    feed(p);
}

static void on_chan_up(struct xlft_chan *c, void *arg)
{
    struct pair *p = arg;

    (void)c;
    xlft_hb_heard(&p->hb, now_ns());
    say(p, "channel up");
    if (p->cfg.role == PAIR_PRIMARY) {
        primary_up(p);
    } else {
        p->st = S_SYNC;
    }
}

static void on_chan_msg(struct xlft_chan *c, const struct xlft_msg *m,
                        void *arg)
{
    struct pair *p = arg;
    bool primary = p->cfg.role == PAIR_PRIMARY;

    (void)c;
    if (p->ended)
        return;
    xlft_hb_heard(&p->hb, now_ns());
    switch (m->type) {
    case XLFT_T_HEARTBEAT:
        return;
    case XLFT_T_SHUTDOWN:
        /* The close that follows is orderly: silence is no death now. */
        p->peer_shutdown = true;
        return;
    case XLFT_T_ACK:
        if (primary) {
            on_ack(p, &m->u.ack);
            return;
        }
        break;
    case XLFT_T_STATE:
        if (!primary) {
            on_state(p, &m->u.state);
            return;
        }
        break;
    case XLFT_T_LOG:
        if (!primary) {
            on_log(p, &m->u.log);
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
    end(p, -EPROTO, "unexpected %s frame", xlft_type_name(m->type));
}

static void on_chan_writable(struct xlft_chan *c, void *arg)
{
    struct pair *p = arg;

    (void)c;
    if (p->job->running)
        return;                 /* the state is still being made */
    if (p->st == S_SYNC && p->cfg.role == PAIR_PRIMARY)
        send_state(p);
    else
        pump(p);
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
    if (!err && p->golive) {
        /* A switchover: the primary has stopped and sent it all. */
        p->lost_ns = now_ns();
        p->st = S_ARBITRATING;
        arbitrate(p);
        return;
    }
    if (!err) {
        char why[400];

        /* The primary ended the pair in order: this copy is not needed. */
        if (p->cfg.role == PAIR_SECONDARY && p->vm)
            p->be->call(p->vm, GUEST_STOP, 0, -1, why, sizeof(why));
        end(p, 0, "the %s ended the pair", p->cfg.role == PAIR_PRIMARY ?
            "secondary" : "primary");
        return;
    }
    peer_lost(p, reason);
}

int pair_start(struct pair **pp, const struct pair_cfg *cfg, char *why,
               size_t whylen)
{
    struct xlft_chan_cfg cc = {
        .base = cfg->base, .fd = cfg->fd, .peer = cfg->peer,
        .in_max = 4u << 20, .out_max = 4u << 20,
        .on_up = on_chan_up, .on_msg = on_chan_msg,
        .on_writable = on_chan_writable, .on_down = on_chan_down,
    };
    struct timeval tv = { 0, TICK_MS * 1000 };
    struct pair *p = calloc(1, sizeof(*p));
    int rc;

    *pp = NULL;
    if (!p) {
        snprintf(why, whylen, "out of memory");
        close(cfg->fd);
        return -ENOMEM;
    }
    p->cfg = *cfg;
    p->be = cfg->backend ? cfg->backend : &backend_ftvm;
    p->sync_fd = -1;
    snprintf(p->name, sizeof(p->name), "%s", cfg->name ? cfg->name : "");
    snprintf(p->me, sizeof(p->me), "%s", cfg->me);
    snprintf(p->peer, sizeof(p->peer), "%s", cfg->peer);
    if (!p->cfg.buffer_max)
        p->cfg.buffer_max = 64u << 20;
    xlft_lag_init(&p->lag);
    rc = xlft_hb_init(&p->hb, &cfg->hb, now_ns(), why, whylen);
    /* A secondary serving any pair learns its guest with the copy. */
    if (!rc && cfg->name)
        rc = xlft_arbiter_open(&p->arb, cfg->arbiter, cfg->name, why,
                               whylen);
    if (!rc && cfg->guest)
        rc = p->be->open(&p->vm, cfg->guest, cfg->peer, cfg->backend_flags,
                         why, whylen);
    if (rc) {
        close(cfg->fd);
        pair_free(p);
        return rc;
    }
    p->claim = calloc(1, sizeof(*p->claim));
    if (p->claim) {
        p->claim->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        p->claim->ev = p->claim->efd < 0 ? NULL :
                       event_new(cfg->base, p->claim->efd,
                                 EV_READ | EV_PERSIST, claim_in, p);
    }
    p->job = calloc(1, sizeof(*p->job));
    if (p->job) {
        p->job->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        p->job->ev = p->job->efd < 0 ? NULL :
                     event_new(cfg->base, p->job->efd, EV_READ | EV_PERSIST,
                               job_in, p);
    }
    if (!p->claim || !p->claim->ev || event_add(p->claim->ev, NULL) ||
        !p->job || !p->job->ev || event_add(p->job->ev, NULL)) {
        snprintf(why, whylen, "cannot set up the arbiter's thread");
        close(cfg->fd);
        pair_free(p);
        return -ENOMEM;
    }
    p->batch = malloc(BATCH > CHUNK ? BATCH : CHUNK);
    p->fifo_cap = p->cfg.buffer_max + XLFT_FRAME_MAX;
    p->fifo = cfg->role == PAIR_SECONDARY ? malloc(p->fifo_cap) : NULL;
    p->tick = event_new(cfg->base, -1, EV_PERSIST, on_tick, p);
    if (!p->batch || (cfg->role == PAIR_SECONDARY && !p->fifo) ||
        !p->tick || event_add(p->tick, &tv)) {
        snprintf(why, whylen, "out of memory");
        close(cfg->fd);
        pair_free(p);
        return -ENOMEM;
    }
    cc.session = (struct xlft_session_cfg){
        .key = cfg->key, .initiator = cfg->role == PAIR_PRIMARY,
        .role = cfg->role == PAIR_PRIMARY ? XLFT_ROLE_PRIMARY
                                          : XLFT_ROLE_SECONDARY,
        .enc = cfg->encrypt ? XLFT_ENC_REQUIRED : XLFT_ENC_DISABLED,
        .pair_id = cfg->name ? XXH3_64bits(cfg->name, strlen(cfg->name))
                             : XLFT_PAIR_ANY,
    };
    cc.arg = p;
    rc = xlft_chan_new(&p->chan, &cc, why, whylen);
    if (rc) {
        pair_free(p);
        return rc;
    }
    *pp = p;
    return 0;
}

void pair_free(struct pair *p)
{
    if (!p)
        return;
    if (p->claim) {
        /* A claim under way is waited for: the arbiter handle is its. */
        if (p->claim->running)
            pthread_join(p->claim->thread, NULL);
        if (p->claim->ev)
            event_free(p->claim->ev);
        if (p->claim->efd > 0)
            close(p->claim->efd);
        free(p->claim);
    }
    if (p->job) {
        job_join(p);
        if (p->job->ev)
            event_free(p->job->ev);
        if (p->job->efd > 0)
            close(p->job->efd);
        free(p->job);
    }
    if (p->chan)
        xlft_chan_free(p->chan);
    if (p->tick)
        event_free(p->tick);
    if (p->up_ev)
        event_free(p->up_ev);
    if (p->sync_fd >= 0)
        close(p->sync_fd);
    p->be->close(p->vm);
    xlft_arbiter_close(p->arb);
    free(p->batch);
    free(p->fifo);
    free(p);
}

void pair_status(const struct pair *p, char *buf, size_t len)
{
    snprintf(buf, len, "pair=%s role=%s state=%s gen=%" PRIu64
             " sent=%" PRIu64 " acked=%" PRIu64 " held=%" PRIu64
             " lag-us=%" PRIu64, p->name[0] ? p->name : "(incoming)",
             p->cfg.role == PAIR_PRIMARY ? "primary" : "secondary",
             state_names[p->st], p->gen, p->sent, p->acked, p->held,
             xlft_lag_avg_us(&p->lag));
}

/* Everything recorded so far onto the channel, whatever the ring holds. */
static void flush_log(struct pair *p)
{
    pump(p);
    if (p->batch_len || ft_ring_avail(p->ring) > 0)
        say(p, "%u bytes of log could not be queued before the end",
            p->batch_len);
}

static void disable_claimed(struct pair *p, int rc, const char *holder,
                            const char *err)
{
    if (p->ended)
        return;
    p->disabling = false;
    if (rc <= 0) {
        say(p, "not disabled: %s", rc ? err : "the generation is held "
            "by the secondary");
        if (rc == 0)
            say(p, "%s holds generation %" PRIu64, holder, p->gen);
        return;
    }
    /* The log ends here; the guest runs on, unprotected, at speed. */
    if (!guest(p, GUEST_DISABLE, 0, -1) ||
        (p->lag_warned && !guest(p, GUEST_THROTTLE, 100, -1)))
        return;
    flush_log(p);
    end(p, 0, "disabled: the guest runs on unprotected");
}

int pair_disable(struct pair *p, char *why, size_t len)
{
    int rc;

    if (p->cfg.role != PAIR_PRIMARY || p->st != S_PROTECTED ||
        p->disabling || p->switching) {
        snprintf(why, len, "%s is not a protected primary here", p->name);
        return -EINVAL;
    }
    /*
     * Whoever goes on alone holds the generation, even in an orderly
     * end: should the secondary miss the end and think this host dead,
     * the arbiter tells it to stop rather than go live.
     */
    rc = claim_start(p, disable_claimed);
    if (rc) {
        snprintf(why, len, "cannot ask the arbiter: %s", strerror(-rc));
        return rc;
    }
    p->disabling = true;
    return 0;
}

/* Switchover, last step: every record acknowledged, the guest paused. */
static void hand_over(struct pair *p)
{
    struct xlft_msg m = { .type = XLFT_T_GOLIVE };
    char why[400];
    int rc;

    /* The log ends with the guest's final state; it stops here. */
    rc = p->be->call(p->vm, GUEST_STOP, 0, -1, why, sizeof(why));
    if (rc) {
        end(p, rc, "switchover: %s", why);
        return;
    }
    pump(p);
    if (p->batch_len) {
        end(p, -EAGAIN, "switchover: the last records did not fit the "
            "channel; the secondary keeps replaying");
        return;
    }
    m.u.golive_seq = p->sent;
    rc = send_msg(p, &m);
    if (rc) {
        end(p, rc, "switchover: cannot tell the secondary: %s",
            strerror(-rc));
        return;
    }
    end(p, 0, "switched over at record %" PRIu64 ": the secondary goes on",
        p->sent);
}

int pair_failover(struct pair *p, char *why, size_t len)
{
    int rc;

    if (p->cfg.role != PAIR_PRIMARY || p->st != S_PROTECTED) {
        snprintf(why, len, "%s is not a protected primary here", p->name);
        return -EINVAL;
    }
    /* No more records nor outputs; hand over once all is acknowledged. */
    rc = p->be->call(p->vm, GUEST_PAUSE, 0, -1, why, len);
    if (rc)
        return rc;
    p->switching = true;
    pump(p);
    if (!p->batch_len && ft_ring_avail(p->ring) == 0 &&
        p->acked == p->sent)
        hand_over(p);
    return 0;
}

const char *pair_name(const struct pair *p)
{
    return p->name;
}

bool pair_unprotected(const struct pair *p)
{
    return p->cfg.role == PAIR_PRIMARY && p->st == S_LIVE;
}

