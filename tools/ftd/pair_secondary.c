// SPDX-License-Identifier: GPL-2.0-only
/*
 * pair_secondary.c - the secondary's side of a pair.
 *
 * The state is gathered into a memfd and restored into the waiting
 * guest, which then replays from its ring; LOG frames are held in a
 * bounded buffer (ACKed once held) and fed into the ring as it frees
 * space.  A full buffer stops the channel's input; the primary then
 * stalls, and silence is not taken for its death meanwhile (pair.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ft_log.h"
#include "pair_impl.h"
#include "xlft_trace.h"

#define GUEST_WAIT_MS 10000             /* a started guest must answer */

static void take_input(struct pair *p, bool on)
{
    if (p->paused_in != on)
        return;
    p->paused_in = !on;
    if (p->chan)
        xlft_chan_pause(p->chan, !on);
    if (on)
        xlft_hb_heard(&p->hb, pair_now_ns());   /* listening again */
}

static void went_live(struct pair *p)
{
    p->st = S_LIVE;
    pair_end(p, 0, "live at record %" PRIu64 ", %" PRIu64 " ms after the "
             "primary was lost", p->held,
             (pair_now_ns() - p->lost_ns) / 1000000);
}

static void golive_taken(struct pair *p)
{
    p->settled = true;          /* its fate: live, once replayed */
    p->golive_sent = true;
    if (p->be->went_live)
        pair_say(p, "going live once the copy has replayed the log up to "
                 "record %" PRIu64, p->held);
    else
        went_live(p);
}

/* Held records into the replay ring, whole, as far as it has room. */
void secondary_feed(struct pair *p)
{
    while (p->fifo_len && p->have_ring) {
        int space = ft_ring_space(p->ring), n;
        uint32_t nrec, want = p->fifo_len < (size_t)INT32_MAX ?
                              (uint32_t)p->fifo_len : INT32_MAX;

        if (space < 0) {
            pair_end(p, -EPROTO, "replay ring: %s", ft_strerror(space));
            return;
        }
        if (want > (uint32_t)space)
            want = (uint32_t)space;
        n = ft_log_scan(p->fifo + p->fifo_head, want, &nrec);
        if (n < 0) {
            pair_end(p, -EPROTO, "malformed records from the primary: %s",
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
    if (p->fifo_len < p->cfg.buffer_max / 2)
        take_input(p, true);
    /* All it holds is in the ring: it goes live once replayed. */
    if (p->st == S_GOING_LIVE && !p->fifo_len && !p->golive_sent &&
        !p->job->running)
        job_start(p, GUEST_GOLIVE, 0, -1, golive_taken, NULL);
}

/*
 * GOLIVE accepted: the copy replays what it holds, then runs as the
 * guest, and only then is it live: until then the status says going-live,
 * and a replay that fails on the way leaves no guest (on_up_fd).
 */
void secondary_watch_live(struct pair *p)
{
    char why[300];
    int rc = p->be->went_live(p->vm, why, sizeof(why));

    if (rc == -EAGAIN || rc == 0)
        return;
    if (rc < 0)
        pair_end(p, rc, "the copy did not go live: %s", why);
    else
        went_live(p);
}

/*
 * The secondary learns which guest it holds a copy of from the sync
 * header: the name must be the one the handshake agreed on, and this
 * host must have that guest to offer.  A guest
 * started for it comes up while the rest of the state streams in.
 */
static int bind_guest(struct pair *p, const char *name)
{
    char why[300];
    int rc;

    if (strcmp(name, xlft_chan_pair(p->chan)) ||
        (p->name[0] && strcmp(name, p->name))) {
        pair_end(p, -EPROTO, "the copy is of guest '%.*s', not the pair "
                 "agreed", XLFT_ARB_NAME_MAX, name);
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
        pair_end(p, rc, "guest %s: %s", name, why);
        return rc;
    }
    p->guest_wait_ns = pair_now_ns();
    return 0;
}

static void replaying(struct pair *p)
{
    close(p->sync_fd);
    p->sync_fd = -1;
    p->st = S_PROTECTED;
    p->was_protected = true;
    if (p->be->status)
        p->be->status(p->vm, "protected", NULL);
    pair_say(p, "copy of the guest restored (%" PRIu64 " bytes), replaying",
             p->sync_total - SYNC_HDR);
    /* What the ring said while the UNPAUSE was out, looked at now. */
    event_active(p->up_ev, EV_READ, 1);
}

static void replay_ready(struct pair *p)
{
    if (pair_watch_ring(p))
        job_start(p, GUEST_UNPAUSE, 0, -1, replaying, NULL);
}

static void restored(struct pair *p)
{
    job_start(p, GUEST_REPLAY, p->cfg.ring_data, -1, replay_ready, NULL);
}

/* The whole state is here: into the guest, once it answers. */
void secondary_restore(struct pair *p)
{
    char why[300];

    if (p->job->running)
        return;
    if (!p->vm && p->be->open(&p->vm, p->guest_path, p->peer,
                              p->cfg.backend_flags | BACKEND_F_COPY, why,
                              sizeof(why))) {
        if (pair_now_ns() - p->guest_wait_ns < GUEST_WAIT_MS * 1000000ull)
            return;             /* the tick tries again */
        pair_end(p, -ETIMEDOUT, "guest %s did not come up in %u ms: %s",
                 p->name, GUEST_WAIT_MS, why);
        return;
    }
    lseek(p->sync_fd, SYNC_HDR, SEEK_SET);
    job_start(p, GUEST_RESTORE, 0, p->sync_fd, restored, NULL);
}

void secondary_on_state(struct pair *p, const struct xlft_state *s)
{
    uint8_t hdr[SYNC_HDR];
    struct sync_hdr h;
    char why[200];

    if (p->st != S_SYNC || s->offset != p->sync_off ||
        s->total < SYNC_HDR || s->total > (1ull << 32) ||
        (p->sync_total && s->total != p->sync_total) ||
        s->len > s->total - s->offset) {
        pair_end(p, -EPROTO, "state frame at %" PRIu64 " of %" PRIu64
                 " out of order", s->offset, s->total);
        return;
    }
    if (p->sync_fd < 0) {
        p->sync_fd = memfd_create("ftd-sync", MFD_CLOEXEC);
        p->sync_total = s->total;
        if (p->sync_fd < 0) {
            pair_end(p, -errno, "cannot keep the state: %s",
                     strerror(errno));
            return;
        }
    }
    if (pwrite(p->sync_fd, s->data, s->len, (off_t)s->offset) !=
        (ssize_t)s->len) {
        pair_end(p, -EIO, "cannot keep the state: %s", strerror(errno));
        return;
    }
    p->sync_off += s->len;
    if (!p->header_seen && p->sync_off >= SYNC_HDR) {
        if (pread(p->sync_fd, hdr, SYNC_HDR, 0) != SYNC_HDR) {
            pair_end(p, -EIO, "cannot read the state back: %s",
                     strerror(errno));
            return;
        }
        if (sync_hdr_get(hdr, p->sync_total, &h, why, sizeof(why))) {
            pair_end(p, -EPROTO, "%s", why);
            return;
        }
        p->gen = h.gen;
        p->header_seen = true;
        if (bind_guest(p, h.name))
            return;
    }
    if (p->sync_off == p->sync_total)
        secondary_restore(p);
}

void secondary_on_log(struct pair *p, const struct xlft_log *l)
{
    struct xlft_msg a = { .type = XLFT_T_ACK };
    uint32_t nrec;
    int n, rc;

    if (p->st != S_PROTECTED &&
        !(p->st == S_SYNC && p->sync_off == p->sync_total)) {
        pair_end(p, -EPROTO, "log frame before the guest's state");
        return;
    }
    if (l->first_seq != p->held + 1) {
        pair_end(p, -EPROTO, "log frame from record %" PRIu64 ", expected %"
                 PRIu64, l->first_seq, p->held + 1);
        return;
    }
    n = ft_log_scan(l->recs, l->len, &nrec);
    if (n != (int)l->len || nrec != l->count) {
        pair_end(p, -EPROTO, "log frame at record %" PRIu64 " does not "
                 "hold %u whole records", l->first_seq, l->count);
        return;
    }
    if (p->fifo_head + p->fifo_len + l->len > p->fifo_cap) {
        memmove(p->fifo, p->fifo + p->fifo_head, p->fifo_len);
        p->fifo_head = 0;
    }
    if (p->fifo_len + l->len > p->fifo_cap) {
        pair_end(p, -ENOBUFS, "log buffer overrun");
        return;
    }
    memcpy(p->fifo + p->fifo_head + p->fifo_len, l->recs, l->len);
    pair_meter_log(&p->meter, l->recs, l->len, 0);
    p->fifo_len += l->len;
    p->held += l->count;
    /* Held here: the primary may let out what these records cover. */
    a.u.ack = (struct xlft_ack){ .acked = p->held,
                                 .replayed = p->have_ring ?
                                     ft_ring_cons_seq(p->ring) : 0,
                                 .echo_ns = l->sent_ns,
                                 .recv_ns = pair_now_ns() };
    if (a.u.ack.replayed > p->held)
        a.u.ack.replayed = p->held;
    xlft_trace(XLFT_HOP_RECV, p->held);
    rc = pair_send(p, &a);
    if (rc && rc != -EAGAIN) {
        pair_end(p, rc, "cannot acknowledge: %s", strerror(-rc));
        return;
    }
    xlft_trace(XLFT_HOP_ACK_SENT, p->held);
    if (p->fifo_len > p->cfg.buffer_max)
        take_input(p, false);
    secondary_feed(p);
}
