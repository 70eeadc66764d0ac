// SPDX-License-Identifier: GPL-2.0-only
/*
 * hold.c - the output rule in ftdm (hold.h).
 *
 * One gate for the process's whole life, so that outputs leave in the
 * order they were made across logs.  Each log's sequence numbers start
 * anew; the gate's tags are 'base' plus them, 'base' past every tag of
 * the logs before.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hold.h"
#include "xlft_ack_wake.h"
#include "xlft_xen.h"

/*
 * Enough for every disk request a full queue can make (256 of at most
 * 1 MiB: they are never dropped, the guest waits on them) beside the
 * frames the caller lets wait (it drops beyond its own bound).
 */
#define HOLD_BYTES      ((size_t)256 * ((1u << 20) + 64) + (4u << 20))
#define HOLD_OUTPUTS    8192u
/* How often the ring is looked at while outputs wait. */
#define POLL_MS         20
/* A tag no acknowledgement reaches: held for good. */
#define NEVER           UINT64_MAX

struct ftdm_hold {
    uint32_t domid;
    struct xlft_xen *xen;
    struct xlft_gate *gate;
    xlft_gate_emit_fn emit;
    void *opaque;
    bool have_ring;             /* a log is being held against */
    bool ending;                /* letting out what an ended log held */
    bool ended;                 /* ftd ended a log; Xen may still record */
    struct xlft_xen_ring ring;
    uint64_t log_id;            /* Xen's id of the log held against */
    uint64_t base;              /* added to this log's numbers */
    uint64_t last_tag;          /* the gate's last tag */
    const char *stuck;          /* why nothing may go again, or NULL */
    const char *wake_dir;
    int wake;                   /* ftd's wake-ups; -1: none */
    struct event *wake_ev, *poll_ev;
    struct ftdm_hold_stats st;
    char said[256];             /* the last failure said, once */
};

static int counted_emit(void *opaque, uint32_t kind, uint64_t id,
                        const void *data, size_t len)
{
    struct ftdm_hold *h = opaque;
    int rc = h->emit(h->opaque, kind, id, data, len);

    if (!rc && (h->have_ring || h->ending))
        h->st.released++;
    else if (!rc)
        h->st.passed++;
    return rc;
}

static void unmap(struct ftdm_hold *h)
{
    if (h->have_ring)
        xlft_xen_ring_unmap(h->xen, &h->ring);
    h->have_ring = false;
}

/* What is held, and what comes, may never leave: said once. */
static void get_stuck(struct ftdm_hold *h, const char *why)
{
    if (h->stuck)
        return;
    h->stuck = why;
    fprintf(stderr, "ftdm: domain %u: %s: its %zu held outputs, and all "
            "that follow, never leave\n", h->domid, why,
            xlft_gate_held(h->gate));
}

/* ftd ended the log in order: what it held goes. */
static void end_log(struct ftdm_hold *h)
{
    unmap(h);
    h->ended = true;
    h->ending = true;
    xlft_gate_open(h->gate);
    h->ending = false;
}

/* Tries at mapping the ring of the log Xen records, should it change. */
#define MAP_TRIES       3

/*
 * A new log to hold against: its ring, and tags past the last ones.  The
 * ring mapped is the one Xen has then, so the log is asked after again
 * (into 'st'): one that replaced the log in between would be taken for
 * another.  1 if recording ended meanwhile: nothing mapped.
 */
static int start_log(struct ftdm_hold *h, struct xlft_xen_ft_status *st,
                     char *err, size_t errlen)
{
    uint64_t id;
    int rc = -EAGAIN;

    for (unsigned int i = 0; i < MAP_TRIES && rc == -EAGAIN; i++) {
        id = st->log_id;
        rc = xlft_xen_ring_map(h->xen, h->domid, st, FT_RING_RECORD,
                               &h->ring, err, errlen);
        if (rc)
            return rc;
        rc = xlft_xen_ft_status(h->xen, h->domid, st, err, errlen);
        if (!rc && (st->state != XLFT_XEN_FT_RECORD || st->log_id != id))
            rc = st->state == XLFT_XEN_FT_RECORD ? -EAGAIN : 1;
        if (rc)
            xlft_xen_ring_unmap(h->xen, &h->ring);
    }
    if (rc == -EAGAIN)
        snprintf(err, errlen, "domain %u: its log changed %u times while "
                 "ftdm mapped its ring; looked at again later", h->domid,
                 MAP_TRIES);
    if (rc)
        return rc;
    h->have_ring = true;
    h->log_id = id;
    h->base = h->last_tag + 1;
    xlft_gate_close(h->gate);
    return 0;
}

/*
 * Follow Xen and ftd: whether the guest is recorded now, whether the
 * log held against has ended in order (ftd acknowledged all of it,
 * ack_seq ~0, before it stopped recording: its secondary halts, or this
 * copy won the claim), how far it is acknowledged.  Emit errors are not
 * failures here: those outputs stay held, tried again later.
 */
static int follow(struct ftdm_hold *h, struct xlft_xen_ft_status *st,
                  char *err, size_t errlen)
{
    int rc = xlft_xen_ft_status(h->xen, h->domid, st, err, errlen);
    uint64_t ack;

    if (rc)
        return rc;
    if (h->stuck)
        return 0;
    if (h->have_ring && ft_ring_ack(&h->ring.ring) == NEVER)
        end_log(h);
again:
    switch (st->state) {
    case XLFT_XEN_FT_RECORD:
        /* A Xen series older than ftdm: no log can be told apart. */
        if (!st->log_id) {
            get_stuck(h, "Xen gives its logs no id (its FT series is "
                      "older than ftdm's): no log can be held against");
            return 0;
        }
        /*
         * Another log, the last one unended: its ring is not the one
         * mapped, whose acknowledgements no longer move.
         */
        if (h->have_ring && st->log_id != h->log_id) {
            get_stuck(h, "a new log began without ftd ending the one "
                      "before in order");
            return 0;
        }
        if (!h->have_ring) {
            rc = start_log(h, st, err, errlen);
            if (rc == 1)
                goto again;     /* recording ended meanwhile */
            /*
             * Until Xen has stopped recording a log ftd ended, that log
             * is what it records: its outputs may go.
             */
            if (h->ended && (rc || ft_ring_ack(&h->ring.ring) == NEVER)) {
                end_log(h);
                return 0;
            }
            if (rc)
                return rc;
        }
        h->ended = false;
        ack = ft_ring_ack(&h->ring.ring);
        h->st.acked = ack;
        xlft_gate_release(h->gate, h->base + ack);
        return 0;
    case XLFT_XEN_FT_OFF:
    case XLFT_XEN_FT_LIVE:      /* a copy that went live: the guest now */
        h->ended = false;
        if (h->have_ring)
            get_stuck(h, "recording ended without ftd ending the log in "
                      "order (a halted guest, or ftd gone)");
        else
            xlft_gate_open(h->gate);
        return 0;
    default:
        get_stuck(h, "the domain is a replaying copy, whose outputs are "
                  "the primary's");
        return 0;
    }
}

static void arm_poll(struct ftdm_hold *h)
{
    const struct timeval tv = { 0, POLL_MS * 1000 };

    if (!h->stuck && xlft_gate_held(h->gate) &&
        !evtimer_pending(h->poll_ev, NULL))
        evtimer_add(h->poll_ev, &tv);
}

/* A failure here is said once, until it changes; outputs stay held. */
static void refresh(struct ftdm_hold *h)
{
    struct xlft_xen_ft_status st;
    char err[256];

    if (follow(h, &st, err, sizeof(err))) {
        if (strcmp(err, h->said))
            fprintf(stderr, "ftdm: %s\n", err);
        snprintf(h->said, sizeof(h->said), "%s", err);
    } else {
        h->said[0] = '\0';
    }
    arm_poll(h);
}

static void on_wake(evutil_socket_t fd, short what, void *opaque)
{
    (void)what;
    xlft_ack_wake_drain(fd);
    refresh(opaque);
}

static void on_poll(evutil_socket_t fd, short what, void *opaque)
{
    (void)fd;
    (void)what;
    refresh(opaque);
}

int ftdm_hold_open(struct ftdm_hold **hp, uint32_t domid,
                   struct event_base *base, const char *wake_dir,
                   xlft_gate_emit_fn emit, void *opaque, char *err,
                   size_t errlen)
{
    const struct xlft_gate_limits lim = {
        .max_bytes = HOLD_BYTES, .max_outputs = HOLD_OUTPUTS,
    };
    struct ftdm_hold *h = calloc(1, sizeof(*h));
    int rc;

    *hp = NULL;
    if (!h) {
        snprintf(err, errlen, "domain %u: out of memory", domid);
        return -ENOMEM;
    }
    h->domid = domid;
    h->emit = emit;
    h->opaque = opaque;
    h->wake_dir = wake_dir;
    h->wake = -1;
    rc = xlft_xen_open(&h->xen, err, errlen);
    if (rc)
        goto out;
    rc = -ENOMEM;
    if (xlft_gate_new(&h->gate, &lim, counted_emit, h)) {
        snprintf(err, errlen, "domain %u: out of memory", domid);
        goto out;
    }
    xlft_gate_open(h->gate);
    h->wake = xlft_ack_wake_listen(wake_dir, domid, err, errlen);
    if (h->wake < 0) {
        rc = h->wake;
        goto out;
    }
    h->wake_ev = event_new(base, h->wake, EV_READ | EV_PERSIST, on_wake,
                           h);
    h->poll_ev = evtimer_new(base, on_poll, h);
    if (!h->wake_ev || !h->poll_ev || event_add(h->wake_ev, NULL)) {
        snprintf(err, errlen, "domain %u: cannot set up its events",
                 domid);
        goto out;
    }
    *hp = h;
    return 0;
out:
    ftdm_hold_close(h);
    return rc;
}

void ftdm_hold_close(struct ftdm_hold *h)
{
    if (!h)
        return;
    if (h->poll_ev)
        event_free(h->poll_ev);
    if (h->wake_ev)
        event_free(h->wake_ev);
    xlft_ack_wake_close(h->wake_dir, h->domid, h->wake);
    xlft_gate_free(h->gate);
    if (h->xen) {
        unmap(h);
        xlft_xen_close(h->xen);
    }
    free(h);
}

int ftdm_hold_output(struct ftdm_hold *h, uint32_t kind, uint64_t id,
                     const void *data, size_t len, char *err,
                     size_t errlen)
{
    struct xlft_xen_ft_status st;
    uint64_t tag;
    int rc = follow(h, &st, err, errlen);

    if (rc)
        return rc;
    /* Not recorded: out at once, unless older outputs still wait. */
    tag = h->stuck ? NEVER : h->have_ring ? h->base + st.seq : h->last_tag;
    if (tag < h->last_tag)
        tag = h->last_tag;
    rc = xlft_gate_hold(h->gate, tag, kind, id, data, len);
    if (rc && rc != -EAGAIN) {
        snprintf(err, errlen, "domain %u: output %llu not held: %s",
                 h->domid, (unsigned long long)id,
                 rc == -ENOBUFS ? "the outputs waiting for the secondary "
                 "fill ftdm's limits" : strerror(-rc));
        return rc;
    }
    h->last_tag = tag;
    if (rc)
        snprintf(err, errlen, "domain %u: output %llu could not be sent "
                 "at once: %s", h->domid, (unsigned long long)id,
                 strerror(-rc));
    if (xlft_gate_held(h->gate) > h->st.held_max)
        h->st.held_max = xlft_gate_held(h->gate);
    arm_poll(h);
    return rc;
}

void ftdm_hold_stats(const struct ftdm_hold *h, struct ftdm_hold_stats *s)
{
    *s = h->st;
    s->held = xlft_gate_held(h->gate);
}
