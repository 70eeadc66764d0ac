// SPDX-License-Identifier: GPL-2.0-only
/*
 * xen_copy.c - a running guest copied through libxl (xlft_xen_copy.h).
 *
 * libxl has no timeout on a migration stream: a peer that stops
 * sending or reading would hold it for ever.  A watchdog thread follows
 * the socket's progress (TCP_INFO) and shuts it down once it stalls,
 * which libxl sees as the end of the stream.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libxl.h>
#include <libxl_utils.h>
#include <xentoollog.h>

#include "xlft_copy.h"
#include "xlft_dm_ctl.h"
#include "xlft_xen_config_allow.h"
#include "xlft_xen_copy.h"

_Static_assert(XLFT_COPY_DEV_MAX == XLFT_XEN_COPY_DEV_MAX &&
               XLFT_COPY_DEV_MAX == XLFT_DM_STATE_MAX,
               "the device state's bound differs along its way");

struct watchdog {
    int fd;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool running, done, fired;
};

/* Bytes the socket has moved either way; false if it is no TCP socket. */
static bool progress(int fd, uint64_t *bytes)
{
    struct tcp_info ti;
    socklen_t len = sizeof(ti);

    memset(&ti, 0, sizeof(ti));
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
        return false;
    *bytes = ti.tcpi_bytes_received + ti.tcpi_bytes_acked;
    return true;
}

static void *watch(void *arg)
{
    struct watchdog *w = arg;
    uint64_t last = 0, now;
    time_t still = time(NULL);
    struct timespec ts;

    progress(w->fd, &last);
    pthread_mutex_lock(&w->lock);
    while (!w->done) {
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&w->cond, &w->lock, &ts);
        if (w->done || !progress(w->fd, &now))
            continue;
        if (now != last) {
            last = now;
            still = time(NULL);
        } else if (time(NULL) - still >= XLFT_COPY_STALL_S) {
            w->fired = true;
            shutdown(w->fd, SHUT_RDWR);
            break;
        }
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* Only sockets can stall; a file simply ends. */
static void watch_start(struct watchdog *w, int fd)
{
    uint64_t b;

    memset(w, 0, sizeof(*w));
    w->fd = fd;
    if (!progress(fd, &b))
        return;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->running = !pthread_create(&w->thread, NULL, watch, w);
}

/* True if the watchdog cut the stream. */
static bool watch_stop(struct watchdog *w)
{
    if (!w->running)
        return false;
    pthread_mutex_lock(&w->lock);
    w->done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    return w->fired;
}

struct lx {
    xentoollog_logger_stdiostream *log;
    libxl_ctx *ctx;
};

static int lx_open(struct lx *l, char *err, size_t errlen)
{
    l->ctx = NULL;
    l->log = xtl_createlogger_stdiostream(stderr, XTL_ERROR,
                                          XTL_STDIOSTREAM_HIDE_PROGRESS);
    if (!l->log || libxl_ctx_alloc(&l->ctx, LIBXL_VERSION, 0,
                                   (xentoollog_logger *)l->log)) {
        snprintf(err, errlen, "cannot open libxl (not dom0 of a Xen host?)");
        if (l->log)
            xtl_logger_destroy((xentoollog_logger *)l->log);
        return -EIO;
    }
    return 0;
}

static void lx_close(struct lx *l)
{
    libxl_ctx_free(l->ctx);
    xtl_logger_destroy((xentoollog_logger *)l->log);
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EPIPE;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Exactly 'len' bytes, none of them waited for more than the stall. */
static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;

    while (len) {
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        int r = poll(&pf, 1, XLFT_COPY_STALL_S * 1000);
        ssize_t n;

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? -errno : -ETIMEDOUT;
        n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -ENODATA;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The guest's configuration as JSON (xl's save_domain_core_begin). */
static int config_json(libxl_ctx *ctx, uint32_t domid, char **json,
                       char *err, size_t errlen)
{
    libxl_domain_config cfg;
    int rc;

    libxl_domain_config_init(&cfg);
    rc = libxl_retrieve_domain_configuration(ctx, domid, &cfg, NULL);
    if (rc) {
        snprintf(err, errlen, "domain %u: cannot retrieve its configuration "
                 "(libxl error %d)", domid, rc);
        libxl_domain_config_dispose(&cfg);
        return -EIO;
    }
    /* The copy gets a domain id of its own on its host. */
    cfg.c_info.domid = 0;
    *json = libxl_domain_config_to_json(ctx, &cfg);
    libxl_domain_config_dispose(&cfg);
    if (!*json) {
        snprintf(err, errlen, "domain %u: cannot write its configuration "
                 "as JSON", domid);
        return -EIO;
    }
    return 0;
}

/* Shut down for a suspend: what libxl_domain_resume undoes. */
static bool suspended(libxl_ctx *ctx, uint32_t domid)
{
    libxl_dominfo info;
    bool s;

    libxl_dominfo_init(&info);
    s = !libxl_domain_info(ctx, &info, domid) && info.shutdown &&
        info.shutdown_reason == LIBXL_SHUTDOWN_REASON_SUSPEND;
    libxl_dominfo_dispose(&info);
    return s;
}

int xlft_xen_copy_send(uint32_t domid, int fd, const char *peer,
                       xlft_copy_point_fn *at_copy, void *arg, char *err,
                       size_t errlen)
{
    static uint8_t dev[XLFT_COPY_DEV_MAX];
    uint8_t hdr[XLFT_COPY_HDR_SIZE], trailer[XLFT_COPY_DEV_SIZE];
    uint32_t dev_len = 0;
    struct watchdog w;
    libxl_dominfo info;
    char *json = NULL;
    struct lx l;
    int rc, lrc;

    rc = lx_open(&l, err, errlen);
    if (rc)
        return rc;
    libxl_dominfo_init(&info);
    lrc = libxl_domain_info(l.ctx, &info, domid);
    libxl_dominfo_dispose(&info);
    if (lrc) {
        snprintf(err, errlen, "domain %u does not exist: no copy for %s",
                 domid, peer);
        rc = -ESRCH;
        goto out;
    }
    rc = config_json(l.ctx, domid, &json, err, errlen);
    if (rc)
        goto out;
    xlft_copy_hdr_put(hdr, &(struct xlft_copy_hdr){
        .domid = domid, .config_len = (uint32_t)strlen(json) + 1 });
    rc = write_all(fd, hdr, sizeof(hdr));
    if (!rc)
        rc = write_all(fd, json, strlen(json) + 1);
    if (rc) {
        snprintf(err, errlen, "domain %u: cannot send its copy to %s: %s",
                 domid, peer, strerror(-rc));
        goto out;
    }
    watch_start(&w, fd);
    lrc = libxl_domain_suspend(l.ctx, domid, fd, LIBXL_SUSPEND_LIVE, NULL);
    if (watch_stop(&w) && lrc) {
        snprintf(err, errlen, "domain %u: the copy to %s stalled for %d s",
                 domid, peer, XLFT_COPY_STALL_S);
        rc = -ETIMEDOUT;
    } else if (lrc) {
        snprintf(err, errlen, "domain %u: the live copy to %s failed "
                 "(libxl error %d)", domid, peer, lrc);
        rc = -EIO;
    }
    /*
     * A copy that broke during the live phase, or a guest that did not
     * suspend in time, left it running: nothing to resume.
     */
    if (!suspended(l.ctx, domid))
        goto out;
    if (!rc && at_copy)
        rc = at_copy(arg, dev, &dev_len, err, errlen);
    if (!rc) {
        xlft_copy_dev_put(trailer, dev_len);
        rc = write_all(fd, trailer, sizeof(trailer));
        if (!rc)
            rc = write_all(fd, dev, dev_len);
        if (rc)
            snprintf(err, errlen, "domain %u: cannot send its device state "
                     "to %s: %s", domid, peer, strerror(-rc));
    }
    lrc = libxl_domain_resume(l.ctx, domid, 1, NULL);
    if (lrc) {
        size_t n = rc ? strlen(err) : 0;

        snprintf(err + n, errlen - n, "%sdomain %u: suspended for the copy "
                 "to %s and cannot be resumed (libxl error %d)",
                 n ? "; " : "", domid, peer, lrc);
        rc = rc ? rc : -EIO;
    }
out:
    free(json);
    lx_close(&l);
    return rc;
}

/* Destroy what a failed restore may have left. */
static void undo(libxl_ctx *ctx, uint32_t domid)
{
    libxl_dominfo info;

    if (!libxl_domid_valid_guest(domid))
        return;
    libxl_dominfo_init(&info);
    if (!libxl_domain_info(ctx, &info, domid))
        libxl_domain_destroy(ctx, domid, NULL);
    libxl_dominfo_dispose(&info);
}

/*
 * The copy keeps the guest's name, unless a domain of that name runs
 * here (both ends on one host): then it is NAME--secondary.
 */
static int own_name(libxl_ctx *ctx, libxl_domain_config *cfg, char *err,
                    size_t errlen)
{
    uint32_t other;
    char *name;

    if (!cfg->c_info.name ||
        libxl_name_to_domid(ctx, cfg->c_info.name, &other))
        return 0;
    if (asprintf(&name, "%s" XLFT_COPY_SUFFIX, cfg->c_info.name) < 0) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    free(cfg->c_info.name);
    cfg->c_info.name = name;
    return 0;
}

/* The peer's configuration against this host's, both as libxl's JSON. */
static int allowed(const char *peer_json, const char *local, uint32_t domid,
                   const char *peer, char *err, size_t errlen)
{
    char why[400];
    int rc;

    rc = xlft_xen_config_allowed(peer_json, strlen(peer_json), local,
                                 strlen(local), why, sizeof(why));
    if (rc)
        snprintf(err, errlen, "copy of domain %u from %s: %s", domid, peer,
                 why);
    return rc;
}

/*
 * Both configurations as libxl reads them, written out again by libxl:
 * what is compared is then what the restore would use, whatever the
 * peer's spelling (member names, duplicates, a second guest type).
 */
static int allowed_by_libxl(libxl_ctx *ctx, libxl_domain_config *cfg,
                            const char *local, uint32_t domid,
                            const char *peer, char *err, size_t errlen)
{
    libxl_domain_config here;
    char *pj = NULL, *lj = NULL;
    int rc;

    libxl_domain_config_init(&here);
    if (libxl_domain_config_from_json(ctx, &here, local)) {
        snprintf(err, errlen, "copy of domain %u from %s: this host's "
                 "configuration of the guest is not libxl's JSON", domid,
                 peer);
        rc = -EINVAL;
        goto out;
    }
    pj = libxl_domain_config_to_json(ctx, cfg);
    lj = libxl_domain_config_to_json(ctx, &here);
    if (!pj || !lj) {
        snprintf(err, errlen, "copy of domain %u from %s: libxl cannot "
                 "write a configuration as JSON", domid, peer);
        rc = -ENOMEM;
        goto out;
    }
    rc = allowed(pj, lj, domid, peer, err, errlen);
out:
    free(pj);
    free(lj);
    libxl_domain_config_dispose(&here);
    return rc;
}

/* The devices' state after libxl's stream, within the stall limit. */
static int recv_dev(int fd, uint32_t domid, const char *peer, uint8_t *dev,
                    uint32_t *dev_len, char *err, size_t errlen)
{
    uint8_t trailer[XLFT_COPY_DEV_SIZE];
    struct watchdog w;
    bool stalled;
    int rc;

    watch_start(&w, fd);
    rc = read_all(fd, trailer, sizeof(trailer));
    if (!rc) {
        rc = xlft_copy_dev_get(trailer, dev_len, err, errlen);
        if (rc) {
            size_t n = strlen(err);

            snprintf(err + n, errlen - n, " (copy of domain %u from %s)",
                     domid, peer);
            watch_stop(&w);
            return rc;
        }
        rc = read_all(fd, dev, *dev_len);
    }
    stalled = watch_stop(&w);
    if (rc)
        snprintf(err, errlen, "copy of domain %u from %s: its device state "
                 "is cut short: %s", domid, peer,
                 stalled ? "the stream stalled" : rc == -ENODATA ? "closed"
                 : strerror(-rc));
    return rc;
}

int xlft_xen_copy_recv(int fd, const char *peer, const char *local,
                       uint32_t *domid, uint8_t *dev, uint32_t *dev_len,
                       char *err, size_t errlen)
{
    uint8_t hdr[XLFT_COPY_HDR_SIZE], *json = NULL;
    libxl_domain_restore_params params;
    libxl_domain_config cfg;
    struct xlft_copy_hdr h = { 0 };
    struct watchdog w;
    uint32_t newid = INVALID_DOMID;
    struct lx l;
    bool stalled;
    int rc, lrc;

    *domid = INVALID_DOMID;
    *dev_len = 0;
    rc = read_all(fd, hdr, sizeof(hdr));
    if (rc) {
        snprintf(err, errlen, "no copy stream from %s: %s", peer,
                 rc == -ENODATA ? "closed before its header"
                                : strerror(-rc));
        return rc;
    }
    if ((rc = xlft_copy_hdr_get(hdr, &h, err, errlen))) {
        size_t n = strlen(err);

        snprintf(err + n, errlen - n, " (from %s)", peer);
        return rc;
    }
    json = malloc(h.config_len);
    if (!json) {
        snprintf(err, errlen, "copy of domain %u from %s: out of memory",
                 h.domid, peer);
        return -ENOMEM;
    }
    rc = read_all(fd, json, h.config_len);
    if (rc) {
        snprintf(err, errlen, "copy of domain %u from %s: its configuration "
                 "is cut short: %s", h.domid, peer,
                 rc == -ENODATA ? "closed" : strerror(-rc));
        free(json);
        return rc;
    }
    if ((rc = xlft_copy_config_check(json, h.config_len, err, errlen)) ||
        (rc = allowed((const char *)json, local, h.domid, peer, err,
                      errlen))) {
        free(json);
        return rc;
    }
    rc = lx_open(&l, err, errlen);
    if (rc) {
        free(json);
        return rc;
    }
    libxl_domain_config_init(&cfg);
    libxl_domain_restore_params_init(&params);
    if (libxl_domain_config_from_json(l.ctx, &cfg, (const char *)json)) {
        snprintf(err, errlen, "copy of domain %u from %s: its configuration "
                 "is not libxl's JSON", h.domid, peer);
        rc = -EPROTO;
        goto out;
    }
    rc = allowed_by_libxl(l.ctx, &cfg, local, h.domid, peer, err, errlen);
    if (rc)
        goto out;
    cfg.c_info.domid = INVALID_DOMID;
    rc = own_name(l.ctx, &cfg, err, errlen);
    if (rc)
        goto out;
    params.checkpointed_stream = LIBXL_CHECKPOINTED_STREAM_NONE;
    params.stream_version = 2;
    watch_start(&w, fd);
    lrc = libxl_domain_create_restore(l.ctx, &cfg, &newid, fd, -1, &params,
                                      NULL, NULL);
    stalled = watch_stop(&w);
    if (lrc) {
        snprintf(err, errlen, "copy of domain %u from %s: restore failed "
                 "(%slibxl error %d, its messages above); nothing kept",
                 h.domid, peer, stalled ? "the stream stalled; " : "", lrc);
        undo(l.ctx, newid);
        rc = -EIO;
        goto out;
    }
    rc = recv_dev(fd, h.domid, peer, dev, dev_len, err, errlen);
    if (rc) {
        undo(l.ctx, newid);
        goto out;
    }
    *domid = newid;
out:
    libxl_domain_restore_params_dispose(&params);
    libxl_domain_config_dispose(&cfg);
    lx_close(&l);
    free(json);
    return rc;
}
