// SPDX-License-Identifier: GPL-2.0-only
/*
 * backend_xen.c - Xen HVM guests through libxlft's xen backend: the FT
 * domctl through libxencall, the Xen-owned ring mapped with
 * acquire_resource, its event channel bound with libxenevtchn, the
 * secondary made through libxl's migration stream, the pair's state in
 * xenstore under /libxl/<domid>/ft/.
 *
 * Replay and going live are the hypervisor's (xen-patches, VMX only: a
 * host that cannot replay says so and the pair ends).  A guest whose
 * devices ftdm serves has its device model frozen while its copy is
 * made, and its devices' state travels with the copy; the secondary
 * starts ftdm for the copy from it.  Throttling caps
 * the guest's share of a CPU through its scheduler.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxl.h>
#include <libxl_utils.h>
#include <xentoollog.h>

#include "backend.h"
#include "config.h"
#include "xlft_ack_wake.h"
#include "xlft_dm_ctl.h"
#include "xlft_dm_spawn.h"
#include "xlft_xen.h"
#include "xlft_xen_config.h"
#include "xlft_xen_copy.h"
#include "xlft_xen_local.h"
#include "xlft_xen_speed.h"
#include "xlft_xs.h"

struct guest {
    struct xlft_xen *x;
    xentoollog_logger_stdiostream *log;
    libxl_ctx *ctx;
    uint32_t domid;             /* INVALID_DOMID until restored */
    char peer[128];
    char copy_from[256];        /* a secondary: this host's config of it */
    bool created;               /* the copy, restored here: never live */
    bool paused;                /* by GUEST_PAUSE */
    bool halted;                /* by GUEST_HALT: paused for good */
    bool ft_on;                 /* recording or replaying: disable it */
    bool live;                  /* told to go live: Xen's state stays */
    bool have_ring;
    unsigned int flags;         /* BACKEND_F_* */
    struct xlft_xen_ring ring;
    struct xlft_xen_evtchn ev;
    int wake;                   /* wakes the guest's ftdm; -1: none */
    int dm;                     /* its ftdm, frozen for the copy; -1 */
};

/* The pair's state where xl-ft looks; a failure here is only said. */
static void xs_put(struct guest *g, const char *state, const char *err)
{
    struct xlft_xs_kv kv[2] = { { "state", state }, { "error", "" } };
    char val[XLFT_XS_VAL_MAX + 1], why[300];
    struct xlft_xs *s;
    size_t n = 1;

    if (g->domid == (uint32_t)INVALID_DOMID)
        return;
    if (err) {
        snprintf(val, sizeof(val), "%s", err);
        kv[1].val = val;
        n = 2;
    }
    if (xlft_xs_open(&s, why, sizeof(why)) == 0) {
        if (xlft_xs_status_write(s, g->domid, kv, n, why, sizeof(why)))
            fprintf(stderr, "ftd: %s\n", why);
        xlft_xs_close(s);
    } else {
        fprintf(stderr, "ftd: %s\n", why);
    }
}

/* Fail with 'why', said in xenstore too. */
static int fail(struct guest *g, int rc, char *why)
{
    xs_put(g, "error", why);
    return rc;
}

static void xen_close(struct guest *g)
{
    char why[300];

    if (!g)
        return;
    /*
     * A halted domain's log is not ended: nothing of it may go out.  A
     * copy told to go live keeps Xen's live state: its ftdm, which polls
     * for it, opens the devices only then.  Protecting it again clears
     * it (ft_start).
     */
    if (g->ft_on && !g->halted && !g->live)
        xlft_xen_ft_disable(g->x, g->domid, why, sizeof(why));
    xlft_xen_evtchn_unbind(g->x, &g->ev);
    if (g->wake >= 0)
        close(g->wake);
    if (g->dm >= 0)
        close(g->dm);
    if (g->have_ring)
        xlft_xen_ring_unmap(g->x, &g->ring);
    /*
     * A copy that never went live is of no use once its pair ends; a
     * guest paused here runs on, unless it was halted: its peer may be
     * live by now.
     */
    if (g->created)
        libxl_domain_destroy(g->ctx, g->domid, NULL);
    else if (g->paused && !g->halted)
        libxl_domain_unpause(g->ctx, g->domid, NULL);
    if (g->ctx)
        libxl_ctx_free(g->ctx);
    if (g->log)
        xtl_logger_destroy((xentoollog_logger *)g->log);
    xlft_xen_close(g->x);
    free(g);
}

/* A domain id, or the name of a domain on this host. */
static int resolve(struct guest *g, const char *spec, char *why, size_t len)
{
    char *end;
    unsigned long v;

    v = strtoul(spec, &end, 10);
    if (*spec >= '0' && *spec <= '9' && !*end) {
        if (v >= DOMID_FIRST_RESERVED || v == 0) {
            snprintf(why, len, "'%s' is not a guest's domain id", spec);
            return -EINVAL;
        }
        g->domid = (uint32_t)v;
        return 0;
    }
    if (libxl_name_to_domid(g->ctx, spec, &g->domid)) {
        g->domid = INVALID_DOMID;
        snprintf(why, len, "no domain called '%s' on this host", spec);
        return -ESRCH;
    }
    return 0;
}

static int xen_open(struct guest **gp, const char *spec, const char *peer,
                    unsigned int flags, char *why, size_t len)
{
    struct xlft_xen_ft_status st;
    struct guest *g = calloc(1, sizeof(*g));
    int rc;

    *gp = NULL;
    if (!g) {
        snprintf(why, len, "out of memory");
        rc = -ENOMEM;
        goto out;
    }
    g->domid = INVALID_DOMID;
    g->ev.local = -1;
    g->dm = -1;
    g->wake = xlft_ack_wake_sender();
    g->flags = flags;
    snprintf(g->peer, sizeof(g->peer), "%s", peer ? peer : "");
    rc = xlft_xen_open(&g->x, why, len);
    if (rc)
        goto out;
    g->log = xtl_createlogger_stdiostream(stderr, XTL_ERROR,
                                          XTL_STDIOSTREAM_HIDE_PROGRESS);
    if (!g->log || libxl_ctx_alloc(&g->ctx, LIBXL_VERSION, 0,
                                   (xentoollog_logger *)g->log)) {
        snprintf(why, len, "cannot open libxl (not dom0 of a Xen host?)");
        rc = -EIO;
        goto out;
    }
    if (flags & BACKEND_F_COPY) {
        /* A secondary: the restore makes it, as this host allows. */
        if (!spec || strlen(spec) >= sizeof(g->copy_from)) {
            snprintf(why, len, "a Xen secondary needs this host's "
                     "configuration of the guest (xen-config)");
            rc = -EINVAL;
            goto out;
        }
        strcpy(g->copy_from, spec);
        goto out;
    }
    if (!spec) {
        snprintf(why, len, "no guest named");
        rc = -EINVAL;
        goto out;
    }
    rc = resolve(g, spec, why, len);
    if (rc)
        goto out;
    /*
     * A hypervisor without FT support is told before anything moves.  A
     * copy that went live is a guest like any other (ft_start).
     */
    rc = xlft_xen_ft_status(g->x, g->domid, &st, why, len);
    if (!rc && st.state != XLFT_XEN_FT_OFF && st.state != XLFT_XEN_FT_LIVE) {
        snprintf(why, len, "domain %u: FT is %s already", g->domid,
                 xlft_xen_ft_state_name(st.state));
        rc = -EBUSY;
    }
    if (rc)
        fail(g, rc, why);
out:
    if (rc) {
        xen_close(g);
        g = NULL;
    }
    *gp = g;
    return rc;
}

/*
 * The patched hypervisor counts the guest's branches on Intel (its PMU),
 * steps on AMD (single-stepping: SVM has no branch counter Xen can use),
 * nothing where it records without a counter (BACKEND_F_UNSAFE_NO_COUNTER)
 * or on a CPU it cannot count on; the CPU is the host's, as dom0 sees
 * its vendor.  FT_CPU_UNKNOWN: neither vendor, where Xen records nothing.
 * Steps asked for (BACKEND_F_STEPS) are counted on Intel too, where the
 * PMU cannot be used; branches asked for on AMD are what Xen refuses.
 */
static void xen_kind(unsigned int flags, uint32_t *counter, uint32_t *cpu)
{
    unsigned int a, b, c, d;
    char v[13];

    *cpu = FT_CPU_UNKNOWN;
    if (__get_cpuid(0, &a, &b, &c, &d)) {
        memcpy(v, &b, 4);
        memcpy(v + 4, &d, 4);
        memcpy(v + 8, &c, 4);
        v[12] = '\0';
        if (!strcmp(v, "GenuineIntel"))
            *cpu = FT_CPU_INTEL;
        else if (!strcmp(v, "AuthenticAMD"))
            *cpu = FT_CPU_AMD;
    }
    if (flags & BACKEND_F_UNSAFE_NO_COUNTER)
        *counter = FT_COUNTER_NONE;
    else if (flags & BACKEND_F_STEPS)
        *counter = FT_COUNTER_STEPS;
    else if (flags & BACKEND_F_BRANCHES)
        *counter = FT_COUNTER_BRANCHES;
    else if (*cpu == FT_CPU_INTEL)
        *counter = FT_COUNTER_BRANCHES;
    else if (*cpu == FT_CPU_AMD)
        *counter = FT_COUNTER_STEPS;
    else
        *counter = FT_COUNTER_NONE;
}

/* Recording (RECORD) or replaying (REPLAY): the ring and its channel. */
static int ft_start(struct guest *g, uint32_t role, uint32_t ring_data,
                    char *why, size_t len)
{
    struct xlft_xen_ft_status st;
    uint32_t counter, cpu, flags;
    int rc;

    xen_kind(g->flags, &counter, &cpu);
    flags = counter == FT_COUNTER_STEPS ? XLFT_XEN_FT_STEPS :
            g->flags & BACKEND_F_UNSAFE_NO_COUNTER ?
            XLFT_XEN_FT_UNSAFE_NO_COUNTER : 0;
    /* A copy that went live here before keeps Xen's state till now. */
    if (role == FT_RING_RECORD &&
        !xlft_xen_ft_status(g->x, g->domid, &st, why, len) &&
        st.state == XLFT_XEN_FT_LIVE &&
        (rc = xlft_xen_ft_disable(g->x, g->domid, why, len)))
        return rc;
    if (role == FT_RING_RECORD) {
        rc = xlft_xen_config_check(g->domid, why, len);
        if (!rc)
            rc = xlft_xen_ft_enable_record(g->x, g->domid, ring_data, flags,
                                           &st, why, len);
    } else {
        rc = xlft_xen_ft_enable_replay(g->x, g->domid, ring_data,
                                       flags & XLFT_XEN_FT_STEPS, &st, why,
                                       len);
    }
    if (rc)
        return rc;
    g->ft_on = true;
    rc = xlft_xen_ring_map(g->x, g->domid, &st, role, &g->ring, why, len);
    if (rc)
        return rc;
    g->have_ring = true;
    rc = xlft_xen_evtchn_bind(g->x, g->domid, st.port, &g->ev, why, len);
    if (rc)
        return rc;
    fprintf(stderr, "ftd: domain %u: %s a ring of %u frames%s, event "
            "channel %u bound to dom0 port %d\n", g->domid,
            role == FT_RING_RECORD ? "recording into" : "replaying from",
            st.nr_frames, st.counter == XLFT_XEN_COUNTER_NONE &&
            role == FT_RING_RECORD ? " (no counter: unsafe)" :
            st.counter == XLFT_XEN_COUNTER_STEPS ? " (counting steps)" : "",
            st.port, g->ev.local);
    return 0;
}

/* Channel, ring, recording: released in that order. */
/*
 * Every caller ends the log in order (the secondary halts its copy, or
 * this one won the claim): the primary's outputs may all go.  Said to
 * its device model (ftdm) as an acknowledgement of every record, before
 * recording stops, so that it can tell this log's end from a new one's
 * start.
 */
static int disable(struct guest *g, char *why, size_t len)
{
    int rc;

    if (g->have_ring && !(g->flags & BACKEND_F_COPY)) {
        ft_ring_set_ack(&g->ring.ring, UINT64_MAX);
        if (g->wake >= 0)
            xlft_ack_wake_send(g->wake, XLFT_ACK_WAKE_DIR, g->domid);
    }
    xlft_xen_evtchn_unbind(g->x, &g->ev);
    if (g->have_ring)
        xlft_xen_ring_unmap(g->x, &g->ring);
    g->have_ring = false;
    if (!g->ft_on)
        return 0;
    g->ft_on = false;
    rc = xlft_xen_ft_disable(g->x, g->domid, why, len);
    if (!rc)
        xs_put(g, "off", NULL);
    return rc;
}

static int set_paused(struct guest *g, bool on, char *why, size_t len)
{
    if (on == g->paused)
        return 0;
    if (on ? libxl_domain_pause(g->ctx, g->domid, NULL)
           : libxl_domain_unpause(g->ctx, g->domid, NULL)) {
        snprintf(why, len, "domain %u: cannot %s it", g->domid,
                 on ? "pause" : "unpause");
        return -EIO;
    }
    g->paused = on;
    return 0;
}

/* The guest suspended for its copy: paused, its devices' state taken. */
static int pause_at_copy(void *arg, uint8_t *dev, uint32_t *dev_len,
                         char *why, size_t len)
{
    struct guest *g = arg;
    int rc = set_paused(g, true, why, len);

    if (rc || g->dm < 0)
        return rc;
    rc = xlft_dm_state(g->dm, g->domid, dev, why, len);
    if (rc < 0)
        return rc;
    *dev_len = (uint32_t)rc;
    return 0;
}

/*
 * Its ftdm frozen until recording starts: no device write may fall
 * between libxl's last pass over its RAM and the log's start.  A guest
 * without ftdm has nothing to freeze.
 */
static int freeze_dm(struct guest *g, char *why, size_t len)
{
    int fd = xlft_dm_freeze(XLFT_ACK_WAKE_DIR, g->domid, why, len);

    if (fd == -ENOENT)
        return 0;
    if (fd < 0)
        return fd;
    g->dm = fd;
    return 0;
}

static void thaw_dm(struct guest *g)
{
    if (g->dm >= 0)
        close(g->dm);
    g->dm = -1;
}

/*
 * The copy's ftdm, from the primary's device state, with the backends
 * this host's configuration of the guest names (shared storage: the
 * same disk), started before the copy replays a thing.
 */
static int start_copy_dm(struct guest *g, const uint8_t *dev,
                         uint32_t dev_len, char *why, size_t len)
{
    struct xlft_xen_cfg_file f;
    char state[64], log[300], err[1024], *name;
    pid_t pid;
    int fd, rc;

    rc = xlft_xen_cfg_file_check(g->copy_from, &f, err, sizeof(err));
    if (rc) {
        snprintf(why, len, "domain %u: the primary's guest has ftdm "
                 "devices, and this host's configuration of it is not "
                 "fit for them: %s", g->domid, err);
        return rc;
    }
    snprintf(state, sizeof(state), "%s/ftdm-state-%u", XLFT_ACK_WAKE_DIR,
             g->domid);
    mkdir(XLFT_ACK_WAKE_DIR, 0700);
    fd = open(state, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
              0600);
    if (fd < 0 || write(fd, dev, dev_len) != (ssize_t)dev_len) {
        rc = -errno;
        snprintf(why, len, "domain %u: cannot write its device state to "
                 "%s: %s", g->domid, state, strerror(errno));
        if (fd >= 0)
            close(fd);
        return rc ? rc : -EIO;
    }
    close(fd);
    name = libxl_domid_to_name(g->ctx, g->domid);
    xlft_dm_log_path(name ? name : f.name, log, sizeof(log));
    free(name);
    pid = xlft_dm_spawn(&f, g->domid, state, log, err, sizeof(err));
    unlink(state);
    if (pid < 0) {
        snprintf(why, len, "%s", err);
        return -EIO;
    }
    fprintf(stderr, "ftd: domain %u: ftdm (pid %ld) serves the copy's "
            "devices, its log %s\n", g->domid, (long)pid, log);
    return 0;
}

static int xen_call(struct guest *g, enum guest_op op, uint32_t arg, int fd,
                    char *why, size_t len)
{
    int rc = 0;

    /* A copy given up: the guest runs on unrecorded, ftdm thaws. */
    if (op == GUEST_UNPAUSE || op == GUEST_DISABLE || op == GUEST_STOP ||
        op == GUEST_HALT)
        thaw_dm(g);
    switch (op) {
    case GUEST_PAUSE:
    case GUEST_UNPAUSE:
        rc = set_paused(g, op == GUEST_PAUSE, why, len);
        break;
    case GUEST_SAVE:
        /*
         * The guest runs during the live phase; the copy's suspend stops
         * it at the consistent point, where it is paused again.
         */
        if (g->paused && (rc = set_paused(g, false, why, len)))
            break;
        thaw_dm(g);
        if ((rc = freeze_dm(g, why, len)))
            break;
        rc = xlft_xen_copy_send(g->domid, fd, g->peer, pause_at_copy, g,
                                why, len);
        if (rc)
            thaw_dm(g);
        if (!g->paused) {
            char more[200];

            set_paused(g, true, more, sizeof(more));
        }
        break;
    case GUEST_RESTORE: {
        static uint8_t dev[XLFT_XEN_COPY_DEV_MAX];
        uint32_t dev_len;
        char *local;

        rc = xlft_xen_local_config(g->copy_from, NULL,
                                   XLFT_COPY_STALL_S * 1000, &local, why,
                                   len);
        if (rc)
            break;
        rc = xlft_xen_copy_recv(fd, g->peer, local, &g->domid, dev,
                                &dev_len, why, len);
        free(local);
        /* libxl leaves the copy paused. */
        g->created = g->paused = !rc;
        if (!rc && dev_len)
            rc = start_copy_dm(g, dev, dev_len, why, len);
        if (!rc)
            fprintf(stderr, "ftd: the copy from %s is domain %u, paused\n",
                    g->peer, g->domid);
        break;
    }
    case GUEST_RECORD:
    case GUEST_REPLAY:
        rc = ft_start(g, op == GUEST_RECORD ? FT_RING_RECORD
                                            : FT_RING_REPLAY, arg, why, len);
        thaw_dm(g);
        if (rc) {
            char more[200];

            disable(g, more, sizeof(more));
        }
        break;
    case GUEST_GOLIVE:
        rc = xlft_xen_ft_go_live(g->x, g->domid, why, len);
        if (!rc) {
            g->created = false;     /* it is the guest now */
            g->live = true;
        }
        break;
    case GUEST_DISABLE:
        rc = disable(g, why, len);
        break;
    case GUEST_STOP:
        rc = disable(g, why, len);
        if (libxl_domain_destroy(g->ctx, g->domid, NULL) && !rc) {
            snprintf(why, len, "domain %u: cannot destroy it", g->domid);
            rc = -EIO;
        }
        g->created = false;
        break;
    case GUEST_THROTTLE:
        rc = xlft_xen_set_speed(g->domid, arg, why, len);
        break;
    case GUEST_HALT:
        /*
         * Paused, not destroyed: the operator may want to look at it,
         * and a paused vCPU starts no new output.
         */
        rc = set_paused(g, true, why, len);
        g->halted = !rc;
        break;
    }
    return rc ? fail(g, rc, why) : 0;
}

/* What the hypervisor says of the domain's FT state. */
static void xen_why_stopped(struct guest *g, char *why, size_t len)
{
    struct xlft_xen_ft_status st;
    char err[300];

    if (xlft_xen_ft_status(g->x, g->domid, &st, err, sizeof(err)))
        snprintf(why, len, "%s", err);
    else
        snprintf(why, len, "domain %u: FT %s stopped at record %llu: %s",
                 g->domid, xlft_xen_ft_state_name(st.state),
                 (unsigned long long)st.seq,
                 st.stopped == -EILSEQ ? "the copy diverged from the log "
                                         "(the ring holds the diagnosis)" :
                 st.stopped == -EBADMSG ? "a malformed log or ring" :
                 st.stopped == -ENOSPC ? "an exit logged more than the "
                                         "ring kept free" :
                 st.stopped ? strerror(-st.stopped) : "the ring flagged");
}

static struct ft_ring *xen_ring(struct guest *g)
{
    return &g->ring.ring;
}

static int xen_ring_fd(struct guest *g)
{
    return xlft_xen_evtchn_fd(g->x);
}

/* Every pending notification: one port per handle, so all are ours. */
static int xen_ring_drain(struct guest *g)
{
    int rc, n = 0;

    while ((rc = xlft_xen_evtchn_pending(g->x, &g->ev)) > 0 && ++n < 64)
        ;
    return rc < 0 ? rc : 0;
}

/*
 * The ack may have moved: ftdm, holding the guest's outputs, reads it
 * from the ring.  Nobody listening (a guest without ftdm) is no error.
 */
static void xen_ring_notify(struct guest *g)
{
    xlft_xen_evtchn_notify(g->x, &g->ev);
    if (g->wake >= 0 && !(g->flags & BACKEND_F_COPY))
        xlft_ack_wake_send(g->wake, XLFT_ACK_WAKE_DIR, g->domid);
}

/*
 * A secondary's guest is created by the restore, as the configuration
 * --xen-config names allows.
 */
static int xen_args_ok(const struct backend_args *a, char *why, size_t len)
{
    if (a->secondary && a->guest)
        snprintf(why, len, "a Xen secondary takes no --guest: the copy "
                 "creates it");
    else if (a->secondary && !a->copy_config)
        snprintf(why, len, "a Xen secondary needs --xen-config FILE: the "
                 "guest's configuration on this host");
    else if (!a->secondary && !a->guest)
        snprintf(why, len, "--guest is needed");
    else if (!a->secondary && a->copy_config)
        snprintf(why, len, "--xen-config: only for a Xen secondary");
    else if (a->flags & BACKEND_F_COUNTER &&
             a->flags & BACKEND_F_UNSAFE_NO_COUNTER)
        snprintf(why, len, "--counter and --unsafe-no-counter exclude "
                 "each other");
    else
        return 0;
    return -EINVAL;
}

/* A guest the service protects is the domain of its name. */
static int xen_guest_spec(const struct ftd_config *c, const char *name,
                          char *spec, size_t len, char *why, size_t whylen)
{
    (void)c;
    (void)why;
    (void)whylen;
    snprintf(spec, len, "%s", name);
    return 0;
}

/*
 * A copy of 'name' is coming: its restore creates the domain, as the
 * guest's xl configuration on this host allows (xen-config).
 */
static int xen_make_copy(const struct ftd_config *c, const char *name,
                         char *cfg, size_t len, char *why, size_t whylen)
{
    const struct ftd_guest *g = ftd_config_guest(c, name);

    if (!g) {
        snprintf(why, whylen, "not configured on this host (add [guest %s] "
                 "with its xen-config to ft.conf)", name);
        return -ENOENT;
    }
    if (!g->xen_config[0]) {
        snprintf(why, whylen, "its section in ft.conf has no xen-config: a "
                 "Xen copy is made only as this host's configuration of "
                 "the guest allows");
        return -ENOENT;
    }
    snprintf(cfg, len, "%s", g->xen_config);
    return 0;
}

const struct backend backend_xen = {
    .name = "xen",
    .kind = xen_kind,
    .open = xen_open,
    .close = xen_close,
    .call = xen_call,
    .why_stopped = xen_why_stopped,
    .ring = xen_ring,
    .ring_fd = xen_ring_fd,
    .ring_drain = xen_ring_drain,
    .ring_notify = xen_ring_notify,
    .status = xs_put,
    .args_ok = xen_args_ok,
    .guest_spec = xen_guest_spec,
    .make_copy = xen_make_copy,
};
