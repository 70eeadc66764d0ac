// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftdm.c - the device model of a protected guest on Xen: the device core
 * that ftvm runs (hvm/devices: virtio 1.0 over PCI, MSI-X), served from
 * dom0 on an ioreq server of its own beside the guest's QEMU.
 *
 *   ftdm [--slot DEV] [--mac MAC] [--tap NAME [--bridge BR]]
 *        [--disk PATH] [--copy STATE] DOMID
 *
 * One process per guest, started while the guest is created paused
 * (hvmloader scans the bus once, at boot).  With --copy, the devices of
 * a copy that Xen replays, started from the primary's STATE (a file,
 * devstate.h): the same accesses, no backend, no completion and no
 * interrupt of its own (the log brings them), until the copy goes live;
 * then the backends open and it serves as a primary does.
 * virtio-net at DEV (its frames through a tap device, or counted and
 * dropped without one), virtio-blk at DEV + 1 with --disk.  What the
 * guest sends and every disk request leave through the output rule
 * (hold.h); what comes in enters guest RAM through Xen's FT DMA op.
 * While ftd copies the guest, ftd's word freezes that (ctl.h).  It runs
 * until the guest is gone, or SIGTERM or SIGINT; SIGUSR1 prints what it
 * holds.  Exit 0, 1 on an error (said once, naming the domain), 2 on
 * bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <xenstore.h>

#include "ctl.h"
#include "devstate.h"
#include "disk.h"
#include "hold.h"
#include "ioreq.h"
#include "ram.h"
#include "tap.h"
#include "vio.h"
#include "xlft_ack_wake.h"
#include "xlft_dm_ctl.h"
#include "xlft_xen.h"

#define NET_SLOT    1           /* the functions' slots in the core */
#define BLK_SLOT    2
#define DEFAULT_DEV 5           /* virtio-net's device number on bus 0 */
#define OUT_FRAME   1           /* kinds of output */
#define OUT_DISK    2
#define DONE_MAX    VIO_QSIZE_MAX   /* disk requests done, not completed */
#define RX_BATCH    64          /* frames taken in at one wake-up */
#define FRAMES_HELD_MAX 1024u   /* frames waiting at most; more dropped */
#define RECENT_N    64          /* a copy's frames kept for going live */
#define RECENT_MS   500
#define LIVE_POLL_MS 100        /* a copy looks whether it went live */

/* A disk request as it waits in the output rule: its data follows. */
struct held_req {
    struct vio_blk_req req;
};

struct done {
    struct vio_blk_req req;
    uint32_t status;
    void *data;                 /* a read's bytes */
};

struct ftdm {
    uint32_t domid;
    uint8_t devfn;
    uint8_t mac[6];
    struct ftdm_ioreq *io;
    struct ftdm_ram *ram;
    struct ftdm_hold *hold;
    struct vio_bus *bus;
    struct event_base *base;
    struct xs_handle *xs;       /* watching the domain's xenstore home */
    char home[32];              /* /local/domain/DOMID */
    uint32_t bar[VIO_SLOTS];    /* the MMIO ranges claimed (0: none) */
    const char *tap_name, *bridge, *disk_path;
    int tap;                    /* -1: no network backend */
    struct event *tap_ev, *done_ev;
    bool rx_waits;              /* no receive buffer: tap not read */
    struct ftdm_disk disk;
    struct done done[DONE_MAX];
    unsigned int ndone;
    uint64_t out_id;
    unsigned int frames_held;   /* frames in the output rule */
    struct ftdm_ctl *ctl;
    bool frozen;                /* for the copy: no DMA (xlft_dm_ctl.h) */
    bool rx_frozen;             /* tap not read while frozen */
    /* A copy: until it goes live, and what it does then. */
    const char *copy_state;
    bool copy, seen_replay;
    struct xlft_xen *xen;
    struct event *live_ev;
    struct recent {
        uint64_t at_ms;
        uint32_t len;
        uint8_t *data;
    } recent[RECENT_N];
    unsigned int nrecent;
    unsigned long msis_dropped, resent;
    int rc;                     /* why the loop ended: 0 or -errno */
    const char *why;            /* the end of a loop that ended well */
    unsigned long refused, frames, bytes, msis, received, rx_dropped,
                  tx_dropped, tap_errors, dma_busy, reqs;
    char err[256];
};

static void stop(struct ftdm *d, int rc)
{
    if (!d->rc)
        d->rc = rc;
    event_base_loopexit(d->base, NULL);
}

static int ram_read(void *opaque, uint64_t gpa, void *buf, uint32_t len)
{
    struct ftdm *d = opaque;

    return ftdm_ram_read(d->ram, gpa, buf, len);
}

static bool ram_ok(void *opaque, uint64_t gpa, uint32_t len)
{
    struct ftdm *d = opaque;

    return ftdm_ram_ok(d->ram, gpa, len);
}

static int ram_write(void *opaque, uint64_t gpa, const void *buf,
                     uint32_t len)
{
    struct ftdm *d = opaque;
    char err[256];
    int rc = ftdm_ram_write(d->ram, gpa, buf, len, err, sizeof(err));

    /*
     * A record ring full for seconds (ftd gone or stuck; the guest is
     * stalled by Xen meanwhile) costs this write, not the devices.
     */
    if (rc == -EBUSY) {
        if (!d->dma_busy++)
            fprintf(stderr, "ftdm: %s; dropped (said once)\n", err);
    } else if (rc) {
        snprintf(d->err, sizeof(d->err), "%s", err);
        stop(d, rc);
    }
    return rc;
}

static void msi(void *opaque, uint64_t addr, uint32_t data)
{
    struct ftdm *d = opaque;
    int rc;

    /* A copy's interrupts are the log's. */
    if (d->copy) {
        d->msis_dropped++;
        return;
    }
    rc = ftdm_ioreq_msi(d->io, addr, data);
    d->msis++;
    if (rc) {
        snprintf(d->err, sizeof(d->err), "domain %u: cannot raise the MSI "
                 "%#llx/%#x: %s", d->domid, (unsigned long long)addr, data,
                 strerror(-rc));
        stop(d, rc);
    }
}

/*
 * A frame lost here is one more loss on a network the guest survives;
 * frames wait in a bound of their own, so that disk requests, which the
 * guest waits on and which are never dropped, always find room.
 */
static uint64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * A copy keeps the frames its guest sent in its last RECENT_MS of
 * replay: the primary may have died with them held.  Going live sends
 * them again; a frame twice is what networks deliver anyway.
 */
static void keep_recent(struct ftdm *d, const void *frame, uint32_t len)
{
    uint64_t now = mono_ms();
    unsigned int old = 0;
    uint8_t *copy;

    while (old < d->nrecent && (d->recent[old].at_ms + RECENT_MS < now ||
                                d->nrecent - old == RECENT_N))
        free(d->recent[old++].data);
    memmove(d->recent, d->recent + old,
            (d->nrecent - old) * sizeof(d->recent[0]));
    d->nrecent -= old;
    copy = malloc(len);
    if (!copy)
        return;                 /* the network's loss */
    memcpy(copy, frame, len);
    d->recent[d->nrecent++] = (struct recent){ now, len, copy };
}

static void net_tx(void *opaque, const void *frame, uint32_t len)
{
    struct ftdm *d = opaque;
    char err[256] = "";
    int rc;

    d->frames++;
    d->bytes += len;
    if (d->copy) {
        keep_recent(d, frame, len);
        return;
    }
    if (d->tap < 0)
        return;
    if (d->frames_held >= FRAMES_HELD_MAX) {
        rc = -ENOBUFS;
        snprintf(err, sizeof(err), "domain %u: %u frames wait for the "
                 "secondary", d->domid, FRAMES_HELD_MAX);
    } else {
        /* Counted first: the rule may emit it at once, which uncounts. */
        d->frames_held++;
        rc = ftdm_hold_output(d->hold, OUT_FRAME, ++d->out_id, frame, len,
                              err, sizeof(err));
        if (!rc)
            return;
        d->frames_held--;
    }
    if (!d->tx_dropped++)
        fprintf(stderr, "ftdm: %s; the frame is dropped (said once)\n",
                err);
}

/* The guest's requests are done in order: after the loop's ioreq. */
static void push_done(struct ftdm *d, const struct vio_blk_req *req,
                      uint32_t status, void *data)
{
    if (d->ndone == DONE_MAX) {
        free(data);
        snprintf(d->err, sizeof(d->err), "domain %u: more than %u disk "
                 "requests done and not completed", d->domid, DONE_MAX);
        stop(d, -EOVERFLOW);
        return;
    }
    d->done[d->ndone++] = (struct done){ *req, status, data };
    event_active(d->done_ev, EV_TIMEOUT, 0);
}

/*
 * A request the core took: an output (a read too, so that it never
 * overtakes a write it follows), done when it leaves the rule.
 */
static void blk_submit(void *opaque, const struct vio_blk_req *req)
{
    struct ftdm *d = opaque;
    size_t dlen = req->type == VIO_BLK_T_OUT ? req->len : 0;
    struct held_req *h;
    int rc;

    d->reqs++;
    /* A copy's completions are the log's; going live submits again. */
    if (d->copy)
        return;
    h = malloc(sizeof(*h) + dlen);
    if (!h) {
        snprintf(d->err, sizeof(d->err), "domain %u: out of memory for a "
                 "disk request", d->domid);
        stop(d, -ENOMEM);
        return;
    }
    h->req = *req;
    h->req.data = NULL;
    if (dlen)
        memcpy(h + 1, req->data, dlen);
    /*
     * Requests complete in order: one that cannot wait its turn cannot
     * fail alone either, and the guest's disk stops here, said.
     */
    rc = ftdm_hold_output(d->hold, OUT_DISK, ++d->out_id, h,
                          sizeof(*h) + dlen, d->err, sizeof(d->err));
    free(h);
    if (rc)
        stop(d, rc);
}

/* Done as it leaves the rule; never refused, so never out of order. */
static int emit_disk(struct ftdm *d, const struct held_req *h, size_t len)
{
    struct vio_blk_req q = h->req;
    void *data = NULL;
    uint32_t status;

    if (q.type == VIO_BLK_T_OUT)
        q.data = h + 1;
    if (q.type == VIO_BLK_T_IN && q.status == VIO_BLK_S_OK && q.len)
        data = malloc(q.len);
    if (q.type == VIO_BLK_T_OUT && len != sizeof(*h) + q.len)
        status = VIO_BLK_S_IOERR;
    else if (q.type == VIO_BLK_T_IN && q.status == VIO_BLK_S_OK && q.len &&
             !data)
        status = VIO_BLK_S_IOERR;
    else
        status = ftdm_disk_do(&d->disk, &q, data, d->domid);
    if (status != VIO_BLK_S_OK) {
        free(data);
        data = NULL;
    }
    q.data = NULL;
    push_done(d, &q, status, data);
    return 0;
}

static int emit(void *opaque, uint32_t kind, uint64_t id, const void *data,
                size_t len)
{
    struct ftdm *d = opaque;

    (void)id;
    if (kind == OUT_DISK)
        return emit_disk(d, data, len);
    d->frames_held--;
    if (ftdm_tap_write(d->tap, data, len) && !d->tap_errors++)
        fprintf(stderr, "ftdm: domain %u: tap %s refused a frame: dropped "
                "(said once)\n", d->domid, d->tap_name);
    return 0;
}

/* Completions, out of any ioreq: guest RAM written through Xen's log. */
static void on_done(evutil_socket_t fd, short what, void *opaque)
{
    struct ftdm *d = opaque;

    (void)fd;
    (void)what;
    if (d->frozen)
        return;                 /* thawing runs this again */
    for (unsigned int i = 0; i < d->ndone; i++) {
        struct done *c = &d->done[i];

        /* One of a reset's past is dropped by the core. */
        if (!d->rc)
            vio_blk_complete(d->bus, BLK_SLOT, &c->req, c->status,
                             c->data);
        free(c->data);
    }
    d->ndone = 0;
}

/* Frames from the tap, while the guest has buffers posted for them. */
static void on_tap(evutil_socket_t fd, short what, void *opaque)
{
    static uint8_t frame[VIO_NET_FRAME_MAX + 1];
    struct ftdm *d = opaque;

    (void)what;
    for (int i = 0; i < RX_BATCH && !d->rc; i++) {
        int n;

        if (d->frozen) {
            d->rx_frozen = true;
            event_del(d->tap_ev);
            return;
        }
        if (!vio_net_can_rx(d->bus, NET_SLOT)) {
            d->rx_waits = true;
            event_del(d->tap_ev);
            return;
        }
        n = ftdm_tap_read(fd, frame, sizeof(frame));
        if (n <= 0) {
            if (n < 0) {
                snprintf(d->err, sizeof(d->err), "domain %u: reading "
                         "tap %s: %s", d->domid, d->tap_name,
                         strerror(-n));
                stop(d, n);
            }
            return;
        }
        if (n > (int)VIO_NET_FRAME_MAX) {
            d->rx_dropped++;
            continue;
        }
        if (vio_net_rx(d->bus, NET_SLOT, frame, (uint32_t)n))
            d->rx_dropped++;
        else
            d->received++;
    }
}

/* The guest posted buffers: the tap is read again (not from here). */
static void notified(void *opaque, unsigned int slot, unsigned int queue)
{
    struct ftdm *d = opaque;

    if (slot == NET_SLOT && queue == 0 && d->rx_waits && d->tap_ev &&
        !d->copy && !d->frozen) {
        d->rx_waits = false;
        event_add(d->tap_ev, NULL);
    }
}

static void warn(void *opaque, const char *msg)
{
    struct ftdm *d = opaque;

    fprintf(stderr, "ftdm: domain %u: guest driver: %s\n", d->domid, msg);
}

/* Route the BAR's MMIO to ftdm where the guest placed it, and only then. */
static void follow_bar(struct ftdm *d, unsigned int slot)
{
    uint32_t base;
    bool on = vio_bar_at(d->bus, slot, &base);
    int rc = 0;

    if (on && base == d->bar[slot])
        return;
    if (d->bar[slot])
        rc = ftdm_ioreq_release_mmio(d->io, d->bar[slot], VIO_BAR_SIZE,
                                     d->err, sizeof(d->err));
    d->bar[slot] = 0;
    if (!rc && on) {
        rc = ftdm_ioreq_claim_mmio(d->io, base, VIO_BAR_SIZE, d->err,
                                   sizeof(d->err));
        if (!rc)
            d->bar[slot] = base;
    }
    if (rc)
        stop(d, rc);
}

/* The core's slot of the function at 'devfn'; 0 if it is not ours. */
static unsigned int slot_of(const struct ftdm *d, unsigned int devfn)
{
    if (devfn == d->devfn)
        return NET_SLOT;
    if (d->disk.fd >= 0 && devfn == d->devfn + 8u)
        return BLK_SLOT;
    return 0;
}

static void serve(void *opaque, struct ftdm_access *a)
{
    struct ftdm *d = opaque;

    if (a->kind == FTDM_CFG) {
        unsigned int slot = slot_of(d, a->devfn);

        if (!slot || a->addr > 255 || a->size > 4) {
            a->data = ~0ull;
        } else if (a->write) {
            vio_cfg_write(d->bus, slot, (unsigned int)a->addr, a->size,
                          (uint32_t)a->data);
            follow_bar(d, slot);
        } else {
            a->data = vio_cfg_read(d->bus, slot, (unsigned int)a->addr,
                                   a->size);
        }
        return;
    }
    if (a->write)
        vio_mmio_write(d->bus, a->addr, a->size, a->data);
    else if (!vio_mmio_read(d->bus, a->addr, a->size, &a->data))
        a->data = ~0ull;
}

static void on_ioreq(evutil_socket_t fd, short what, void *opaque)
{
    struct ftdm *d = opaque;
    int rc = ftdm_ioreq_serve(d->io, serve, d, &d->refused);

    (void)fd;
    (void)what;
    if (rc) {
        snprintf(d->err, sizeof(d->err), "domain %u: serving its ioreq "
                 "server: %s", d->domid, strerror(-rc));
        stop(d, rc);
    }
}

/*
 * The toolstack removes the domain's home as it destroys it: the domain
 * itself cannot go while ftdm maps its ioreq page, so its release never
 * comes first.
 */
static bool home_gone(struct ftdm *d)
{
    unsigned int len;
    void *v = xs_read(d->xs, XBT_NULL, d->home, &len);

    free(v);
    return !v && errno == ENOENT;
}

static void on_home(evutil_socket_t fd, short what, void *opaque)
{
    struct ftdm *d = opaque;

    (void)fd;
    (void)what;
    free(xs_check_watch(d->xs));
    if (home_gone(d)) {
        d->why = "the domain is gone";
        stop(d, 0);
    }
}

static void say_held(struct ftdm *d)
{
    struct ftdm_hold_stats st;

    if (!d->hold) {
        printf("ftdm: domain %u: a replaying copy: its outputs are the "
               "primary's to hold\n", d->domid);
        fflush(stdout);
        return;
    }
    ftdm_hold_stats(d->hold, &st);
    printf("ftdm: domain %u: outputs held %llu (at most %llu), released "
           "once acknowledged %llu, passed unprotected %llu; acknowledged "
           "up to record %llu\n", d->domid,
           (unsigned long long)st.held, (unsigned long long)st.held_max,
           (unsigned long long)st.released, (unsigned long long)st.passed,
           (unsigned long long)st.acked);
    fflush(stdout);
}

static void on_signal(evutil_socket_t sig, short what, void *opaque)
{
    struct ftdm *d = opaque;

    (void)what;
    if (sig == SIGUSR1) {
        say_held(d);
        return;
    }
    d->why = sig == SIGTERM ? "SIGTERM" : "SIGINT";
    stop(d, 0);
}

/* ftd makes the guest's copy: no device writes into guest RAM. */
static void freeze(void *opaque)
{
    struct ftdm *d = opaque;

    d->frozen = true;
    printf("ftdm: domain %u: frozen for its copy\n", d->domid);
    fflush(stdout);
}

static void thaw(void *opaque)
{
    struct ftdm *d = opaque;

    d->frozen = false;
    if (d->tap_ev && !d->copy && (d->rx_frozen || d->rx_waits)) {
        d->rx_frozen = d->rx_waits = false;
        event_add(d->tap_ev, NULL);
    }
    if (d->ndone)
        event_active(d->done_ev, EV_TIMEOUT, 0);
    printf("ftdm: domain %u: thawed\n", d->domid);
    fflush(stdout);
}

static size_t state(void *opaque, uint8_t *buf)
{
    struct ftdm *d = opaque;

    return ftdm_devstate_save(d->bus, buf);
}

/* The guest's MAC announced from here, three times as QEMU does. */
static void announce(struct ftdm *d)
{
    uint8_t rarp[VIO_NET_ANNOUNCE];

    vio_net_announce(d->mac, rarp);
    for (int k = 0; k < 3; k++)
        ftdm_tap_write(d->tap, rarp, sizeof(rarp));
}

/*
 * The copy is the guest now: what its tap queued while it replayed was
 * the primary's to take (in the log if it did); its MAC is announced
 * and its last frames sent again; the shared disk is read afresh, and
 * the requests it saw taken and not completed are done again, in
 * order; every queue gets an interrupt.
 */
static int go_live(struct ftdm *d)
{
    static uint8_t frame[VIO_NET_FRAME_MAX + 1];

    d->copy = false;
    ftdm_disk_forget(&d->disk);
    if (ftdm_hold_open(&d->hold, d->domid, d->base, XLFT_ACK_WAKE_DIR,
                       emit, d, d->err, sizeof(d->err)))
        return -1;
    if (d->tap >= 0) {
        for (int k = 0; k < 4096; k++) {
            if (ftdm_tap_read(d->tap, frame, sizeof(frame)) <= 0)
                break;
        }
        announce(d);
        for (unsigned int i = 0; i < d->nrecent; i++) {
            ftdm_tap_write(d->tap, d->recent[i].data, d->recent[i].len);
            d->resent++;
        }
        if (event_add(d->tap_ev, NULL)) {
            snprintf(d->err, sizeof(d->err), "domain %u: cannot set up its "
                     "events", d->domid);
            return -1;
        }
    }
    vio_go_live(d->bus);
    printf("ftdm: domain %u: live: %lu frames sent again, %lu disk "
           "requests taken in replay; %lu interrupts left to the log\n",
           d->domid, d->resent, d->reqs, d->msis_dropped);
    fflush(stdout);
    return 0;
}

/*
 * A copy goes live when Xen says it is live, and only then: one whose
 * replay ended otherwise (it diverged, or its pair ended) must never
 * write the shared disk.  The guest may run a poll's time before: its
 * requests meanwhile are in flight, which going live submits, and its
 * frames are kept with the recent ones.
 */
static void on_live_poll(evutil_socket_t fd, short what, void *opaque)
{
    const struct timeval tv = { 0, LIVE_POLL_MS * 1000 };
    struct ftdm *d = opaque;
    struct xlft_xen_ft_status st;
    char err[256];

    (void)fd;
    (void)what;
    if (xlft_xen_ft_status(d->xen, d->domid, &st, err, sizeof(err))) {
        snprintf(d->err, sizeof(d->err), "%s", err);
        stop(d, -EIO);
        return;
    }
    if (st.state == XLFT_XEN_FT_LIVE) {
        if (go_live(d))
            stop(d, -EIO);
        return;
    }
    if (st.state == XLFT_XEN_FT_REPLAY)
        d->seen_replay = true;
    else if (d->seen_replay) {
        printf("ftdm: domain %u: its replay ended without going live: "
               "no backend opens for it\n", d->domid);
        fflush(stdout);
        return;
    }
    evtimer_add(d->live_ev, &tv);
}

/* The primary's device state, from the file ftd wrote. */
static int load_state(struct ftdm *d)
{
    static uint8_t buf[XLFT_DM_STATE_MAX + 1];
    int fd = open(d->copy_state, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
    char why[200];

    if (fd >= 0)
        close(fd);
    if (n < 0) {
        snprintf(d->err, sizeof(d->err), "domain %u: cannot read the "
                 "device state %s: %s", d->domid, d->copy_state,
                 strerror(errno));
        return -1;
    }
    if (ftdm_devstate_load(d->bus, buf, (size_t)n, why, sizeof(why))) {
        snprintf(d->err, sizeof(d->err), "domain %u: %s: %s", d->domid,
                 d->copy_state, why);
        return -1;
    }
    for (unsigned int slot = NET_SLOT; slot <= BLK_SLOT; slot++)
        follow_bar(d, slot);
    return d->rc ? -1 : 0;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
    unsigned int b[6];
    char end;

    if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
               &b[4], &b[5], &end) != 6 || (b[0] & 1))
        return -EINVAL;
    for (int i = 0; i < 6; i++)
        mac[i] = (uint8_t)b[i];
    return 0;
}

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "ftdm: %s\n", why);
    fprintf(stderr, "usage: ftdm [--slot DEV] [--mac MAC] [--tap NAME "
            "[--bridge BR]] [--disk PATH] [--copy STATE] DOMID\n");
    return 2;
}

/*
 * The bus: virtio-net (and virtio-blk), BARs unplaced and decoding off
 * until firmware places them, as a function is at reset.
 */
static int bus_new(struct ftdm *d)
{
    const struct vio_host host = {
        .opaque = d, .ram_read = ram_read, .ram_write = ram_write,
        .ram_ok = ram_ok, .msi = msi, .net_tx = net_tx,
        .blk_submit = blk_submit, .notified = notified, .warn = warn,
    };
    char serial[21];

    snprintf(serial, sizeof(serial), "xenft-dom%u", d->domid);
    d->bus = vio_bus_new(&host);
    if (!d->bus || vio_add_net(d->bus, NET_SLOT, VIO_BAR_SIZE, d->mac) ||
        (d->disk.fd >= 0 &&
         vio_add_blk(d->bus, BLK_SLOT, 2 * VIO_BAR_SIZE, d->disk.sectors,
                     serial))) {
        snprintf(d->err, sizeof(d->err), "domain %u: cannot make its "
                 "virtio functions", d->domid);
        return -ENOMEM;
    }
    for (unsigned int slot = NET_SLOT; slot <= BLK_SLOT; slot++) {
        if (slot == BLK_SLOT && d->disk.fd < 0)
            break;
        vio_cfg_write(d->bus, slot, 0x04, 2, 0);
        vio_cfg_write(d->bus, slot, 0x10, 4, 0);
    }
    return 0;
}

/* The backends, then the bus and the functions claimed on Xen's. */
static int setup(struct ftdm *d)
{
    if (d->disk_path && ftdm_disk_open(&d->disk, d->domid, d->disk_path,
                                       d->err, sizeof(d->err)))
        return -1;
    if (d->tap_name) {
        d->tap = ftdm_tap_open(d->domid, d->tap_name, d->bridge, d->err,
                               sizeof(d->err));
        if (d->tap < 0)
            return -1;
        d->tap_ev = event_new(d->base, d->tap, EV_READ | EV_PERSIST,
                              on_tap, d);
        /* A copy reads its tap once live. */
        if (!d->tap_ev || (!d->copy && event_add(d->tap_ev, NULL)))
            goto no_event;
    }
    d->done_ev = event_new(d->base, -1, 0, on_done, d);
    if (!d->done_ev)
        goto no_event;
    if (bus_new(d) || ftdm_ram_open(&d->ram, d->domid, d->err,
                                    sizeof(d->err)) ||
        (!d->copy &&
         ftdm_hold_open(&d->hold, d->domid, d->base, XLFT_ACK_WAKE_DIR,
                        emit, d, d->err, sizeof(d->err))) ||
        ftdm_ioreq_open(&d->io, d->domid, d->err, sizeof(d->err)) ||
        ftdm_ioreq_claim_pci(d->io, d->devfn, d->err, sizeof(d->err)) ||
        (d->disk.fd >= 0 &&
         ftdm_ioreq_claim_pci(d->io, d->devfn + 8, d->err,
                              sizeof(d->err))) ||
        (d->copy && load_state(d)) ||
        ftdm_ctl_open(&d->ctl, d->domid, d->base, XLFT_ACK_WAKE_DIR,
                      &(struct ftdm_ctl_ops){ d, freeze, thaw, state },
                      d->err, sizeof(d->err)))
        return -1;
    if (d->copy) {
        if (xlft_xen_open(&d->xen, d->err, sizeof(d->err)))
            return -1;
        d->live_ev = evtimer_new(d->base, on_live_poll, d);
        if (!d->live_ev)
            goto no_event;
        on_live_poll(-1, 0, d);
    }
    return 0;
no_event:
    snprintf(d->err, sizeof(d->err), "domain %u: cannot set up its events",
             d->domid);
    return -1;
}

static void say_serving(const struct ftdm *d, unsigned int dev)
{
    printf("ftdm: domain %u: virtio-net at 00:%02x.0, MAC "
           "%02x:%02x:%02x:%02x:%02x:%02x, ", d->domid, dev, d->mac[0],
           d->mac[1], d->mac[2], d->mac[3], d->mac[4], d->mac[5]);
    if (d->tap < 0)
        printf("no network backend");
    else
        printf("tap %s%s%s", d->tap_name, d->bridge ? " on bridge " : "",
               d->bridge ? d->bridge : "");
    if (d->disk.fd >= 0)
        printf("; virtio-blk at 00:%02x.0, disk %s (%llu sectors)",
               dev + 1, d->disk_path, (unsigned long long)d->disk.sectors);
    printf("; %s\n", d->copy ? "serving a replaying copy" : "serving");
    fflush(stdout);
}

static void say_stopped(struct ftdm *d)
{
    printf("ftdm: domain %u: stopped (%s); the guest sent %lu frames (%lu "
           "bytes), ", d->domid, d->why ? d->why : "its loop ended",
           d->frames, d->bytes);
    if (d->tap < 0)
        printf("dropped: no network backend; ");
    else
        printf("%lu dropped; received %lu frames, %lu dropped; ",
               d->tx_dropped, d->received, d->rx_dropped);
    if (d->disk.fd >= 0)
        printf("%lu disk requests; ", d->reqs);
    printf("%lu MSIs raised; %lu accesses refused\n", d->msis, d->refused);
    if (d->copy)
        printf("ftdm: domain %u: a copy that did not go live: %lu "
               "interrupts left to the log\n", d->domid, d->msis_dropped);
    say_held(d);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "slot", required_argument, NULL, 's' },
        { "mac", required_argument, NULL, 'm' },
        { "tap", required_argument, NULL, 't' },
        { "bridge", required_argument, NULL, 'b' },
        { "disk", required_argument, NULL, 'd' },
        { "copy", required_argument, NULL, 'c' },
        { "help", no_argument, NULL, 'h' },
        { 0 },
    };
    struct ftdm d = {
        .mac = { 0x00, 0x16, 0x3e, 0x46, 0x54, 0x01 },
        .tap = -1, .disk = { .fd = -1 },
    };
    struct event *ev_io = NULL, *ev_xs = NULL, *sigs[3] = { NULL };
    static const int signo[3] = { SIGTERM, SIGINT, SIGUSR1 };
    unsigned long dev = DEFAULT_DEV, domid;
    char *end;
    int c, rc = -1;

    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            dev = strtoul(optarg, &end, 0);
            if (*end || !dev || dev > 30)
                return usage("--slot: a device number 1 to 30 (virtio-blk "
                             "takes the next)");
            break;
        case 'm':
            if (parse_mac(optarg, d.mac))
                return usage("--mac: six hex bytes, unicast "
                             "(00:16:3e:46:54:01)");
            break;
        case 't':
            d.tap_name = optarg;
            break;
        case 'b':
            d.bridge = optarg;
            break;
        case 'd':
            d.disk_path = optarg;
            break;
        case 'c':
            d.copy_state = optarg;
            d.copy = true;
            break;
        case 'h':
            usage(NULL);
            return 0;
        default:
            return usage(NULL);
        }
    }
    if (optind != argc - 1)
        return usage("one DOMID");
    if (d.bridge && !d.tap_name)
        return usage("--bridge: for the tap of --tap");
    domid = strtoul(argv[optind], &end, 10);
    if (*end || !domid || domid >= 0x7ff0)
        return usage("DOMID: a guest's domain number");
    d.domid = (uint32_t)domid;
    d.devfn = (uint8_t)(dev << 3);

    d.base = event_base_new();
    if (!d.base) {
        snprintf(d.err, sizeof(d.err), "domain %u: no event loop", d.domid);
        goto out;
    }
    if (setup(&d))
        goto out;
    snprintf(d.home, sizeof(d.home), "/local/domain/%u", d.domid);
    d.xs = xs_open(0);
    if (!d.xs || home_gone(&d) || !xs_watch(d.xs, d.home, "ftdm")) {
        snprintf(d.err, sizeof(d.err), "domain %u: cannot watch %s in "
                 "xenstore (no such domain?)", d.domid, d.home);
        goto out;
    }
    ev_io = event_new(d.base, ftdm_ioreq_fd(d.io), EV_READ | EV_PERSIST,
                      on_ioreq, &d);
    ev_xs = event_new(d.base, xs_fileno(d.xs), EV_READ | EV_PERSIST,
                      on_home, &d);
    for (int i = 0; i < 3; i++)
        sigs[i] = evsignal_new(d.base, signo[i], on_signal, &d);
    if (!ev_io || !ev_xs || !sigs[0] || !sigs[1] || !sigs[2] ||
        event_add(ev_io, NULL) || event_add(ev_xs, NULL) ||
        event_add(sigs[0], NULL) || event_add(sigs[1], NULL) ||
        event_add(sigs[2], NULL)) {
        snprintf(d.err, sizeof(d.err), "domain %u: cannot set up its "
                 "events", d.domid);
        goto out;
    }
    say_serving(&d, (unsigned int)dev);
    event_base_dispatch(d.base);
    if (d.rc)
        goto out;
    say_stopped(&d);
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "ftdm: %s\n", d.err[0] ? d.err : "failed");
    for (int i = 0; i < 3; i++)
        if (sigs[i])
            event_free(sigs[i]);
    if (ev_xs)
        event_free(ev_xs);
    if (ev_io)
        event_free(ev_io);
    if (d.xs)
        xs_close(d.xs);
    ftdm_ioreq_close(d.io);
    ftdm_ctl_close(d.ctl);
    if (d.live_ev)
        event_free(d.live_ev);
    if (d.xen)
        xlft_xen_close(d.xen);
    for (unsigned int i = 0; i < d.nrecent; i++)
        free(d.recent[i].data);
    /* What is still held never goes: its log was not acknowledged. */
    ftdm_hold_close(d.hold);
    ftdm_ram_close(d.ram);
    for (unsigned int i = 0; i < d.ndone; i++)
        free(d.done[i].data);
    if (d.done_ev)
        event_free(d.done_ev);
    if (d.tap_ev)
        event_free(d.tap_ev);
    ftdm_tap_close(d.tap);
    ftdm_disk_close(&d.disk);
    if (d.bus)
        vio_bus_free(d.bus);
    if (d.base)
        event_base_free(d.base);
    return rc ? 1 : 0;
}
