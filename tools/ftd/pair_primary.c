// SPDX-License-Identifier: GPL-2.0-only
/*
 * pair_primary.c - the primary's side of a pair.
 *
 * Once the channel is up, the guest is paused, saved into a memfd, set
 * recording and resumed; the saved state goes to the secondary first
 * (STATE frames), then the log (LOG frames, as records appear in the
 * ring).  ACKs become ack_seq in the record ring, which lets the guest's
 * output gate release what the secondary covers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ft_log.h"
#include "pair_impl.h"
#include "xlft_trace.h"

#define THROTTLED_PCT 50                /* a primary too far ahead */
#define SAVE_TRIES    50
#define SAVE_AGAIN_MS 20
/*
 * A running guest records more often than this (a recording logs its
 * state hash every 250 ms, CONTROL.md): a ring quiet longer may belong
 * to a guest that has stopped by itself.
 */
#define QUIET_MS      500
#define UNSIGNALLED_MS 50

static void hand_over(struct pair *p);

void primary_send_state(struct pair *p)
{
    while (p->sync_off < p->sync_total) {
        uint8_t *buf = p->batch;        /* free until the log flows */
        uint32_t n = p->sync_total - p->sync_off < CHUNK ?
                     (uint32_t)(p->sync_total - p->sync_off) : CHUNK;
        struct xlft_msg m = { .type = XLFT_T_STATE };
        int rc;

        if (pread(p->sync_fd, buf, n, (off_t)p->sync_off) != (ssize_t)n) {
            pair_end(p, -EIO, "cannot read the saved state back");
            return;
        }
        m.u.state = (struct xlft_state){ .offset = p->sync_off,
                                         .total = p->sync_total,
                                         .len = n, .data = buf };
        rc = pair_send(p, &m);
        if (rc == -EAGAIN)
            return;             /* on_writable resumes */
        if (rc) {
            pair_end(p, rc, "cannot send the state: %s", strerror(-rc));
            return;
        }
        p->sync_off += n;
    }
    close(p->sync_fd);
    p->sync_fd = -1;
    p->st = S_PROTECTED;
    p->was_protected = true;
    p->rec_ns = pair_now_ns();
    if (p->be->status)
        p->be->status(p->vm, "protected", NULL);
    pair_say(p, "secondary created (%" PRIu64 " bytes of state), protected",
             p->sync_total);
    primary_pump(p);
}

/* Saved, recording, resumed: the copy and its log start together. */
static void primary_resumed(struct pair *p)
{
    uint8_t hdr[SYNC_HDR];
    struct sync_hdr h = { .gen = p->gen };
    off_t size;

    p->paused_here = false;
    size = lseek(p->sync_fd, 0, SEEK_END);
    h.size = (uint64_t)size - SYNC_HDR;
    snprintf(h.name, sizeof(h.name), "%s", p->name);
    sync_hdr_put(hdr, &h);
    if (size < SYNC_HDR || pwrite(p->sync_fd, hdr, SYNC_HDR, 0) != SYNC_HDR) {
        pair_end(p, -EIO, "cannot keep the state");
        return;
    }
    p->sync_total = (uint64_t)size;
    primary_send_state(p);
}

static void primary_recording(struct pair *p)
{
    if (pair_watch_ring(p))
        job_start(p, GUEST_UNPAUSE, 0, -1, primary_resumed, NULL);
}

static void primary_saved(struct pair *p)
{
    job_start(p, GUEST_RECORD, p->cfg.ring_data, -1, primary_recording,
              NULL);
}

/* Pause, save, record, resume: the copy and the log start together. */
void primary_up(struct pair *p)
{
    uint8_t hdr[SYNC_HDR] = SYNC_MAGIC;
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    p->gen = (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
    p->sync_fd = memfd_create("ftd-sync", MFD_CLOEXEC);
    if (p->sync_fd < 0 || write(p->sync_fd, hdr, SYNC_HDR) != SYNC_HDR) {
        pair_end(p, -EIO, "cannot keep the state: %s", strerror(errno));
        return;
    }
    p->st = S_SYNC;
    primary_save_again(p);
}

static void save_resumed(struct pair *p)
{
    p->paused_here = false;
    p->save_again_ns = pair_now_ns() + SAVE_AGAIN_MS * 1000000ull;
}

/*
 * A guest may refuse to be saved for a moment (-EBUSY: disk
 * completions not yet in guest memory, say): it runs on a little and
 * is asked again, 50 times at most, 20 ms apart.
 */
static bool save_busy(struct pair *p, int rc, const char *why)
{
    if (rc != -EBUSY || ++p->save_tries >= SAVE_TRIES)
        return false;
    if (ftruncate(p->sync_fd, SYNC_HDR) ||
        lseek(p->sync_fd, SYNC_HDR, SEEK_SET) != SYNC_HDR) {
        pair_end(p, -EIO, "cannot keep the state: %s", strerror(errno));
        return true;
    }
    if (p->save_tries == 1)
        pair_say(p, "%s: asking again", why);
    job_start(p, GUEST_UNPAUSE, 0, -1, save_resumed, NULL);
    return true;
}

static void primary_paused(struct pair *p)
{
    /* Heartbeats go on while the copy is made. */
    job_start(p, GUEST_SAVE, 0, p->sync_fd, primary_saved, save_busy);
}

void primary_save_again(struct pair *p)
{
    p->save_again_ns = 0;
    /* Before it is asked: a pair that ends meanwhile resumes it. */
    p->paused_here = true;
    job_start(p, GUEST_PAUSE, 0, -1, primary_paused, NULL);
}

/* Records from the ring into LOG frames, as long as the channel takes. */
void primary_pump(struct pair *p)
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
                pair_end(p, -EPROTO, "record ring: %s", ft_strerror(n));
                return;
            }
            if (notify)
                p->be->ring_notify(p->vm);
            if (n == 0) {
                if (ft_ring_wait(p->ring) == FT_EAGAIN)
                    return;     /* the guest notifies the next record */
                continue;
            }
            p->batch_len = (uint32_t)n;
            p->rec_ns = pair_now_ns();
            xlft_trace(XLFT_HOP_SEEN, p->sent + p->batch_nrec);
        }
        if (p->st == S_ARBITRATING || !p->chan)
            return;             /* held: nobody to send it to */
        now = pair_now_ns();
        m.u.log = (struct xlft_log){ .first_seq = p->sent + 1,
                                     .sent_ns = now,
                                     .count = p->batch_nrec,
                                     .len = p->batch_len,
                                     .recs = p->batch };
        rc = pair_send(p, &m);
        if (rc == -EAGAIN)
            return;             /* the guest stalls on its ring meanwhile */
        /* A connection gone is a peer lost: the arbiter says who goes on. */
        if (rc == -ENOTCONN || rc == -EPIPE || rc == -ECONNRESET) {
            pair_peer_lost(p, strerror(-rc));
            return;
        }
        if (rc) {
            pair_end(p, rc, "cannot send the log: %s", strerror(-rc));
            return;
        }
        p->sent += p->batch_nrec;
        xlft_trace(XLFT_HOP_SENT, p->sent);
        pair_meter_log(&p->meter, p->batch, p->batch_len, p->sent);
        p->batch_len = 0;
        xlft_lag_produced(&p->lag, p->sent, now);
    }
}

void primary_on_ack(struct pair *p, const struct xlft_ack *a)
{
    if (a->acked > p->sent || a->acked < p->acked ||
        a->replayed > a->acked) {
        pair_end(p, -EPROTO, "ACK of record %" PRIu64 " (replayed %" PRIu64
                 ") after %" PRIu64 " sent and %" PRIu64 " acknowledged",
                 a->acked, a->replayed, p->sent, p->acked);
        return;
    }
    if (a->acked > p->acked) {
        p->acked = a->acked;
        pair_meter_acked(&p->meter, a->acked);
        /* The guest's gate lets out what the secondary now holds. */
        ft_ring_set_ack(p->ring, a->acked);
        p->be->ring_notify(p->vm);
        xlft_trace(XLFT_HOP_ACKED, a->acked);
    }
    if (p->switching && !p->batch_len && p->acked == p->sent &&
        ft_ring_unread(p->ring) == 0) {
        hand_over(p);
        return;
    }
    pair_meter_ack(&p->meter, a->echo_ns, pair_now_ns());
    if (a->replayed)
        p->peer_replays = true;
    xlft_lag_replayed(&p->lag, a->replayed, pair_now_ns());
    /* Acted on when crossing the limit, not at every ACK. */
    if (xlft_lag_over(&p->lag, p->cfg.lag_limit_us) != p->lag_warned) {
        p->lag_warned = !p->lag_warned;
        /* Slow the primary until the secondary catches up. */
        if (!pair_throttle(p, p->lag_warned ? THROTTLED_PCT : 100))
            return;
        pair_say(p, "secondary %" PRIu64 " us behind: %s the limit of %"
                 PRIu64 " us, guest at %d%% speed",
                 xlft_lag_avg_us(&p->lag),
                 p->lag_warned ? "above" : "back under",
                 p->cfg.lag_limit_us, p->lag_warned ? THROTTLED_PCT : 100);
    }
}

/* Everything recorded so far onto the channel, whatever the ring holds. */
static void flush_log(struct pair *p)
{
    primary_pump(p);
    if (p->batch_len || ft_ring_unread(p->ring) > 0)
        pair_say(p, "%u bytes of log could not be queued before the end",
                 p->batch_len);
}

/* The secondary goes live on the generation: this copy must not go on. */
static void claim_lost(struct pair *p, const char *holder,
                       const char *instead)
{
    pair_settle(p, GUEST_HALT);
    p->st = S_HALTED;
    pair_end(p, 0, "halted: %s holds generation %" PRIu64 " (%s); held "
             "outputs dropped", holder, p->gen, instead);
}

static void disable_claimed(struct pair *p, int rc, const char *holder,
                            const char *err)
{
    if (p->ended)
        return;
    p->disabling = false;
    if (rc < 0) {
        pair_say(p, "not disabled: %s", err);
        return;
    }
    if (rc == 0) {
        claim_lost(p, holder, "not disabled");
        return;
    }
    /* The log ends here; the guest runs on, unprotected, at speed. */
    if (pair_settle(p, GUEST_DISABLE)) {
        pair_end(p, -EIO, "disable: the guest refused to end its log");
        return;
    }
    if (p->lag_warned)
        pair_throttle(p, 100);
    flush_log(p);
    pair_end(p, 0, "disabled: the guest runs on unprotected");
}

static void end_claimed(struct pair *p, int rc, const char *holder,
                        const char *err)
{
    if (p->ended)
        return;
    p->disabling = false;
    if (rc < 0) {
        pair_say(p, "%s; asking again", err);
        return;                 /* primary_watch_end does */
    }
    if (rc == 0) {
        claim_lost(p, holder, "not ended in order");
        return;
    }
    if (pair_settle(p, GUEST_STOP)) {
        pair_end(p, -EIO, "%s, and did not stop when asked", p->guest_end);
        return;
    }
    pair_end(p, 0, "%s; the pair ended with it at record %" PRIu64,
             p->guest_end, p->sent);
}

/*
 * The guest signals the records the pump waits for (ABI.md, "Empty"):
 * records that lie in the ring a while with the pump idle were not
 * signalled, or their signal was not seen.  They are taken on the tick,
 * and that is said once: a lost signal costs latency, not the pair.
 */
void primary_check_ring(struct pair *p, uint64_t now)
{
    if (p->batch_len || ft_ring_unread(p->ring) <= 0) {
        p->unsignalled_ns = 0;
        return;
    }
    if (!p->unsignalled_ns) {
        p->unsignalled_ns = now;
        return;
    }
    if (now - p->unsignalled_ns < UNSIGNALLED_MS * 1000000ull)
        return;
    if (!p->said_unsignalled)
        pair_say(p, "records lay in the ring %u ms with no signal seen "
                 "from the guest: taken on the tick", UNSIGNALLED_MS);
    p->said_unsignalled = true;
    p->unsignalled_ns = 0;
    primary_pump(p);
}

/*
 * A guest that stops by itself (powers off, halts for good) ends its log
 * in order and records nothing more: once its ring has been quiet a
 * while, the backend is asked.  The pair then ends as the guest did,
 * once the secondary holds the whole log, so that the guest's last
 * outputs have left: as for a disable, the generation is claimed first,
 * and the secondary, told by SHUTDOWN (or losing the claim if that
 * never reaches it), stops its copy rather than going live into a guest
 * that is off.  The guest is stopped: it is gone.  A guest whose
 * platform has gone under it (ftvm killed) ends nothing in order: the
 * pair ends as if this host had gone, and the secondary takes over.
 */
void primary_watch_end(struct pair *p, uint64_t now)
{
    int rc;

    /* Its last records may have come without a signal. */
    if (p->guest_gone)
        primary_pump(p);
    if (p->switching || p->disabling || p->batch_len ||
        ft_ring_unread(p->ring) > 0)
        return;
    if (p->guest_gone) {
        pair_end(p, -EPIPE, "the guest is gone (%s): the secondary takes "
                 "over with the log up to record %" PRIu64, p->guest_end,
                 p->sent);
        return;
    }
    if (!p->be->ended)
        return;
    if (!p->guest_ended) {
        if (now - p->rec_ns < QUIET_MS * 1000000ull || now < p->end_ask_ns)
            return;
        /* A paused guest's platform may answer late: a later tick sees. */
        rc = p->be->ended(p->vm, p->guest_end, sizeof(p->guest_end));
        if (rc == -EAGAIN)
            return;
        p->end_ask_ns = now + QUIET_MS * 1000000ull;
        if (rc < 0) {
            /* As if its connection had closed; the ring is drained. */
            p->guest_gone = true;
            primary_watch_end(p, now);
            return;
        }
        if (rc == 0)
            return;
        p->guest_ended = true;
        p->end_ask_ns = 0;
        pair_say(p, "%s: the pair ends once the secondary holds all of "
                 "its log", p->guest_end);
    }
    /* Asked again after a failed claim, as often as the guest was. */
    if (p->acked != p->sent || now < p->end_ask_ns)
        return;
    p->end_ask_ns = now + QUIET_MS * 1000000ull;
    rc = claim_start(p, end_claimed);
    if (rc) {
        pair_say(p, "cannot ask the arbiter: %s; asking again",
                 strerror(-rc));
        return;
    }
    p->disabling = true;
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
    int rc;

    /* The log ends with the guest's final state; it stops here. */
    rc = pair_settle(p, GUEST_STOP);
    if (rc) {
        pair_end(p, rc, "switchover: the guest did not stop");
        return;
    }
    primary_pump(p);
    if (p->batch_len) {
        pair_end(p, -EAGAIN, "switchover: the last records did not fit the "
                 "channel; the secondary keeps replaying");
        return;
    }
    m.u.golive_seq = p->sent;
    rc = pair_send(p, &m);
    if (rc) {
        pair_end(p, rc, "switchover: cannot tell the secondary: %s",
                 strerror(-rc));
        return;
    }
    pair_end(p, 0, "switched over at record %" PRIu64 ": the secondary "
             "goes on", p->sent);
}

int pair_failover(struct pair *p, char *why, size_t len)
{
    int rc;

    if (p->cfg.role != PAIR_PRIMARY || p->st != S_PROTECTED ||
        p->disabling || p->switching) {
        snprintf(why, len, "%s is not a protected primary here", p->name);
        return -EINVAL;
    }
    if (!p->peer_replays) {
        snprintf(why, len, "%s: the secondary is still restoring its copy; "
                 "try again in a moment", p->name);
        return -EAGAIN;
    }
    /* No more records nor outputs; hand over once all is acknowledged. */
    rc = p->be->call(p->vm, GUEST_PAUSE, 0, -1, why, len);
    if (rc)
        return rc;
    p->switching = true;
    primary_pump(p);
    if (!p->batch_len && ft_ring_unread(p->ring) == 0 &&
        p->acked == p->sent)
        hand_over(p);
    return 0;
}
