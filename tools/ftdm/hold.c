// SPDX-License-Identifier: GPL-2.0-only
/*
 * hold.c - the output rule in ftdm (hold.h).
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
 * Enough for every disk request a full queue can make (they are not
 * dropped: the guest waits on them) and the frames beside them.
 */
#define HOLD_BYTES      ((size_t)256 * ((1u << 20) + 64) + (4u << 20))
#define HOLD_OUTPUTS    8192u
/* How often the ring's acknowledgement is read while outputs wait. */
#define POLL_MS         20

struct ftdm_hold {
    uint32_t domid;
    struct xlft_xen *xen;
    struct xlft_gate *gate;
    xlft_gate_emit_fn emit;
    void *opaque;
    bool recorded;              /* the gate is closed: Xen records */
    bool have_ring;
    uint64_t last_seq;          /* the tag of the last output held */
    struct xlft_xen_ring ring;
    const char *wake_dir;
    int wake;                   /* ftd's wake-ups; -1: none */
    struct event *wake_ev, *poll_ev;
    struct ftdm_hold_stats st;
    char err[256];
};

static int counted_emit(void *opaque, uint32_t kind, uint64_t id,
                        const void *data, size_t len)
{
    struct ftdm_hold *h = opaque;
    int rc = h->emit(h->opaque, kind, id, data, len);

    if (!rc)
        h->st.released++;
    return rc;
}

static void unmap(struct ftdm_hold *h)
{
    if (h->have_ring)
        xlft_xen_ring_unmap(h->xen, &h->ring);
    h->have_ring = false;
}

/* Xen records no more: the log that held these has ended in order. */
static int let_out(struct ftdm_hold *h)
{
    int rc = xlft_gate_open(h->gate);

    unmap(h);
    h->recorded = false;
    return rc < 0 ? rc : 0;
}

/*
 * Recording (again): a gate of its own for this log, whose sequence
 * numbers start anew, and its ring.  Whatever an earlier log held went
 * out when that one ended.
 */
static int start_holding(struct ftdm_hold *h,
                         const struct xlft_xen_ft_status *st, char *err,
                         size_t errlen)
{
    const struct xlft_gate_limits lim = {
        .max_bytes = HOLD_BYTES, .max_outputs = HOLD_OUTPUTS,
    };
    struct xlft_gate *g;
    int rc;

    if (xlft_gate_held(h->gate)) {
        rc = let_out(h);
        if (rc || xlft_gate_held(h->gate)) {
            snprintf(err, errlen, "domain %u: outputs of the log before "
                     "cannot go out: %s", h->domid,
                     strerror(rc ? -rc : EAGAIN));
            return rc ? rc : -EAGAIN;
        }
    }
    unmap(h);
    rc = xlft_xen_ring_map(h->xen, h->domid, st, FT_RING_RECORD, &h->ring,
                           err, errlen);
    if (rc)
        return rc;
    h->have_ring = true;
    if (xlft_gate_new(&g, &lim, counted_emit, h)) {
        snprintf(err, errlen, "domain %u: out of memory", h->domid);
        return -ENOMEM;
    }
    xlft_gate_free(h->gate);
    h->gate = g;
    h->recorded = true;
    h->last_seq = 0;
    return 0;
}

/* Follow Xen: is the guest recorded, and how far is the log acked? */
static int follow(struct ftdm_hold *h, struct xlft_xen_ft_status *st,
                  char *err, size_t errlen)
{
    int rc = xlft_xen_ft_status(h->xen, h->domid, st, err, errlen);

    if (rc)
        return rc;
    if (st->state != XLFT_XEN_FT_RECORD)
        return h->recorded ? let_out(h) : 0;
    /* A sequence that went back is a new log: the old one ended. */
    if (!h->recorded || st->seq < h->last_seq)
        rc = start_holding(h, st, err, errlen);
    if (rc)
        return rc;
    h->st.acked = ft_ring_ack(&h->ring.ring);
    rc = xlft_gate_release(h->gate, h->st.acked);
    return rc < 0 ? rc : 0;
}

static void arm_poll(struct ftdm_hold *h)
{
    const struct timeval tv = { 0, POLL_MS * 1000 };

    if (xlft_gate_held(h->gate) && !evtimer_pending(h->poll_ev, NULL))
        evtimer_add(h->poll_ev, &tv);
}

/* A failure here is said, once per kind; the outputs stay held. */
static void refresh(struct ftdm_hold *h)
{
    struct xlft_xen_ft_status st;
    char err[256];
    int rc = follow(h, &st, err, sizeof(err));

    if (rc && strcmp(err, h->err)) {
        fprintf(stderr, "ftdm: %s\n", err);
        snprintf(h->err, sizeof(h->err), "%s", err);
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
    if (xlft_gate_new(&h->gate, NULL, counted_emit, h)) {
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
    int rc = follow(h, &st, err, errlen);

    if (rc)
        return rc;
    if (!h->recorded) {
        rc = h->emit(h->opaque, kind, id, data, len);
        if (!rc)
            h->st.passed++;
        else
            snprintf(err, errlen, "domain %u: output %llu not sent: %s",
                     h->domid, (unsigned long long)id, strerror(-rc));
        return rc;
    }
    rc = xlft_gate_hold(h->gate, st.seq, kind, id, data, len);
    if (rc) {
        snprintf(err, errlen, "domain %u: output %llu not held: %s",
                 h->domid, (unsigned long long)id,
                 rc == -ENOBUFS ? "the outputs waiting for the secondary "
                 "fill ftdm's limits" : strerror(-rc));
        return rc;
    }
    h->last_seq = st.seq;
    if (xlft_gate_held(h->gate) > h->st.held_max)
        h->st.held_max = xlft_gate_held(h->gate);
    arm_poll(h);
    return 0;
}

void ftdm_hold_stats(const struct ftdm_hold *h, struct ftdm_hold_stats *s)
{
    *s = h->st;
    s->held = xlft_gate_held(h->gate);
}
