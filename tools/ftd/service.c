// SPDX-License-Identifier: GPL-2.0-only
/*
 * service.c - ftd as a per-host service: it listens for primaries that
 * want a secondary here (starting the guest's copy itself, from the
 * guest's section in ft.conf), and takes commands from xl-ft on its
 * control socket: enable NAME PEER, disable NAME, failover NAME, status.
 * Guests run under `ftvm serve --control RUN_DIR/NAME.sock`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "config.h"
#include "net.h"
#include "pair.h"
#include "service.h"
#include "xlft_crypto.h"
#include "xlft_ftvm.h"

#define PAIRS_MAX   FTD_GUESTS_MAX

struct slot {
    struct service *svc;
    struct pair *pair;
    char peer[256];             /* primary: where its secondary is */
    bool ended;
    int reap_due;               /* reaper ticks seen since it ended */
    char name[FTD_NAME_MAX + 1];
    char end_why[300];
};

/* A primary that lost its secondary asks its peer again, backing off. */
struct reprotect {
    bool active;
    char name[FTD_NAME_MAX + 1];
    char peer[256];
    unsigned int attempts;
    time_t next;
    char last[300];             /* why the last attempt failed */
};

struct service {
    const struct ftd_config *cfg;
    struct event_base *base;
    uint8_t key[XLFT_KEY_SIZE];
    int lfd, cfd;
    struct event *lev, *cev, *reap;
    char ctl_path[300];
    struct slot slots[PAIRS_MAX];
    struct reprotect rp[PAIRS_MAX];
};

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void note(const char *fmt, ...)
{
    va_list ap;

    fputs("ftd: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static time_t mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec;
}

static struct reprotect *reprotect_of(struct service *s, const char *name,
                                      bool make)
{
    struct reprotect *spare = NULL;

    for (int i = 0; i < PAIRS_MAX; i++) {
        if (s->rp[i].active && !strcmp(s->rp[i].name, name))
            return &s->rp[i];
        if (!s->rp[i].active && !spare)
            spare = &s->rp[i];
    }
    if (!make || !spare)
        return NULL;
    memset(spare, 0, sizeof(*spare));
    spare->active = true;
    snprintf(spare->name, sizeof(spare->name), "%s", name);
    return spare;
}

static void guest_sock(const struct service *s, const char *name, char *buf,
                       size_t len)
{
    snprintf(buf, len, "%s/%s.sock", s->cfg->run_dir, name);
}

static void on_pair_end(void *arg, int err, const char *why)
{
    struct slot *sl = arg;

    sl->ended = true;
    snprintf(sl->name, sizeof(sl->name), "%s", pair_name(sl->pair));
    if (pair_unprotected(sl->pair) && sl->peer[0]) {
        struct reprotect *r = reprotect_of(sl->svc, sl->name, true);

        if (r) {
            snprintf(r->peer, sizeof(r->peer), "%s", sl->peer);
            r->attempts = 0;
            r->next = mono_s() + 1;
            snprintf(r->last, sizeof(r->last), "secondary lost");
        }
    }
    snprintf(sl->end_why, sizeof(sl->end_why), "%s%s",
             err ? "error: " : "", why);
    /* Freed by the reaper, a second on: not inside the pair's own
     * callbacks, and its channel's last frame has gone out by then. */
}

static struct slot *free_slot_for(struct service *s, const char *name)
{
    struct slot *spare = NULL;

    for (int i = 0; i < PAIRS_MAX; i++) {
        struct slot *sl = &s->slots[i];

        if (sl->pair && !sl->ended && name && !strcmp(sl->name, name))
            return NULL;        /* already protected or being protected */
        if (!sl->pair && !spare)
            spare = sl;
    }
    return spare;
}

/*
 * A copy of 'name' is coming: start its guest with the settings of its
 * section in ft.conf.  The pair connects once it answers.
 */
static int spawn_copy(void *arg, const char *name, char *sock, size_t len,
                      char *why, size_t whylen)
{
    struct slot *sl = arg;
    struct service *s = sl->svc;
    const struct ftd_guest *g = ftd_config_guest(s->cfg, name);
    char console[300], log[300], mem[16];
    struct xlft_ftvm *probe;
    const char *argv[16];
    int n = 0, logfd;
    pid_t pid;

    if (!g) {
        snprintf(why, whylen, "not configured on this host (add [guest %s] "
                 "to ft.conf)", name);
        return -ENOENT;
    }
    guest_sock(s, name, sock, len);
    if (!xlft_ftvm_open(&probe, sock, why, whylen)) {
        xlft_ftvm_close(probe);
        snprintf(why, whylen, "a guest %s already runs here", name);
        return -EEXIST;
    }
    snprintf(console, sizeof(console), "%s/%s.console", s->cfg->run_dir,
             name);
    snprintf(log, sizeof(log), "%s/%s.log", s->cfg->run_dir, name);
    snprintf(mem, sizeof(mem), "%u", g->mem_mib);
    argv[n++] = s->cfg->ftvm;
    argv[n++] = "serve";
    argv[n++] = "--incoming";
    argv[n++] = "--control";
    argv[n++] = sock;
    argv[n++] = "--console";
    argv[n++] = console;
    if (g->disk[0]) {
        argv[n++] = "--disk";
        argv[n++] = g->disk;
    }
    if (g->net[0]) {
        argv[n++] = "--net";
        argv[n++] = g->net;
    }
    if (g->mem_mib) {
        argv[n++] = "--mem";
        argv[n++] = mem;
    }
    argv[n] = NULL;
    logfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (logfd < 0) {
        snprintf(why, whylen, "cannot write %s: %s", log, strerror(errno));
        return -errno;
    }
    pid = fork();
    if (pid < 0) {
        close(logfd);
        snprintf(why, whylen, "cannot start ftvm: %s", strerror(errno));
        return -EAGAIN;
    }
    if (pid == 0) {
        /* The guest outlives this ftd. */
        setsid();
        dup2(logfd, 1);
        dup2(logfd, 2);
        execvp(argv[0], (char *const *)argv);
        dprintf(2, "ftd: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(logfd);
    note("guest %s: copy starting under ftvm (pid %d)", name, (int)pid);
    return 0;
}

static void fill_pair_cfg(struct service *s, struct pair_cfg *pc,
                          struct slot *sl)
{
    const struct ftd_config *c = s->cfg;
    bool xen = !strcmp(c->backend, "xen");

    *pc = (struct pair_cfg){
        .backend = backend_named(c->backend),
        .base = s->base, .me = c->host_name, .key = s->key,
        .encrypt = c->encrypt, .arbiter = c->arbiter,
        .hb = { c->heartbeat_ms, c->timeout_ms },
        .ring_data = c->ring_bytes,
        .buffer_max = (size_t)c->buffer_mib << 20,
        .lag_limit_us = c->lag_limit_us,
        .resolve = xen ? backend_restore_creates : spawn_copy,
        .on_end = on_pair_end, .arg = sl,
    };
}

static void on_incoming(evutil_socket_t lfd, short what, void *arg)
{
    struct service *s = arg;
    char why[300], peer[FTD_PEER_MAX];
    struct pair_cfg pc;
    struct slot *sl;
    int fd = ftd_accept(lfd, peer);

    (void)what;
    if (fd < 0)
        return;
    sl = free_slot_for(s, NULL);
    if (!sl) {
        note("refusing %s: %d pairs already", peer, PAIRS_MAX);
        close(fd);
        return;
    }
    fill_pair_cfg(s, &pc, sl);
    pc.role = PAIR_SECONDARY;
    pc.fd = fd;
    pc.peer = peer;
    memset(sl, 0, sizeof(*sl));
    sl->svc = s;
    if (pair_start(&sl->pair, &pc, why, sizeof(why))) {
        note("secondary for %s: %s", peer, why);
        sl->pair = NULL;
    }
}

/* A slot still holding a pair for 'name', ended or not. */
static struct slot *find_any(struct service *s, const char *name)
{
    for (int i = 0; i < PAIRS_MAX; i++)
        if (s->slots[i].pair && !strcmp(s->slots[i].name, name))
            return &s->slots[i];
    return NULL;
}

static struct slot *find(struct service *s, const char *name)
{
    for (int i = 0; i < PAIRS_MAX; i++)
        if (s->slots[i].pair && !s->slots[i].ended &&
            !strcmp(s->slots[i].name, name))
            return &s->slots[i];
    return NULL;
}

/* Protect guest 'name' on 'peer': 0, or -errno with 'why'. */
static int enable(struct service *s, const char *name, const char *peer,
                  char *why, size_t len)
{
    char sock[300];
    struct pair_cfg pc;
    struct slot *sl;
    int fd, rc;

    if (!ftd_name_ok(name)) {
        snprintf(why, len, "'%s' is not a guest name", name);
        return -EINVAL;
    }
    sl = free_slot_for(s, name);
    if (!sl) {
        snprintf(why, len, "%s is protected already (or too many pairs)",
                 name);
        return -EBUSY;
    }
    guest_sock(s, name, sock, sizeof(sock));
    fd = ftd_dial(peer, FTD_PORT, 5000, why, len);
    if (fd < 0)
        return -ECONNREFUSED;
    fill_pair_cfg(s, &pc, sl);
    pc.role = PAIR_PRIMARY;
    pc.name = name;
    /* A Xen guest is its domain's name. */
    pc.guest = strcmp(s->cfg->backend, "xen") ? sock : name;
    pc.fd = fd;
    pc.peer = peer;
    memset(sl, 0, sizeof(*sl));
    sl->svc = s;
    snprintf(sl->name, sizeof(sl->name), "%s", name);
    snprintf(sl->peer, sizeof(sl->peer), "%s", peer);
    rc = pair_start(&sl->pair, &pc, why, len);
    if (rc)
        sl->pair = NULL;
    return rc;
}

static void cmd_enable(struct service *s, const char *name,
                       const char *peer, FILE *out)
{
    struct reprotect *r = reprotect_of(s, name, false);
    char why[300];

    if (enable(s, name, peer, why, sizeof(why))) {
        fprintf(out, "error: %s: %s\n", name, why);
        return;
    }
    if (r)
        r->active = false;      /* the operator took over */
    fprintf(out, "ok: protecting %s on %s (see ft-status)\n", name, peer);
}

/* Primaries that lost their secondary try again: 1 s, 2 s, ... 30 s. */
static void reprotect_due(struct service *s)
{
    time_t now = mono_s();

    for (int i = 0; i < PAIRS_MAX; i++) {
        struct reprotect *r = &s->rp[i];
        unsigned int wait;

        if (!r->active || now < r->next || find_any(s, r->name))
            continue;
        r->attempts++;
        if (!enable(s, r->name, r->peer, r->last, sizeof(r->last))) {
            note("%s: protecting again on %s (attempt %u)", r->name,
                 r->peer, r->attempts);
            r->active = false;
            continue;
        }
        wait = r->attempts < 5 ? 1u << r->attempts : 30;
        r->next = now + (wait > 30 ? 30 : wait);
    }
}

static void cmd_status(struct service *s, const char *name, FILE *out)
{
    int shown = 0;

    for (int i = 0; i < PAIRS_MAX; i++) {
        struct slot *sl = &s->slots[i];
        char line[400];

        if (!sl->pair && !sl->ended)
            continue;
        if (sl->pair) {
            pair_status(sl->pair, line, sizeof(line));
            snprintf(sl->name, sizeof(sl->name), "%s",
                     pair_name(sl->pair));
        }
        if (name && strcmp(sl->name, name))
            continue;
        if (sl->pair)
            fprintf(out, "%s%s%s\n", line, sl->ended ? " ended: " : "",
                    sl->ended ? sl->end_why : "");
        else
            fprintf(out, "pair=%s ended: %s\n", sl->name, sl->end_why);
        shown++;
    }
    for (int i = 0; i < PAIRS_MAX; i++) {
        struct reprotect *r = &s->rp[i];

        if (!r->active || (name && strcmp(r->name, name)))
            continue;
        fprintf(out, "pair=%s unprotected: protecting again on %s, attempt "
                "%u, next in %lds (%s)\n", r->name, r->peer, r->attempts + 1,
                (long)(r->next > mono_s() ? r->next - mono_s() : 0),
                r->last);
        shown++;
    }
    if (!shown)
        fprintf(out, name ? "error: no pair for %s on this host\n"
                          : "no pairs\n", name);
}

static void command(struct service *s, char *line, FILE *out)
{
    char *w[4] = { NULL }, *save = NULL;
    int n = 0;

    for (char *t = strtok_r(line, " \t\r\n", &save); t && n < 4;
         t = strtok_r(NULL, " \t\r\n", &save))
        w[n++] = t;
    if (n == 3 && !strcmp(w[0], "enable")) {
        cmd_enable(s, w[1], w[2], out);
    } else if ((n == 1 || n == 2) && !strcmp(w[0], "status")) {
        cmd_status(s, w[1], out);
    } else if (n == 2 && (!strcmp(w[0], "disable") ||
                          !strcmp(w[0], "failover"))) {
        struct slot *sl = find(s, w[1]);
        char why[300];
        int rc;

        if (!sl) {
            struct reprotect *r = reprotect_of(s, w[1], false);

            if (r && !strcmp(w[0], "disable")) {
                r->active = false;
                fprintf(out, "ok: %s stays unprotected\n", w[1]);
                return;
            }
            fprintf(out, "error: %s is not protected from this host\n",
                    w[1]);
            return;
        }
        rc = !strcmp(w[0], "disable") ? pair_disable(sl->pair, why,
                                                     sizeof(why))
                                      : pair_failover(sl->pair, why,
                                                      sizeof(why));
        if (rc)
            fprintf(out, "error: %s\n", why);
        else
            fprintf(out, "ok: %s %s (see ft-status)\n", w[1],
                    !strcmp(w[0], "disable") ? "is being disabled"
                                             : "is being handed over");
    } else {
        fprintf(out, "error: commands are 'enable NAME HOST[:PORT]', "
                "'disable NAME', 'failover NAME', 'status [NAME]'\n");
    }
}

/* One command per connection, answered at once (ftd is local). */
static void on_control(evutil_socket_t lfd, short what, void *arg)
{
    struct service *s = arg;
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    struct pollfd p = { .fd = fd, .events = POLLIN };
    char line[512];
    ssize_t n = 0;
    FILE *out;

    (void)what;
    if (fd < 0)
        return;
    if (poll(&p, 1, 2000) == 1)
        n = read(fd, line, sizeof(line) - 1);
    out = fdopen(fd, "w");
    if (!out) {
        close(fd);
        return;
    }
    if (n <= 0 || memchr(line, '\0', (size_t)n)) {
        fprintf(out, "error: no command\n");
    } else {
        line[n] = '\0';
        command(s, line, out);
    }
    fclose(out);
}

/* Once a second: children that exited, pairs that ended a while ago. */
static void on_reap(evutil_socket_t fd, short what, void *arg)
{
    struct service *s = arg;

    (void)fd;
    (void)what;
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    for (int i = 0; i < PAIRS_MAX; i++) {
        struct slot *sl = &s->slots[i];

        /* A copy or claim still under way is not waited for here. */
        if (sl->pair && sl->ended && sl->reap_due++ &&
            !pair_busy(sl->pair)) {
            pair_free(sl->pair);
            sl->pair = NULL;
        }
    }
    reprotect_due(s);
}

static int listen_unix(const char *path, char *why, size_t len)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    mode_t old;
    int fd, rc;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        snprintf(why, len, "control socket path too long: %s", path);
        return -1;
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        goto fail;
    if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        snprintf(why, len, "%s: another ftd runs on this host", path);
        close(fd);
        return -1;
    }
    if (errno == ECONNREFUSED)
        unlink(path);
    old = umask(077);
    rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
    umask(old);
    if (rc || listen(fd, 8))
        goto fail;
    return fd;
fail:
    snprintf(why, len, "control socket %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    return -1;
}

int service_run(const struct ftd_config *cfg, struct event_base *base,
                char *why, size_t len)
{
    static struct service svc;
    struct service *s = &svc;
    struct timeval tv = { 1, 0 };

    memset(s, 0, sizeof(*s));
    s->cfg = cfg;
    s->base = base;
    s->lfd = s->cfd = -1;
    if (mkdir(cfg->run_dir, 0700) && errno != EEXIST) {
        snprintf(why, len, "cannot create %s: %s", cfg->run_dir,
                 strerror(errno));
        return -errno;
    }
    if (xlft_key_load(cfg->key, s->key, why, len))
        return -EINVAL;
    snprintf(s->ctl_path, sizeof(s->ctl_path), "%s/ftd.sock", cfg->run_dir);
    s->cfd = listen_unix(s->ctl_path, why, len);
    if (s->cfd < 0)
        return -EADDRINUSE;
    s->lfd = ftd_listen(cfg->listen, 8, why, len);
    if (s->lfd < 0) {
        close(s->cfd);
        unlink(s->ctl_path);
        return -EADDRINUSE;
    }
    s->lev = event_new(base, s->lfd, EV_READ | EV_PERSIST, on_incoming, s);
    s->cev = event_new(base, s->cfd, EV_READ | EV_PERSIST, on_control, s);
    s->reap = event_new(base, -1, EV_PERSIST, on_reap, s);
    if (!s->lev || !s->cev || !s->reap || event_add(s->lev, NULL) ||
        event_add(s->cev, NULL) || event_add(s->reap, &tv)) {
        snprintf(why, len, "cannot set up the event loop");
        return -ENOMEM;
    }
    note("host %s: listening on %s, control %s", cfg->host_name,
         cfg->listen, s->ctl_path);
    event_base_dispatch(base);

    for (int i = 0; i < PAIRS_MAX; i++)
        pair_free(s->slots[i].pair);
    event_free(s->lev);
    event_free(s->cev);
    event_free(s->reap);
    close(s->lfd);
    close(s->cfd);
    unlink(s->ctl_path);
    return 0;
}
