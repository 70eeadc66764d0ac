// SPDX-License-Identifier: GPL-2.0-only
/*
 * xlft-xen.c - drives libxlft's xen backend in a dom0, for the lab's
 * tests (tests/xenlab/tests).
 *
 *   xlft-xen status-write DOMID KEY=VAL...  the keys, in one transaction
 *   xlft-xen control-watch DOMID SECONDS    print each request written to
 *                                           ft/control ("request: R");
 *                                           prints "watching" once set up
 *   xlft-xen ft-status DOMID                the FT domctl's status; when
 *                                           it fails, state=error and the
 *                                           message go to ft/ in xenstore
 *   xlft-xen check-config DOMID             is the domain fit for FT?
 *   xlft-xen record-ring DOMID [CMD]        enable recording, map the
 *                                           Xen-owned ring, check and
 *                                           describe it, bind its event
 *                                           channel and notify Xen; run
 *                                           CMD (sh -c) meanwhile, with
 *                                           XLFT_PORT and XLFT_DOM0_PORT
 *                                           set; unbind, disable again
 *   xlft-xen evtchn-bind DOMID PORT         bind that port as the ring's
 *                                           channel would be, unbind
 *   xlft-xen records DOMID COUNT SECONDS [STALL]
 *                                           enable recording and read
 *                                           COUNT records (at most
 *                                           SECONDS, or until Xen
 *                                           stops it), waking on the
 *                                           channel; describe them,
 *                                           check them, disable again.
 *                                           With STALL: a ring of the
 *                                           least size, left unread
 *                                           until Xen stalls the guest
 *                                           (at most STALL seconds)
 *   xlft-xen ack-hold DOMID SECONDS         record, reading records as
 *                                           Xen wakes; acknowledge only
 *                                           on the line "ack" on stdin
 *                                           (then wake ftdm), or of all
 *                                           read after "auto" until
 *                                           "manual"; print counts on
 *                                           "stats"; end on "end" (in
 *                                           order, as ftd: all acked
 *                                           first), "abandon" (not
 *                                           acked; ftdm woken), EOF
 *                                           or SECONDS; "renew": a new
 *                                           log at once, the last one
 *                                           not acked (as a restarted
 *                                           ftd), none of it acked until
 *                                           its numbers pass the last
 *                                           one's (as while ftd copies
 *                                           the guest), said then
 *   xlft-xen dma DOMID GPA                  DMA as a device model does:
 *                                           recorded, and with FT off
 *   xlft-xen dma-wait DOMID GPA PID         DMA_WAIT_N writes of 4 KiB
 *                                           while the vCPU waits for the
 *                                           device model (PID, stopped
 *                                           meanwhile), into a ring of
 *                                           the least size: all logged
 *                                           once it resumes
 *   xlft-xen hlt-wake DOMID                 an MSI that the guest cannot
 *                                           take (one of its class is in
 *                                           service) wakes it from HLT:
 *                                           a HLT_WAKE record is logged
 *   xlft-xen msi DOMID VECTOR               an MSI of that vector (16 to
 *                                           255) to the guest's APIC 0
 *   xlft-xen dm-suspend DOMID               ask Xen to suspend the guest
 *                                           as a device model may
 *                                           (XEN_DMOP_remote_shutdown);
 *                                           say whether Xen refused
 *   xlft-xen speed DOMID PCT                cap the guest at PCT% of a
 *                                           CPU (100: no cap)
 *   xlft-xen replay DOMID                   enable replay on a paused
 *                                           copy, report, disable again
 *   xlft-xen early-record                   create an HVM domain as a
 *                                           builder does, before its
 *                                           vCPU exists; enable
 *                                           recording on it (Xen must
 *                                           refuse, not crash); destroy
 *   xlft-xen tsc-emulate DOMID              set the TSC mode to always
 *                                           emulate (Xen refuses while
 *                                           FT is on)
 *   xlft-xen copy-send DOMID HOST:PORT [CUT [stall]]
 *                                           send a live copy of the
 *                                           guest (it runs on), wait for
 *                                           the receiver's reply; CUT:
 *                                           only that many bytes get
 *                                           through (a cut stream), and
 *                                           with stall the connection
 *                                           then stays open, silent
 *   xlft-xen copy-recv PORT CONFIG          take one copy on PORT if its
 *                                           configuration agrees with
 *                                           the xl CONFIG here, leave
 *                                           it paused, reply
 *
 * --unsafe-no-counter before the command enables recording on a CPU with
 * no branch counter (the lab's), as test hypervisors allow; --steps
 * records or replays counting steps (single-stepping) instead;
 * --ring-data=BYTES gives record-ring a ring of that size (0: Xen's
 * default).
 *
 * Exit status 0, 1 with a message naming what failed, 2 on bad usage.
 */
#define __XEN_TOOLS__ 1 /* XEN_DOMCTL_createdomain, for early-record */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <xencall.h>
#include <xendevicemodel.h>
#include <xen/domctl.h>
#include <xen/sched.h>
#include <xen/xen.h>

#include "ft_log.h"
#include "xlft_ack_wake.h"
#include "xlft_copy.h"
#include "xlft_xen.h"
#include "xlft_xen_copy.h"
#include "xlft_xen_local.h"
#include "xlft_xen_speed.h"
#include "xlft_xen_config.h"
#include "xlft_xs.h"
#define TEST_NAME "xlft-xen"
#include "testutil.h"

#define MAX_KV 16
#define DMA_TEST_LEN 256
/* dma-wait: more writes, and more bytes, than the ring holds. */
#define DMA_WAIT_N 40
#define DMA_WAIT_LEN 4096
#define DMA_WAIT_STRIDE 8192
/* dma-wait: records read, the guest running on, before QEMU is stopped. */
#define DMA_WAIT_SETTLE 200

static uint32_t enable_flags;
static uint32_t opt_ring_data;   /* --ring-data= */

static int usage(void)
{
    fprintf(stderr, "usage: xlft-xen status-write DOMID KEY=VAL...\n"
            "       xlft-xen control-watch DOMID SECONDS\n"
            "       xlft-xen ft-status DOMID\n"
            "       xlft-xen check-config DOMID\n"
            "       xlft-xen record-ring DOMID [CMD]\n"
            "       xlft-xen evtchn-bind DOMID PORT\n"
            "       xlft-xen copy-send DOMID HOST:PORT [CUT [stall]]\n"
            "       xlft-xen copy-recv PORT CONFIG\n"
            "       xlft-xen records DOMID COUNT SECONDS [STALL]\n"
            "       xlft-xen replay DOMID\n"
            "       xlft-xen speed DOMID PCT\n"
            "       xlft-xen msi DOMID VECTOR\n"
            "       xlft-xen dm-suspend DOMID\n"
            "       xlft-xen dma DOMID GPA\n"
            "       xlft-xen dma-wait DOMID GPA PID\n"
            "       xlft-xen hlt-wake DOMID\n"
            "       xlft-xen tsc-emulate DOMID\n"
            "       xlft-xen early-record\n"
            "       (--unsafe-no-counter before the command: record "
            "without a branch counter; --steps: count steps; "
            "--ring-data=BYTES: record-ring's ring size)\n");
    return 2;
}

static int parse_u32(const char *s, const char *what, uint32_t *v)
{
    char *end;
    unsigned long n;

    errno = 0;
    n = strtoul(s, &end, 10);
    if (errno || !*s || *end || n > UINT32_MAX || *s == '-') {
        fprintf(stderr, "xlft-xen: bad %s '%s'\n", what, s);
        return -1;
    }
    *v = (uint32_t)n;
    return 0;
}

static int status_write(uint32_t domid, int n, char **args)
{
    struct xlft_xs_kv kv[MAX_KV];
    struct xlft_xs *s;
    char err[512];
    int i, rc;

    if (n < 1 || n > MAX_KV)
        return usage();
    for (i = 0; i < n; i++) {
        char *eq = strchr(args[i], '=');

        if (!eq) {
            fprintf(stderr, "xlft-xen: '%s' is not KEY=VAL\n", args[i]);
            return 2;
        }
        *eq = '\0';
        kv[i].key = args[i];
        kv[i].val = eq + 1;
    }
    rc = xlft_xs_open(&s, err, sizeof(err));
    if (!rc) {
        rc = xlft_xs_status_write(s, domid, kv, (size_t)n, err,
                                  sizeof(err));
        xlft_xs_close(s);
    }
    if (rc) {
        fprintf(stderr, "xlft-xen: %s\n", err);
        return 1;
    }
    return 0;
}

static int control_watch(uint32_t domid, uint32_t seconds)
{
    uint64_t end = now_ms() + (uint64_t)seconds * 1000;
    struct xlft_xs *s;
    char err[512], req[XLFT_XS_VAL_MAX + 1];
    int rc;

    rc = xlft_xs_open(&s, err, sizeof(err));
    if (!rc)
        rc = xlft_xs_control_watch(s, domid, err, sizeof(err));
    if (rc)
        goto out;
    printf("watching\n");
    fflush(stdout);
    for (;;) {
        rc = xlft_xs_control_read(s, req, sizeof(req), err, sizeof(err));
        if (rc < 0)
            goto out;
        if (rc) {
            printf("request: %s\n", req);
            fflush(stdout);
            continue;
        }
        uint64_t now = now_ms();
        if (now >= end)
            break;
        struct pollfd p = { .fd = xlft_xs_fd(s), .events = POLLIN };
        if (poll(&p, 1, (int)(end - now)) < 0 && errno != EINTR) {
            snprintf(err, sizeof(err), "poll: %s", strerror(errno));
            rc = -errno;
            goto out;
        }
    }
    rc = 0;
out:
    xlft_xs_close(s);
    if (rc) {
        fprintf(stderr, "xlft-xen: %s\n", err);
        return 1;
    }
    return 0;
}

/* The ring's channel: bound, notified, CMD run while it is, unbound. */
static int ring_evtchn(struct xlft_xen *x, uint32_t domid, uint32_t port,
                       const char *cmd, char *err, size_t errlen)
{
    struct xlft_xen_evtchn e;
    char num[16];
    int rc = xlft_xen_evtchn_bind(x, domid, port, &e, err, errlen);

    if (rc)
        return rc;
    printf("evtchn: domain %" PRIu32 " port %" PRIu32 " bound to dom0 "
           "port %d\n", domid, port, e.local);
    rc = xlft_xen_evtchn_notify(x, &e);
    if (rc) {
        snprintf(err, errlen, "domain %u: cannot notify port %u: %s", domid,
                 port, strerror(-rc));
    } else {
        /*
         * Xen marks a freshly bound port pending, in case its other end
         * was signalled before: that one notification reaches dom0.
         */
        printf("evtchn: notified, %d pending for dom0\n",
               xlft_xen_evtchn_pending(x, &e));
    }
    if (!rc && cmd) {
        fflush(stdout);
        snprintf(num, sizeof(num), "%" PRIu32, port);
        setenv("XLFT_PORT", num, 1);
        snprintf(num, sizeof(num), "%d", e.local);
        setenv("XLFT_DOM0_PORT", num, 1);
        rc = system(cmd);
        printf("cmd: status %d\n", rc);
        rc = 0;
    }
    xlft_xen_evtchn_unbind(x, &e);
    if (!rc)
        printf("evtchn: unbound\n");
    return rc;
}

static int record_ring(uint32_t domid, const char *cmd)
{
    struct xlft_xen_ft_status st;
    struct xlft_xen_ring r;
    struct xlft_xen *x = NULL;
    char err[512] = "";
    int rc = xlft_xen_open(&x, err, sizeof(err));

    if (!rc)
        rc = xlft_xen_ft_enable_record(x, domid, opt_ring_data,
                                       enable_flags, &st, err, sizeof(err));
    if (!rc) {
        printf("enabled: state %s frames %" PRIu32 " port %" PRIu32 "\n",
               xlft_xen_ft_state_name(st.state), st.nr_frames, st.port);
        rc = xlft_xen_ring_map(x, domid, &st, FT_RING_RECORD, &r, err,
                               sizeof(err));
        if (!rc) {
            int avail = ft_ring_avail(&r.ring);

            printf("ring: %" PRIu32 " bytes mapped, a record ring of ABI "
                   "%u counting %s on %s, %d bytes of records in it\n",
                   r.size, FT_ABI_VERSION, ft_counter_name(r.ring.counter),
                   ft_cpu_name(r.ring.cpu), avail);
            rc = ring_evtchn(x, domid, st.port, cmd, err, sizeof(err));
            xlft_xen_ring_unmap(x, &r);
        }
        if (xlft_xen_ft_disable(x, domid, err + strlen(err),
                                sizeof(err) - strlen(err)) && !rc)
            rc = -EIO;
    }
    if (!rc && !(rc = xlft_xen_ft_status(x, domid, &st, err, sizeof(err))))
        printf("disabled: state %s\n", xlft_xen_ft_state_name(st.state));
    if (x)
        xlft_xen_close(x);
    if (rc)
        fprintf(stderr, "xlft-xen: %s\n", err);
    return rc ? 1 : 0;
}

/* What the records read so far say, kind by kind. */
struct tally {
    uint64_t n, bytes;
    uint64_t kinds[FT_K_NR];
    uint64_t last_tsc;
    uint32_t shown[FT_K_NR];
    struct ft_codec codec;
    bool want_dma, dma_seen;     /* stop at the first DMA record */
    uint64_t dma_gpa;
    uint32_t dma_len;
    uint8_t dma_data[DMA_TEST_LEN];
    /* dma-wait: the writes expected from wait_base on, those seen. */
    uint64_t wait_base;
    uint32_t wait_seen;
    bool wait_bad;
    bool want_hlt_wake;          /* stop at the first HLT_WAKE record */
    int want_vector;             /* stop at an interrupt of this vector */
    bool vector_seen;
    bool quiet;                  /* ack-hold: no record shown */
    uint64_t dma_bytes;
};

/* The bytes dma-wait writes as its write 'i'. */
static uint8_t wait_byte(uint32_t i, uint32_t off)
{
    return (uint8_t)(i * 31 + off * 7 + 1);
}

/* A DMA record of dma-wait's: one whole write, with its bytes. */
static void tally_wait(struct tally *t, const struct ft_log_rec *r)
{
    uint64_t off = r->u.dma.gpa - t->wait_base;
    uint32_t i = (uint32_t)(off / DMA_WAIT_STRIDE);

    if (r->u.dma.gpa < t->wait_base || off % DMA_WAIT_STRIDE ||
        i >= DMA_WAIT_N || r->u.dma.len != DMA_WAIT_LEN) {
        t->wait_bad = true;
        return;
    }
    for (uint32_t k = 0; k < DMA_WAIT_LEN; k++)
        if (r->u.dma.data[k] != wait_byte(i, k))
            t->wait_bad = true;
    t->wait_seen++;
}

/* drain() has read what it was asked to. */
static bool tally_done(const struct tally *t, uint64_t count)
{
    return t->n >= count || (t->want_dma && t->dma_seen) ||
           (t->wait_base && t->wait_seen == DMA_WAIT_N) ||
           (t->want_hlt_wake && t->kinds[FT_K_HLT_WAKE]) ||
           (t->want_vector && t->vector_seen);
}

static void show(const struct ft_log_rec *r)
{
    printf("record %s at count %" PRIu64 " rip 0x%" PRIx64 " rcx 0x%"
           PRIx64, ft_log_kind_name(r->kind), (uint64_t)r->pt.count,
           (uint64_t)r->pt.rip, (uint64_t)r->pt.rcx);
    switch (r->kind) {
    case FT_K_EXTINT:
        printf(": vector 0x%x from the %s%s", r->u.intr.vector,
               r->u.intr.src == FT_INTR_PIC ? "PIC" : "local APIC",
               r->u.intr.timer ? ", a timer's tick" : "");
        break;
    case FT_K_EVENT:
        printf(": type %u vector 0x%x", r->u.event.type, r->u.event.vector);
        break;
    case FT_K_TSC:
        printf(": 0x%" PRIx64, r->u.tsc.value);
        break;
    case FT_K_MSR:
        printf(": msr 0x%x = 0x%" PRIx64, r->u.msr.index, r->u.msr.value);
        break;
    case FT_K_PIO:
        printf(": port 0x%x size %u = 0x%x", r->u.pio.port, r->u.pio.size,
               r->u.pio.value);
        break;
    case FT_K_MMIO:
        printf(": gpa 0x%" PRIx64 " size %u = 0x%" PRIx64, r->u.mmio.gpa,
               r->u.mmio.size, r->u.mmio.value);
        break;
    case FT_K_DMA:
        printf(": gpa 0x%" PRIx64 " %u bytes%s", r->u.dma.gpa, r->u.dma.len,
               r->u.dma.insn ? ", a string read's" : "");
        break;
    }
    printf("\n");
}

/* Decode and check 'len' bytes of whole records. */
static int tally(struct tally *t, const uint8_t *buf, uint32_t len,
                 char *err, size_t errlen)
{
    struct ft_log_rec r;
    uint32_t off = 0;
    int n;

    while (off < len) {
        n = ft_log_decode(&t->codec, buf + off, len - off, &r);
        if (n < 0) {
            snprintf(err, errlen, "record %" PRIu64 " does not decode: %s",
                     t->n + 1, ft_strerror(n));
            return -EBADMSG;
        }
        t->n++;
        t->kinds[r.kind]++;
        if (r.kind == FT_K_TSC) {
            if (r.u.tsc.value < t->last_tsc) {
                snprintf(err, errlen, "record %" PRIu64 ": the TSC went "
                         "back from %#" PRIx64 " to %#" PRIx64, t->n,
                         t->last_tsc, r.u.tsc.value);
                return -EBADMSG;
            }
            t->last_tsc = r.u.tsc.value;
        }
        if (r.kind == FT_K_DMA && !t->dma_seen && r.u.dma.data) {
            t->dma_seen = true;
            t->dma_gpa = r.u.dma.gpa;
            t->dma_len = r.u.dma.len;
            memcpy(t->dma_data, r.u.dma.data,
                   r.u.dma.len < DMA_TEST_LEN ? r.u.dma.len : DMA_TEST_LEN);
        }
        if (r.kind == FT_K_DMA && t->wait_base)
            tally_wait(t, &r);
        if (r.kind == FT_K_EXTINT && r.u.intr.vector == t->want_vector)
            t->vector_seen = true;
        if (r.kind == FT_K_DMA)
            t->dma_bytes += r.u.dma.len;
        if (!t->quiet && t->shown[r.kind]++ < 2)
            show(&r);
        ft_codec_advance(&t->codec, &r);
        off += (uint32_t)n;
    }
    t->bytes += len;
    return 0;
}

/* 1 if Xen stopped the guest's recording, 0 if not, or -errno. */
static int stopped(struct xlft_xen *x, uint32_t domid, char *err,
                   size_t errlen)
{
    struct xlft_xen_ft_status st;
    int rc = xlft_xen_ft_status(x, domid, &st, err, errlen);

    return rc ? rc : st.stopped != 0;
}

/*
 * Read records until 'count', the deadline or Xen's stop, woken by the
 * channel.
 */
static int drain(struct xlft_xen *x, struct xlft_xen_ring *r,
                 const struct xlft_xen_evtchn *e, struct tally *t,
                 uint64_t count, uint32_t seconds, char *err,
                 size_t errlen)
{
    static uint8_t buf[4 * FT_LOG_REC_MAX];
    struct timespec now, end;
    struct pollfd pfd = { .fd = xlft_xen_evtchn_fd(x), .events = POLLIN };
    uint32_t nrec;
    bool notify, last = false;
    int n, rc;

    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += seconds;
    while (!tally_done(t, count)) {
        n = ft_ring_read_records(&r->ring, buf, sizeof(buf), &nrec,
                                 &notify);
        if (n < 0) {
            snprintf(err, errlen, "domain %u: the record ring: %s",
                     e->domid, ft_strerror(n));
            return -EPROTO;
        }
        if (notify && (rc = xlft_xen_evtchn_notify(x, e))) {
            snprintf(err, errlen, "domain %u: cannot notify Xen: %s",
                     e->domid, strerror(-rc));
            return rc;
        }
        if (n) {
            rc = tally(t, buf, (uint32_t)n, err, errlen);
            if (rc)
                return rc;
            continue;
        }
        if (last)
            break;
        if (ft_ring_wait(&r->ring) == FT_OK)
            continue;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > end.tv_sec ||
            (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
            break;
        rc = poll(&pfd, 1, (int)((end.tv_sec - now.tv_sec) * 1000 +
                                 (end.tv_nsec - now.tv_nsec) / 1000000));
        if (rc < 0) {
            snprintf(err, errlen, "domain %u: waiting for records: %s",
                     e->domid, strerror(errno));
            return -errno;
        }
        if (rc && (rc = xlft_xen_evtchn_pending(x, e)) < 0) {
            snprintf(err, errlen, "domain %u: its channel: %s", e->domid,
                     strerror(-rc));
            return rc;
        }
        /* Xen signals a stop too: what the ring holds is the last. */
        if (rc && (rc = stopped(x, e->domid, err, errlen)) < 0)
            return rc;
        last = rc == 1;
    }
    return 0;
}

/*
 * Leave the ring unread until Xen flags its producer stalled: the guest
 * then waits for room (at most 'seconds', looking every 50 ms).
 */
static int await_stall(struct xlft_xen_ring *r, uint32_t domid,
                       uint32_t seconds, char *err, size_t errlen)
{
    const struct timespec step = { .tv_nsec = 50 * 1000 * 1000 };
    uint32_t i, steps = seconds * 20;
    int avail;

    for (i = 0; i < steps; i++) {
        if (ft_ring_flags(&r->ring) & FT_RING_F_STALLED) {
            avail = ft_ring_avail(&r->ring);
            printf("stalled: after %u ms, %d of %u bytes in the ring\n",
                   i * 50, avail, r->ring.size);
            return 0;
        }
        nanosleep(&step, NULL);
    }
    snprintf(err, errlen, "domain %u: the ring was left unread for %u s "
             "and Xen did not stall the guest", domid, seconds);
    return -ETIMEDOUT;
}

/* Recording on a domain: its ring mapped, its channel bound. */
struct rec {
    uint32_t domid;
    bool on;
    struct xlft_xen_ft_status st;
    struct xlft_xen_ring r;
    struct xlft_xen_evtchn e;
};

/* Enable recording into a ring of 'ring_data' bytes (0: default). */
static int rec_start(struct xlft_xen *x, struct rec *s, uint32_t domid,
                     uint32_t ring_data, char *err, size_t errlen)
{
    int rc = xlft_xen_ft_enable_record(x, domid, ring_data, enable_flags,
                                       &s->st, err, errlen);

    if (rc)
        return rc;
    s->on = true;
    rc = xlft_xen_ring_map(x, domid, &s->st, FT_RING_RECORD, &s->r, err,
                           errlen);
    if (!rc)
        rc = xlft_xen_evtchn_bind(x, domid, s->st.port, &s->e, err, errlen);
    return rc;
}

/* Unbind, unmap, disable: 'rc', or -EIO if only the disable failed. */
static int rec_stop(struct xlft_xen *x, struct rec *s, int rc, char *err,
                    size_t errlen)
{
    size_t used = strlen(err);

    if (s->e.local >= 0)
        xlft_xen_evtchn_unbind(x, &s->e);
    if (s->r.res)
        xlft_xen_ring_unmap(x, &s->r);
    if (s->on && xlft_xen_ft_disable(x, s->domid, err + used, errlen - used)
        && !rc)
        rc = -EIO;
    s->on = false;
    return rc;
}

static int records(uint32_t domid, uint32_t count, uint32_t seconds,
                   uint32_t stall)
{
    static struct tally t;
    struct rec s = { .domid = domid, .e.local = -1 };
    struct xlft_xen *x = NULL;
    struct timespec t0, t1;
    char err[512] = "";
    int rc = xlft_xen_open(&x, err, sizeof(err));

    if (rc)
        goto out;
    rc = rec_start(x, &s, domid, stall ? FT_RING_MIN_DATA : 0, err,
                   sizeof(err));
    if (!rc)
        printf("enabled: counter %s\n",
               s.st.counter == XLFT_XEN_COUNTER_BRANCHES ? "branches" :
               s.st.counter == XLFT_XEN_COUNTER_STEPS ? "steps" : "none");
    ft_codec_init(&t.codec);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!rc && stall)
        rc = await_stall(&s.r, domid, stall, err, sizeof(err));
    if (!rc)
        rc = drain(x, &s.r, &s.e, &t, count, seconds, err, sizeof(err));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!rc) {
        printf("records: %" PRIu64 " (%" PRIu64 " bytes) in %ld ms:",
               t.n, t.bytes, (long)((t1.tv_sec - t0.tv_sec) * 1000 +
                                   (t1.tv_nsec - t0.tv_nsec) / 1000000));
        for (unsigned int k = 0; k < FT_K_NR; k++)
            if (t.kinds[k])
                printf(" %s %" PRIu64, ft_log_kind_name(k), t.kinds[k]);
        printf("\n");
    }
    if (!rc && !(rc = xlft_xen_ft_status(x, domid, &s.st, err, sizeof(err))))
        printf("status: seq %" PRIu64 " stopped %" PRId32 "\n", s.st.seq,
               s.st.stopped);
    rc = rec_stop(x, &s, rc, err, sizeof(err));
    if (!rc)
        printf("disabled\n");
out:
    if (x)
        xlft_xen_close(x);
    if (rc)
        fprintf(stderr, "xlft-xen: %s\n", err);
    return rc ? 1 : 0;
}

/* ack-hold: the secondary holds all read so far; ftdm is told. */
static uint64_t hold_ack(struct xlft_xen *x, struct rec *s, int wake)
{
    uint64_t at = ft_ring_cons_seq(&s->r.ring);

    ft_ring_set_ack(&s->r.ring, at);
    xlft_xen_evtchn_notify(x, &s->e);
    xlft_ack_wake_send(wake, XLFT_ACK_WAKE_DIR, s->domid);
    return at;
}

/* ack-hold: one line of stdin.  1 at its end (2: abandoned, 3: to be
 * renewed), 0 or -errno. */
static int hold_line(struct xlft_xen *x, struct rec *s,
                     const struct tally *t, int wake, bool *autoack,
                     char *err, size_t errlen)
{
    char line[64];

    if (!fgets(line, sizeof(line), stdin))
        return 1;
    if (!strcmp(line, "end\n")) {
        ft_ring_set_ack(&s->r.ring, UINT64_MAX);
        xlft_ack_wake_send(wake, XLFT_ACK_WAKE_DIR, s->domid);
        return 1;
    }
    if (!strcmp(line, "abandon\n"))
        return 2;
    if (!strcmp(line, "renew\n"))
        return 3;
    if (!strcmp(line, "ack\n")) {
        printf("acked %" PRIu64 "\n", hold_ack(x, s, wake));
    } else if (!strcmp(line, "auto\n") || !strcmp(line, "manual\n")) {
        *autoack = line[0] == 'a';
        if (*autoack)
            hold_ack(x, s, wake);
        printf("ack-hold: %s\n", *autoack ? "acknowledging all" :
               "acknowledging when told");
    } else if (!strcmp(line, "stats\n")) {
        printf("ack-hold: %" PRIu64 " records, %" PRIu64 " DMA (%" PRIu64
               " bytes), acked %" PRIu64 "\n", t->n, t->kinds[FT_K_DMA],
               t->dma_bytes, ft_ring_ack(&s->r.ring));
    } else {
        snprintf(err, errlen, "ack-hold: unknown line '%.*s'",
                 (int)strcspn(line, "\n"), line);
        return -EINVAL;
    }
    fflush(stdout);
    return 0;
}

/*
 * Record with the acknowledgement in the test's hands: the secondary
 * that ftdm's output rule waits for, acknowledging only when told.
 */
static int ack_hold(uint32_t domid, uint32_t seconds)
{
    static struct tally t;
    static uint8_t buf[4 * FT_LOG_REC_MAX];
    struct rec s = { .domid = domid, .e.local = -1 };
    struct xlft_xen *x = NULL;
    char err[512] = "";
    time_t end = time(NULL) + seconds;
    int wake = xlft_ack_wake_sender(), rc;
    bool autoack = false, abandon = false;
    uint64_t past = 0;          /* a renewed log's numbers to pass */

    /* Unbuffered: a line not yet taken stays where poll sees it. */
    setvbuf(stdin, NULL, _IONBF, 0);
    rc = xlft_xen_open(&x, err, sizeof(err));
    if (!rc)
        rc = rec_start(x, &s, domid, 0, err, sizeof(err));
    t.quiet = true;
    ft_codec_init(&t.codec);
    if (!rc) {
        printf("ack-hold: recording\n");
        fflush(stdout);
    }
    while (!rc && time(NULL) < end) {
        struct pollfd pfd[2] = {
            { .fd = xlft_xen_evtchn_fd(x), .events = POLLIN },
            { .fd = 0, .events = POLLIN },
        };
        uint32_t nrec;
        bool notify;
        int n = ft_ring_read_records(&s.r.ring, buf, sizeof(buf), &nrec,
                                     &notify);

        if (n < 0) {
            snprintf(err, sizeof(err), "domain %u: the record ring: %s",
                     domid, ft_strerror(n));
            rc = -EPROTO;
            break;
        }
        if (notify)
            xlft_xen_evtchn_notify(x, &s.e);
        if (n) {
            rc = tally(&t, buf, (uint32_t)n, err, sizeof(err));
            /* A renewed log waits for its copy: no ack, ftdm not woken. */
            if (autoack && !past)
                hold_ack(x, &s, wake);
            if (past && ft_ring_cons_seq(&s.r.ring) > past) {
                printf("ack-hold: the new log is past record %" PRIu64
                       " of the last\n", past);
                fflush(stdout);
                past = 0;
            }
        } else if (ft_ring_wait(&s.r.ring) == FT_OK) {
            continue;
        }
        /* A busy ring never starves the commands. */
        if (!rc && poll(pfd, 2, n ? 0 : 1000) < 0) {
            rc = -errno;
            snprintf(err, sizeof(err), "ack-hold: poll: %s",
                     strerror(errno));
            break;
        }
        if (pfd[0].revents)
            xlft_xen_evtchn_pending(x, &s.e);
        if (pfd[1].revents && (rc = hold_line(x, &s, &t, wake, &autoack,
                                              err, sizeof(err))) == 3) {
            past = ft_ring_cons_seq(&s.r.ring);
            ft_codec_init(&t.codec);
            rc = rec_stop(x, &s, 0, err, sizeof(err));
            if (!rc)
                rc = rec_start(x, &s, domid, 0, err, sizeof(err));
            if (!rc)
                printf("ack-hold: renewed after record %" PRIu64
                       ", not acknowledged\n", past);
            fflush(stdout);
        } else if (rc > 0) {
            abandon = rc == 2;
            rc = 0;
            break;
        }
    }
    rc = rec_stop(x, &s, rc, err, sizeof(err));
    /* Abandoned: ftdm made to look at once, and see no end in order. */
    if (abandon)
        xlft_ack_wake_send(wake, XLFT_ACK_WAKE_DIR, domid);
    if (!rc)
        printf("ack-hold: disabled%s\n", abandon ? ", not acknowledged" :
               "");
    if (x)
        xlft_xen_close(x);
    if (wake >= 0)
        close(wake);
    if (rc)
        fprintf(stderr, "xlft-xen: %s\n", err);
    return rc ? 1 : 0;
}

/* The guest's memory at 'gpa' is 'want'. */
static int guest_has(uint32_t domid, uint64_t gpa, const uint8_t *want,
                     uint32_t len, char *err, size_t errlen)
{
    xenforeignmemory_handle *fm = xenforeignmemory_open(NULL, 0);
    xen_pfn_t pfn = gpa >> 12;
    uint8_t *page;
    int rc = 0;

    if (!fm) {
        snprintf(err, errlen, "cannot open libxenforeignmemory: %s",
                 strerror(errno));
        return -errno;
    }
    page = xenforeignmemory_map(fm, domid, PROT_READ, 1, &pfn, NULL);
    if (!page) {
        rc = -errno;
        snprintf(err, errlen, "domain %u: cannot map gfn %#" PRIx64 ": %s",
                 domid, (uint64_t)pfn, strerror(errno));
    } else {
        if (memcmp(page + (gpa & 4095), want, len)) {
            snprintf(err, errlen, "domain %u: memory at %#" PRIx64 " is not "
                     "what was written", domid, gpa);
            rc = -EIO;
        }
        xenforeignmemory_unmap(fm, page, 1);
    }
    xenforeignmemory_close(fm);
    return rc;
}

/*
 * A DMA write while the ring, left unread, is full: refused once the
 * library has tried for its while, and nothing written.
 */
static int dma_full(struct xlft_xen *x, struct rec *s, uint64_t gpa,
                    const uint8_t *bytes, uint32_t len, char *err,
                    size_t errlen)
{
    char why[512] = "";
    int rc = await_stall(&s->r, s->domid, 90, err, errlen);

    if (rc)
        return rc;
    rc = xlft_xen_dm_write(x, s->domid, gpa, bytes, len, why, sizeof(why));
    if (rc != -EBUSY) {
        snprintf(err, errlen, "domain %u: a DMA write into a full ring "
                 "answered %d (%s), not -EBUSY", s->domid, rc, why);
        return rc ? rc : -EPROTO;
    }
    printf("dma: ring full: %s\n", why);
    rc = guest_has(s->domid, gpa, bytes, len, why, sizeof(why));
    if (rc != -EIO) {
        snprintf(err, errlen, "domain %u: after a DMA write refused with "
                 "-EBUSY: %s", s->domid,
                 rc ? why : "the bytes are in the guest's memory");
        return rc ? rc : -EPROTO;
    }
    printf("dma: nothing written\n");
    return 0;
}

/*
 * DMA as a device model does it (XEN_DMOP_ft_write) while recording:
 * refused while the ring is full (dma_full); once it is drained, the
 * bytes land in the guest and come out of the ring as a DMA record;
 * then with FT off, where they are simply written.
 */
static int dma(uint32_t domid, uint64_t gpa)
{
    static struct tally t;
    struct rec s = { .domid = domid, .e.local = -1 };
    struct xlft_xen *x = NULL;
    uint8_t bytes[DMA_TEST_LEN];
    char err[512] = "";
    int rc = xlft_xen_open(&x, err, sizeof(err));

    for (unsigned int i = 0; i < sizeof(bytes); i++)
        bytes[i] = (uint8_t)(i * 7 + 3);
    if (rc)
        goto out;
    ft_codec_init(&t.codec);
    t.want_dma = true;
    rc = rec_start(x, &s, domid, FT_RING_MIN_DATA, err, sizeof(err));
    if (!rc)
        rc = dma_full(x, &s, gpa, bytes, sizeof(bytes), err, sizeof(err));
    /* Room again: the ring read until empty (no time to wait). */
    if (!rc)
        rc = drain(x, &s.r, &s.e, &t, UINT64_MAX, 0, err, sizeof(err));
    if (!rc)
        rc = xlft_xen_dm_write(x, domid, gpa, bytes, sizeof(bytes), err,
                               sizeof(err));
    if (!rc)
        rc = drain(x, &s.r, &s.e, &t, UINT64_MAX, 30, err, sizeof(err));
    if (!rc && !t.dma_seen) {
        snprintf(err, sizeof(err), "domain %u: no DMA record in 30 s "
                 "after the write", domid);
        rc = -ETIMEDOUT;
    }
    if (!rc && (t.dma_gpa != gpa || t.dma_len != sizeof(bytes) ||
                memcmp(t.dma_data, bytes, sizeof(bytes)))) {
        snprintf(err, sizeof(err), "domain %u: the DMA record says %u bytes "
                 "at %#" PRIx64 ", not what was written", domid, t.dma_len,
                 t.dma_gpa);
        rc = -EBADMSG;
    }
    if (!rc)
        printf("dma: record %" PRIu64 ", %u bytes at %#" PRIx64 ", as "
               "written\n", t.n, t.dma_len, t.dma_gpa);
    if (!rc)
        rc = guest_has(domid, gpa, bytes, sizeof(bytes), err, sizeof(err));
    if (!rc)
        printf("dma: in the guest's memory\n");
    rc = rec_stop(x, &s, rc, err, sizeof(err));
    for (unsigned int i = 0; i < sizeof(bytes); i++)
        bytes[i] = (uint8_t)(255 - i);
    if (!rc)
        rc = xlft_xen_dm_write(x, domid, gpa, bytes, sizeof(bytes), err,
                               sizeof(err));
    if (!rc)
        rc = guest_has(domid, gpa, bytes, sizeof(bytes), err, sizeof(err));
    if (!rc)
        printf("dma: FT off, written at once\n");
out:
    if (x)
        xlft_xen_close(x);
    if (rc)
        fprintf(stderr, "xlft-xen: %s\n", err);
    return rc ? 1 : 0;
}

/* Read records until none comes for a second: the vCPU is blocked. */
static int drain_quiet(struct xlft_xen *x, struct rec *s, struct tally *t,
                       char *err, size_t errlen)
{
    uint64_t before;
    int rc;

    for (unsigned int i = 0; i < 30; i++) {
        before = t->n;
        rc = drain(x, &s->r, &s->e, t, UINT64_MAX, 1, err, errlen);
        if (rc || t->n == before)
            return rc;
    }
    snprintf(err, errlen, "domain %u: records kept coming for 30 s with "
             "its device model stopped", s->domid);
    return -ETIMEDOUT;
}

/*
 * While the vCPU waits for the device model (stopped with SIGSTOP), a
 * device model writes more, and in more pieces, than the ring holds:
 * once the vCPU resumes, every write comes out whole as a DMA record
 * with its bytes, and recording goes on.
 */
static int dma_wait(uint32_t domid, uint64_t gpa, pid_t dm)
{
    static struct tally t;
    static uint8_t bytes[DMA_WAIT_LEN];
    struct rec s = { .domid = domid, .e.local = -1 };
    struct xlft_xen *x = NULL;
    char err[512] = "";
    bool stopped = false;
    int rc = xlft_xen_open(&x, err, sizeof(err));

    if (rc)
        goto out;
    ft_codec_init(&t.codec);
    rc = rec_start(x, &s, domid, FT_RING_MIN_DATA, err, sizeof(err));
    /*
     * Xen unmaps shared_info at enable, so when the vCPU is next scheduled
     * in it waits for the device model to drop its map cache, with no I/O
     * of the guest's pending: stopped then, the device model would never
     * answer.  The guest halts between ticks, so records of many ticks
     * say that wait is over.
     */
    if (!rc)
        rc = drain(x, &s.r, &s.e, &t, DMA_WAIT_SETTLE, 10, err,
                   sizeof(err));
    if (!rc && t.n < DMA_WAIT_SETTLE) {
        snprintf(err, sizeof(err), "domain %u: %" PRIu64 " records in "
                 "10 s after recording started", domid, t.n);
        rc = -ETIMEDOUT;
    }
    if (!rc && kill(dm, SIGSTOP)) {
        rc = -errno;
        snprintf(err, sizeof(err), "cannot stop process %d: %s", (int)dm,
                 strerror(errno));
    }
    stopped = !rc;
    if (!rc)
        rc = drain_quiet(x, &s, &t, err, sizeof(err));
    if (!rc)
        printf("dma-wait: no record for 1 s after %" PRIu64 "\n", t.n);
    t.wait_base = gpa;
    for (uint32_t i = 0; !rc && i < DMA_WAIT_N; i++) {
        for (uint32_t k = 0; k < DMA_WAIT_LEN; k++)
            bytes[k] = wait_byte(i, k);
        rc = xlft_xen_dm_write(x, domid, gpa + (uint64_t)i * DMA_WAIT_STRIDE,
                               bytes, sizeof(bytes), err, sizeof(err));
    }
    if (stopped && kill(dm, SIGCONT) && !rc) {
        rc = -errno;
        snprintf(err, sizeof(err), "cannot continue process %d: %s",
                 (int)dm, strerror(errno));
    }
    if (!rc)
        rc = drain(x, &s.r, &s.e, &t, UINT64_MAX, 60, err, sizeof(err));
    if (!rc && (t.wait_bad || t.wait_seen != DMA_WAIT_N)) {
        snprintf(err, sizeof(err), "domain %u: %u of %u writes came out as "
                 "DMA records%s", domid, t.wait_seen, DMA_WAIT_N,
                 t.wait_bad ? ", and some not as written" : "");
        rc = -EBADMSG;
    }
    if (!rc)
        printf("dma-wait: %u DMA records, %u bytes, as written, in a ring "
               "of %u\n", t.wait_seen, t.wait_seen * DMA_WAIT_LEN,
               s.r.ring.size);
    if (!rc && !(rc = xlft_xen_ft_status(x, domid, &s.st, err, sizeof(err))))
        printf("dma-wait: status stopped %" PRId32 "\n", s.st.stopped);
    rc = rec_stop(x, &s, rc, err, sizeof(err));
out:
    if (x)
        xlft_xen_close(x);
    if (rc)
        fprintf(stderr, "xlft-xen: %s\n", err);
    return rc ? 1 : 0;
}

/*
 * Read records until none comes for 30 ms (at most 3 s): the vCPU is
 * then most likely in HLT, not busy.
 */
static int settle(struct xlft_xen *x, struct rec *s, struct tally *t,
                  char *err, size_t errlen)
{
    const struct timespec pause = { .tv_nsec = 30 * 1000 * 1000 };
    uint64_t before;
    int rc;

    for (unsigned int i = 0; i < 100; i++) {
        before = t->n;
        nanosleep(&pause, NULL);
        rc = drain(x, &s->r, &s->e, t, UINT64_MAX, 0, err, errlen);
        if (rc || t->n == before)
            return rc;
    }
    return 0;
}

/* An MSI to the guest's local APIC: fixed delivery to APIC 0. */
static int msi(xendevicemodel_handle *dm, uint32_t domid, uint8_t vector,
               char *err, size_t errlen)
{
    if (!xendevicemodel_inject_msi(dm, (domid_t)domid, 0xfee00000, vector))
        return 0;
    snprintf(err, errlen, "domain %u: cannot inject an MSI: %s", domid,
             strerror(errno));
    return -errno;
}

/* libxendevicemodel for one command; NULL said on stderr. */
static xendevicemodel_handle *dm_open(void)
{
    xendevicemodel_handle *dm = xendevicemodel_open(NULL, 0);

    if (!dm)
        fprintf(stderr, "xlft-xen: cannot open libxendevicemodel: %s\n",
                strerror(errno));
    return dm;
}

static int msi_once(uint32_t domid, uint8_t vector)
{
    xendevicemodel_handle *dm = dm_open();
    char err[300];
    int rc;

    if (!dm)
        return 1;
    rc = msi(dm, domid, vector, err, sizeof(err));
    if (rc)
        fprintf(stderr, "xlft-xen: %s\n", err);
    xendevicemodel_close(dm);
    return rc ? 1 : 0;
}

/*
 * A device model's suspend, the way QEMU asks for one on the guest's
 * behalf: printed either way, for the test to judge (exit 0 if Xen
 * answered at all).
 */
static int dm_suspend(uint32_t domid)
{
    xendevicemodel_handle *dm = dm_open();
    int rc;

    if (!dm)
        return 1;
    rc = xendevicemodel_shutdown(dm, (domid_t)domid, SHUTDOWN_suspend);
    if (rc)
        printf("dm-suspend: domain %u: refused: %s\n", domid,
               strerror(errno));
    else
        printf("dm-suspend: domain %u: suspended\n", domid);
    xendevicemodel_close(dm);
    return 0;
}

/*
 * The guest takes an MSI of vector 0x27 as its IRQ 7 and acknowledges
 * it to its PIC alone: the vector stays in service in its local APIC.
 * Another of the same priority class then wakes the vCPU from HLT
 * but gives it nothing to take: the guest goes on past HLT, which
 * Xen logs as a HLT_WAKE record.  The timer comes through the PIC,
 * which the local APIC's priorities do not hold.
 */
static int hlt_wake(uint32_t domid)
{
    static struct tally t;
    struct rec s = { .domid = domid, .e.local = -1 };
    struct xlft_xen *x = NULL;
    xendevicemodel_handle *dm = NULL;
    char err[512] = "";
    unsigned int tries = 0;
    int rc = xlft_xen_open(&x, err, sizeof(err));

    if (rc)
        goto out;
    dm = xendevicemodel_open(NULL, 0);
    if (!dm) {
        rc = -errno;
        snprintf(err, sizeof(err), "cannot open libxendevicemodel: %s",
                 strerror(errno));
        goto out;
    }
    ft_codec_init(&t.codec);
    rc = rec_start(x, &s, domid, 0, err, sizeof(err));
    if (!rc)
        rc = drain(x, &s.r, &s.e, &t, 2000, 30, err, sizeof(err));
    if (!rc)
        printf("hlt-wake: %" PRIu64 " records, %" PRIu64 " of them "
               "HLT_WAKE, before the MSI\n", t.n, t.kinds[FT_K_HLT_WAKE]);
    t.want_vector = 0x27;
    if (!rc)
        rc = msi(dm, domid, 0x27, err, sizeof(err));
    if (!rc)
        rc = drain(x, &s.r, &s.e, &t, UINT64_MAX, 30, err, sizeof(err));
    if (!rc && !t.vector_seen) {
        snprintf(err, sizeof(err), "domain %u: no interrupt 0x27 in 30 s "
                 "after its MSI", domid);
        rc = -ETIMEDOUT;
    }
    if (!rc)
        printf("hlt-wake: interrupt 0x27 taken, %" PRIu64 " HLT_WAKE\n",
               t.kinds[FT_K_HLT_WAKE]);
    t.want_vector = 0;
    t.want_hlt_wake = true;
    /*
     * Each vector wakes the vCPU once, if it is in HLT then rather than
     * busy or waiting for QEMU, and no tick is due: one after the other,
     * each once the records have stopped for a while, until one does.
     */
    for (uint8_t v = 0x21; !rc && v < 0x30 && !t.kinds[FT_K_HLT_WAKE];
         v++) {
        if (v == 0x27)
            continue;
        rc = settle(x, &s, &t, err, sizeof(err));
        if (!rc)
            rc = msi(dm, domid, v, err, sizeof(err));
        if (!rc)
            rc = drain(x, &s.r, &s.e, &t, UINT64_MAX, 2, err, sizeof(err));
        tries++;
    }
    if (!rc)
        printf("hlt-wake: after %u MSIs of the class in service\n", tries);
    if (!rc && !t.kinds[FT_K_HLT_WAKE]) {
        snprintf(err, sizeof(err), "domain %u: no HLT_WAKE record after "
                 "%u MSIs (%" PRIu64 " records, %" PRIu64 " external "
                 "interrupts)", domid, tries, t.n, t.kinds[FT_K_EXTINT]);
        rc = -ETIMEDOUT;
    }
    if (!rc && !(rc = xlft_xen_ft_status(x, domid, &s.st, err, sizeof(err))))
        printf("hlt-wake: status stopped %" PRId32 "\n", s.st.stopped);
    rc = rec_stop(x, &s, rc, err, sizeof(err));
out:
    if (dm)
        xendevicemodel_close(dm);
    if (x)
        xlft_xen_close(x);
    if (rc)
        fprintf(stderr, "xlft-xen: %s\n", err);
    return rc ? 1 : 0;
}

static int replay(uint32_t domid)
{
    struct xlft_xen_ft_status st;
    struct xlft_xen *x = NULL;
    char err[512] = "";
    int rc = xlft_xen_open(&x, err, sizeof(err));

    if (!rc)
        rc = xlft_xen_ft_enable_replay(x, domid, 0,
                                       enable_flags & XLFT_XEN_FT_STEPS, &st,
                                       err, sizeof(err));
    if (!rc) {
        printf("replaying: state %s frames %" PRIu32 " port %" PRIu32
               "\n", xlft_xen_ft_state_name(st.state), st.nr_frames,
               st.port);
        rc = xlft_xen_ft_disable(x, domid, err, sizeof(err));
    }
    if (x)
        xlft_xen_close(x);
    if (rc)
        fprintf(stderr, "xlft-xen: %s\n", err);
    return rc ? 1 : 0;
}

static int evtchn_bind(uint32_t domid, uint32_t port)
{
    struct xlft_xen_evtchn e;
    struct xlft_xen *x;
    char err[512];
    int rc = xlft_xen_open(&x, err, sizeof(err));

    if (!rc) {
        rc = xlft_xen_evtchn_bind(x, domid, port, &e, err, sizeof(err));
        if (!rc) {
            printf("evtchn: domain %" PRIu32 " port %" PRIu32 " bound to "
                   "dom0 port %d\n", domid, port, e.local);
            xlft_xen_evtchn_unbind(x, &e);
        }
        xlft_xen_close(x);
    }
    if (rc)
        fprintf(stderr, "xlft-xen: %s\n", err);
    return rc ? 1 : 0;
}

static int ft_status(uint32_t domid)
{
    struct xlft_xen_ft_status st;
    struct xlft_xen *x;
    struct xlft_xs *s;
    char err[512], xerr[512];
    int rc;

    rc = xlft_xen_open(&x, err, sizeof(err));
    if (!rc) {
        rc = xlft_xen_ft_status(x, domid, &st, err, sizeof(err));
        xlft_xen_close(x);
    }
    if (!rc) {
        printf("state %s frames %" PRIu32 " port %" PRIu32 " abi %" PRIu32
               " log %" PRIu32 " seq %" PRIu64 " count %" PRIu64
               " stopped %" PRId32 "\n",
               xlft_xen_ft_state_name(st.state), st.nr_frames, st.port,
               st.abi_version, st.log_version, st.seq, st.count,
               st.stopped);
        return 0;
    }
    fprintf(stderr, "xlft-xen: %s\n", err);
    /* What ftd does with a failure: say so where xl-ft looks. */
    struct xlft_xs_kv kv[] = {
        { "state", "error" },
        { "error", err },
    };
    err[XLFT_XS_VAL_MAX] = '\0';
    rc = xlft_xs_open(&s, xerr, sizeof(xerr));
    if (!rc) {
        rc = xlft_xs_status_write(s, domid, kv, 2, xerr, sizeof(xerr));
        xlft_xs_close(s);
    }
    if (rc)
        fprintf(stderr, "xlft-xen: %s\n", xerr);
    return 1;
}

static int tsc_emulate(uint32_t domid)
{
    struct xlft_xen *x;
    char err[512];
    int rc;

    rc = xlft_xen_open(&x, err, sizeof(err));
    if (!rc) {
        rc = xlft_xen_set_tsc_emulated(x, domid, err, sizeof(err));
        xlft_xen_close(x);
    }
    if (rc) {
        fprintf(stderr, "xlft-xen: %s\n", err);
        return 1;
    }
    printf("tsc: domain %" PRIu32 " always emulates its TSC\n", domid);
    return 0;
}

/* One domctl through 'h', retried while Xen asks to: 0 or -errno. */
static int raw_domctl(xencall_handle *h, struct xen_domctl *d)
{
    int rc;

    d->interface_version = XEN_DOMCTL_INTERFACE_VERSION;
    do {
        rc = xencall1(h, __HYPERVISOR_domctl, (uint64_t)(uintptr_t)d);
    } while (rc < 0 && (errno == EAGAIN || errno == EINTR));
    return rc < 0 ? -errno : 0;
}

/*
 * A domain as a builder holds it between XEN_DOMCTL_createdomain and
 * XEN_DOMCTL_max_vcpus: HVM with shadow paging, room for one vCPU, none
 * created yet.  Recording is asked for on it, then it is destroyed.
 */
static int early_record(void)
{
    struct xlft_xen_ft_status st;
    struct xen_domctl *d;
    struct xlft_xen *x = NULL;
    xencall_handle *h;
    char err[512] = "";
    uint32_t domid;
    int rc, frc;

    h = xencall_open(NULL, 0);
    if (!h) {
        fprintf(stderr, "xlft-xen: cannot open libxencall: %s\n",
                strerror(errno));
        return 1;
    }
    d = xencall_alloc_buffer(h, sizeof(*d));
    if (!d) {
        fprintf(stderr, "xlft-xen: no hypercall buffer\n");
        xencall_close(h);
        return 1;
    }
    memset(d, 0, sizeof(*d));
    d->cmd = XEN_DOMCTL_createdomain;
    d->domain = 0;              /* Xen picks the id */
    d->u.createdomain.flags = XEN_DOMCTL_CDF_hvm;
    d->u.createdomain.max_vcpus = 1;
    d->u.createdomain.max_evtchn_port = 1023;
    d->u.createdomain.max_grant_frames = 1;
    d->u.createdomain.max_maptrack_frames = 0;
    d->u.createdomain.grant_opts = XEN_DOMCTL_GRANT_version(1);
    d->u.createdomain.arch.emulation_flags =
        XEN_X86_EMU_ALL & ~XEN_X86_EMU_VPCI;
    rc = raw_domctl(h, d);
    if (rc) {
        fprintf(stderr, "xlft-xen: cannot create a domain: %s\n",
                strerror(-rc));
        goto out;
    }
    domid = d->domain;
    printf("early: domain %" PRIu32 " created, no vCPU yet\n", domid);

    rc = xlft_xen_open(&x, err, sizeof(err));
    if (!rc) {
        rc = xlft_xen_ft_enable_record(x, domid, 0, enable_flags, &st, err,
                                       sizeof(err));
        if (!rc)
            xlft_xen_ft_disable(x, domid, err, sizeof(err));
        xlft_xen_close(x);
    }
    if (rc)
        fprintf(stderr, "xlft-xen: %s\n", err);
    else
        printf("early: recording enabled without a vCPU\n");

    memset(d, 0, sizeof(*d));
    d->cmd = XEN_DOMCTL_destroydomain;
    d->domain = (domid_t)domid;
    frc = raw_domctl(h, d);
    if (frc)
        fprintf(stderr, "xlft-xen: cannot destroy domain %" PRIu32 ": %s\n",
                domid, strerror(-frc));
    else
        printf("early: domain %" PRIu32 " destroyed\n", domid);
    /* Refused is what is right. */
    rc = rc == -EINVAL && !frc ? 0 : -EIO;
out:
    xencall_free_buffer(h, d);
    xencall_close(h);
    return rc ? 1 : 0;
}

static int check_config(uint32_t domid)
{
    char err[1024];
    int rc = xlft_xen_config_check(domid, err, sizeof(err));

    printf("%s\n", err);
    return rc ? 1 : 0;
}

/* HOST:PORT, connected, or -1 with 'err' naming it. */
static int dial(const char *spec, char *err, size_t errlen)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
    char host[256];
    const char *colon = strrchr(spec, ':');
    int fd = -1, rc;

    if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof(host)) {
        snprintf(err, errlen, "'%s' is not HOST:PORT", spec);
        return -1;
    }
    memcpy(host, spec, (size_t)(colon - spec));
    host[colon - spec] = '\0';
    rc = getaddrinfo(host, colon + 1, &hints, &ai);
    if (rc) {
        snprintf(err, errlen, "%s: %s", spec, gai_strerror(rc));
        return -1;
    }
    fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen)) {
        snprintf(err, errlen, "cannot connect to %s: %s", spec,
                 strerror(errno));
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    return fd;
}

/*
 * The test's cut: 'left' bytes from 'in' to 'out', then both ends shut;
 * with 'stall', 'out' stays open, silent, until the receiver gives up.
 */
struct cut {
    int in, out;
    uint64_t left;
    bool stall;
};

static void *cut_relay(void *arg)
{
    struct cut *c = arg;
    char buf[65536];

    while (c->left) {
        ssize_t n = read(c->in, buf, c->left < sizeof(buf) ? c->left
                                                           : sizeof(buf));

        if (n <= 0 || write(c->out, buf, (size_t)n) != n)
            break;
        c->left -= (uint64_t)n;
    }
    if (c->stall) {
        struct pollfd p = { .fd = c->out, .events = POLLIN };

        poll(&p, 1, 120000);
    }
    shutdown(c->out, SHUT_WR);
    close(c->in);
    return NULL;
}

static int at_copy(void *arg, uint8_t *dev, uint32_t *dev_len, char *err,
                   size_t errlen)
{
    (void)dev;
    (void)dev_len;
    (void)err;
    (void)errlen;
    printf("copy: domain %" PRIu32 " suspended, the copy consistent\n",
           *(uint32_t *)arg);
    fflush(stdout);
    return 0;
}

static int read_reply(int fd, uint8_t *buf)
{
    size_t got = 0;

    while (got < XLFT_COPY_REPLY_SIZE) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        ssize_t n;

        if (poll(&p, 1, 120000) <= 0)
            return -ETIMEDOUT;
        n = read(fd, buf + got, XLFT_COPY_REPLY_SIZE - got);
        if (n <= 0)
            return n ? -errno : -ENODATA;
        got += (size_t)n;
    }
    return 0;
}

static int copy_send(uint32_t domid, const char *peer, const char *cut_arg,
                     bool stall)
{
    uint8_t reply[XLFT_COPY_REPLY_SIZE];
    struct cut c = { .in = -1 };
    pthread_t relay;
    uint32_t copy;
    int32_t status;
    char err[600];
    int fd, out, sp[2], rc;

    if (cut_arg && parse_u32(cut_arg, "byte count", &(uint32_t){ 0 }))
        return 2;
    signal(SIGPIPE, SIG_IGN);
    fd = dial(peer, err, sizeof(err));
    if (fd < 0) {
        fprintf(stderr, "xlft-xen: domain %" PRIu32 ": %s\n", domid, err);
        return 1;
    }
    out = fd;
    if (cut_arg) {
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp)) {
            perror("xlft-xen: socketpair");
            return 1;
        }
        c = (struct cut){ .in = sp[1], .out = fd,
                          .left = strtoull(cut_arg, NULL, 10),
                          .stall = stall };
        out = sp[0];
        if (pthread_create(&relay, NULL, cut_relay, &c)) {
            fprintf(stderr, "xlft-xen: cannot start the relay\n");
            return 1;
        }
    }
    rc = xlft_xen_copy_send(domid, out, peer, at_copy, &domid, err,
                            sizeof(err));
    if (cut_arg) {
        close(sp[0]);
        pthread_join(relay, NULL);
    }
    if (rc)
        fprintf(stderr, "xlft-xen: %s\n", err);
    else
        printf("copy: domain %" PRIu32 " sent to %s, running on\n", domid,
               peer);
    shutdown(fd, SHUT_WR);
    /* What the receiver made of it, also of a cut stream. */
    if (read_reply(fd, reply)) {
        fprintf(stderr, "xlft-xen: domain %" PRIu32 ": no reply from %s\n",
                domid, peer);
        rc = -EIO;
    } else if (xlft_copy_reply_get(reply, &status, &copy, err,
                                   sizeof(err))) {
        fprintf(stderr, "xlft-xen: domain %" PRIu32 ": %s from %s\n", domid,
                err, peer);
        rc = -EPROTO;
    } else if (status) {
        fprintf(stderr, "xlft-xen: domain %" PRIu32 ": %s made no copy: "
                "%s\n", domid, peer, strerror(-status));
        rc = status;
    } else {
        printf("copy: domain %" PRIu32 " is domain %" PRIu32 " on %s\n",
               domid, copy, peer);
    }
    close(fd);
    return rc ? 1 : 0;
}

static int copy_recv(uint32_t port, const char *config)
{
    struct sockaddr_in sa = { .sin_family = AF_INET,
                              .sin_port = htons((uint16_t)port) };
    struct sockaddr_in from;
    socklen_t flen = sizeof(from);
    static uint8_t dev[XLFT_XEN_COPY_DEV_MAX];
    uint8_t reply[XLFT_COPY_REPLY_SIZE];
    char err[600], peer[64], *local;
    uint32_t domid, dev_len;
    int lfd, fd, rc, one = 1;

    signal(SIGPIPE, SIG_IGN);
    if (xlft_xen_local_config(config, NULL, XLFT_COPY_STALL_S * 1000,
                              &local, err, sizeof(err))) {
        fprintf(stderr, "xlft-xen: %s\n", err);
        return 1;
    }
    lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one,
                              sizeof(one)) ||
        bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1)) {
        fprintf(stderr, "xlft-xen: cannot listen on port %" PRIu32 ": %s\n",
                port, strerror(errno));
        free(local);
        return 1;
    }
    printf("listening on %" PRIu32 "\n", port);
    fflush(stdout);
    fd = accept(lfd, (struct sockaddr *)&from, &flen);
    close(lfd);
    if (fd < 0) {
        perror("xlft-xen: accept");
        free(local);
        return 1;
    }
    snprintf(peer, sizeof(peer), "%s:%u", inet_ntoa(from.sin_addr),
             ntohs(from.sin_port));
    rc = xlft_xen_copy_recv(fd, peer, local, &domid, dev, &dev_len, err,
                            sizeof(err));
    free(local);
    if (rc)
        fprintf(stderr, "xlft-xen: %s\n", err);
    else
        printf("copy: domain %" PRIu32 " from %s, paused\n", domid, peer);
    xlft_copy_reply_put(reply, rc, rc ? 0 : domid);
    if (write(fd, reply, sizeof(reply)) != (ssize_t)sizeof(reply))
        fprintf(stderr, "xlft-xen: cannot reply to %s\n", peer);
    close(fd);
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    uint32_t domid, seconds, port, count, stall = 0;

    for (; argc > 1 && !strncmp(argv[1], "--", 2); argc--, argv++) {
        if (!strcmp(argv[1], "--unsafe-no-counter"))
            enable_flags = XLFT_XEN_FT_UNSAFE_NO_COUNTER;
        else if (!strcmp(argv[1], "--steps"))
            enable_flags = XLFT_XEN_FT_STEPS;
        else if (!strncmp(argv[1], "--ring-data=", 12)) {
            if (parse_u32(argv[1] + 12, "ring size", &opt_ring_data))
                return 2;
        } else
            return usage();
    }
    if (argc == 2 && !strcmp(argv[1], "early-record"))
        return early_record();
    if (argc < 3)
        return usage();
    if (!strcmp(argv[1], "copy-recv") && argc == 4) {
        if (parse_u32(argv[2], "port", &port) || !port || port > 65535)
            return 2;
        return copy_recv(port, argv[3]);
    }
    if (parse_u32(argv[2], "domain id", &domid))
        return 2;
    if (!strcmp(argv[1], "copy-send") && argc >= 4 && argc <= 6 &&
        (argc < 6 || !strcmp(argv[5], "stall")))
        return copy_send(domid, argv[3], argc >= 5 ? argv[4] : NULL,
                         argc == 6);
    if (!strcmp(argv[1], "status-write"))
        return status_write(domid, argc - 3, argv + 3);
    if (!strcmp(argv[1], "control-watch") && argc == 4) {
        if (parse_u32(argv[3], "seconds", &seconds) || seconds > 3600)
            return 2;
        return control_watch(domid, seconds);
    }
    if (!strcmp(argv[1], "ft-status") && argc == 3)
        return ft_status(domid);
    if (!strcmp(argv[1], "check-config") && argc == 3)
        return check_config(domid);
    if (!strcmp(argv[1], "record-ring") && (argc == 3 || argc == 4))
        return record_ring(domid, argc == 4 ? argv[3] : NULL);
    if (!strcmp(argv[1], "evtchn-bind") && argc == 4) {
        if (parse_u32(argv[3], "port", &port))
            return 2;
        return evtchn_bind(domid, port);
    }
    if (!strcmp(argv[1], "replay") && argc == 3)
        return replay(domid);
    if (!strcmp(argv[1], "tsc-emulate") && argc == 3)
        return tsc_emulate(domid);
    if (!strcmp(argv[1], "speed") && argc == 4) {
        char err[300];
        uint32_t pct;

        if (parse_u32(argv[3], "percent", &pct))
            return 2;
        if (xlft_xen_set_speed(domid, pct, err, sizeof(err))) {
            fprintf(stderr, "xlft-xen: %s\n", err);
            return 1;
        }
        return 0;
    }
    if (!strcmp(argv[1], "ack-hold") && argc == 4) {
        uint32_t d, secs;

        if (parse_u32(argv[2], "domid", &d) ||
            parse_u32(argv[3], "seconds", &secs))
            return usage();
        return ack_hold(d, secs);
    }
    if (!strcmp(argv[1], "dma") && argc == 4) {
        char *end;
        unsigned long long gpa;

        errno = 0;
        gpa = strtoull(argv[3], &end, 0);
        if (errno || *end || end == argv[3]) {
            fprintf(stderr, "xlft-xen: '%s' is not a guest address\n",
                    argv[3]);
            return 2;
        }
        return dma(domid, gpa);
    }
    if (!strcmp(argv[1], "dma-wait") && argc == 5) {
        char *end;
        unsigned long long gpa;
        uint32_t pid;

        errno = 0;
        gpa = strtoull(argv[3], &end, 0);
        if (errno || *end || end == argv[3] ||
            parse_u32(argv[4], "pid", &pid) || !pid) {
            fprintf(stderr, "xlft-xen: dma-wait DOMID GPA PID\n");
            return 2;
        }
        return dma_wait(domid, gpa, (pid_t)pid);
    }
    if (!strcmp(argv[1], "hlt-wake") && argc == 3)
        return hlt_wake(domid);
    if (!strcmp(argv[1], "dm-suspend") && argc == 3)
        return dm_suspend(domid);
    if (!strcmp(argv[1], "msi") && argc == 4) {
        uint32_t vector;

        if (parse_u32(argv[3], "vector", &vector) || vector < 16 ||
            vector > 255) {
            fprintf(stderr, "xlft-xen: msi DOMID VECTOR: the vector is "
                    "16 to 255\n");
            return 2;
        }
        return msi_once(domid, (uint8_t)vector);
    }
    if (!strcmp(argv[1], "records") && (argc == 5 || argc == 6)) {
        if (parse_u32(argv[3], "count", &count) ||
            parse_u32(argv[4], "seconds", &seconds) || seconds > 3600 ||
            (argc == 6 && (parse_u32(argv[5], "stall", &stall) ||
                           stall > 3600)))
            return 2;
        return records(domid, count, seconds, stall);
    }
    return usage();
}
