// SPDX-License-Identifier: GPL-2.0-only
/*
 * backend_ftvm.c - guests under `ftvm serve`, driven through its control
 * socket (xlft_ftvm.h): the ring is shared memory, its signals two
 * eventfds.  The service finds guest NAME at RUN_DIR/NAME.sock, and
 * starts `ftvm serve --incoming` there for a copy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "config.h"
#include "rundir.h"
#include "xlft_ftvm.h"

struct guest {
    struct xlft_ftvm *vm;
    char sock[300];
    struct xlft_ring ring;
    bool have_ring;
};

/* Each guest operation is one of ftvm's control operations. */
static const uint16_t ftvm_op[] = {
    [GUEST_PAUSE] = XLFT_FTVM_OP_PAUSE,
    [GUEST_UNPAUSE] = XLFT_FTVM_OP_UNPAUSE,
    [GUEST_SAVE] = XLFT_FTVM_OP_SAVE,
    [GUEST_RESTORE] = XLFT_FTVM_OP_RESTORE,
    [GUEST_RECORD] = XLFT_FTVM_OP_RECORD,
    [GUEST_REPLAY] = XLFT_FTVM_OP_REPLAY,
    [GUEST_GOLIVE] = XLFT_FTVM_OP_GOLIVE,
    [GUEST_DISABLE] = XLFT_FTVM_OP_DISABLE,
    [GUEST_STOP] = XLFT_FTVM_OP_STOP,
    [GUEST_THROTTLE] = XLFT_FTVM_OP_THROTTLE,
    [GUEST_HALT] = XLFT_FTVM_OP_HALT,
};

static void ftvm_close(struct guest *g)
{
    if (!g)
        return;
    if (g->have_ring)
        xlft_ring_unmap(&g->ring);
    xlft_ftvm_close(g->vm);
    free(g);
}

static int ftvm_open(struct guest **gp, const char *spec, const char *peer,
                     unsigned int flags, char *why, size_t len)
{
    struct guest *g = NULL;
    int rc;

    (void)peer;
    *gp = NULL;
    if (flags & BACKEND_F_UNSAFE_NO_COUNTER) {
        snprintf(why, len, "ftvm counts every instruction: no unsafe "
                 "no-counter mode there");
        rc = -EINVAL;
        goto out;
    }
    if (!spec) {
        snprintf(why, len, "an ftvm guest is named by its control socket");
        rc = -EINVAL;
        goto out;
    }
    g = calloc(1, sizeof(*g));
    if (!g) {
        snprintf(why, len, "out of memory");
        rc = -ENOMEM;
        goto out;
    }
    g->ring.up_fd = g->ring.down_fd = -1;
    snprintf(g->sock, sizeof(g->sock), "%s", spec);
    rc = xlft_ftvm_open(&g->vm, spec, why, len);
    if (rc)
        goto out;
    *gp = g;
    g = NULL;
out:
    ftvm_close(g);
    return rc;
}

static int ftvm_call(struct guest *g, enum guest_op op, uint32_t arg, int fd,
                     char *why, size_t len)
{
    struct xlft_ftvm_rep rep;
    int fds[3], rc;

    if ((size_t)op >= sizeof(ftvm_op) / sizeof(ftvm_op[0]) || !ftvm_op[op]) {
        snprintf(why, len, "guest %s: operation %d has no ftvm control "
                 "operation", g->sock, (int)op);
        return -EOPNOTSUPP;
    }
    rc = xlft_ftvm_call(g->vm, ftvm_op[op], arg, 0, fd, &rep, fds);
    if (rc) {
        snprintf(why, len, "guest %s refused %s: %s", g->sock,
                 xlft_ftvm_op_name(ftvm_op[op]), rep.msg);
        return rc;
    }
    if (op != GUEST_RECORD && op != GUEST_REPLAY)
        return 0;
    rc = xlft_ring_map(&g->ring, fds, rep.ring_size, op == GUEST_RECORD ?
                       FT_RING_RECORD : FT_RING_REPLAY, why, len);
    if (rc) {
        char inner[300];

        snprintf(inner, sizeof(inner), "%s", why);
        snprintf(why, len, "guest %s: %s", g->sock, inner);
        return -EPROTO;
    }
    g->have_ring = true;
    return 0;
}

static void ftvm_why_stopped(struct guest *g, char *why, size_t len)
{
    struct xlft_ftvm_rep rep;

    xlft_ftvm_call(g->vm, XLFT_FTVM_OP_STATUS, 0, 0, -1, &rep, NULL);
    snprintf(why, len, "%s", rep.st.why);
}

/*
 * STATUS asked in passing (never waited on): 0 with its reply in 'rep',
 * -EAGAIN until it has come, or another error, 'why' saying it.
 */
static int ask_status(struct guest *g, struct xlft_ftvm_rep *rep,
                      char *why, size_t len)
{
    int rc = xlft_ftvm_ask(g->vm, XLFT_FTVM_OP_STATUS, rep);

    if (rc && rc != -EAGAIN)
        snprintf(why, len, "%s", rep->msg);
    return rc;
}

static int ftvm_ended(struct guest *g, char *why, size_t len)
{
    struct xlft_ftvm_rep rep;
    int rc = ask_status(g, &rep, why, len);

    /* Only a connection gone is a guest gone; other errors tell nothing. */
    if (rc == -EAGAIN || rc == -ECONNRESET || rc == -EPIPE)
        return rc;
    if (rc || rep.st.state != XLFT_FTVM_ST_ENDED)
        return 0;
    snprintf(why, len, "guest %s has stopped by itself: %s", g->sock,
             rep.st.why);
    return 1;
}

static int ftvm_went_live(struct guest *g, char *why, size_t len)
{
    struct xlft_ftvm_rep rep;
    int rc = ask_status(g, &rep, why, len);

    if (rc)
        return rc;
    if (rep.st.state == XLFT_FTVM_ST_FAILED) {
        snprintf(why, len, "%s", rep.st.why);
        return -EIO;
    }
    /* Replayed to the end its primary's guest came to by itself. */
    if (rep.st.state == XLFT_FTVM_ST_ENDED) {
        snprintf(why, len, "it replayed to the guest's own end: %s",
                 rep.st.why);
        return -ESHUTDOWN;
    }
    return rep.st.mode == XLFT_FTVM_MODE_LIVE;
}

static int ftvm_ctl_fd(struct guest *g)
{
    return xlft_ftvm_fd(g->vm);
}

static struct ft_ring *ftvm_ring(struct guest *g)
{
    return &g->ring.ring;
}

static int ftvm_ring_fd(struct guest *g)
{
    return g->ring.up_fd;
}

static int ftvm_ring_drain(struct guest *g)
{
    uint64_t n;

    if (read(g->ring.up_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
        return -errno;
    return 0;
}

static void ftvm_ring_notify(struct guest *g)
{
    xlft_ring_notify(&g->ring);
}

/* Either side's guest runs under an `ftvm serve` started beforehand. */
static int ftvm_args_ok(const struct backend_args *a, char *why, size_t len)
{
    if (!a->guest)
        snprintf(why, len, "--guest is needed");
    else if (a->copy_config)
        snprintf(why, len, "--xen-config: only for a Xen secondary");
    else if (a->flags & BACKEND_F_UNSAFE_NO_COUNTER)
        snprintf(why, len, "--unsafe-no-counter: only with --backend xen");
    else if (a->flags & BACKEND_F_COUNTER)
        snprintf(why, len, "--counter: only with --backend xen (ftvm "
                 "counts every instruction itself)");
    else
        return 0;
    return -EINVAL;
}

static int ftvm_guest_spec(const struct ftd_config *c, const char *name,
                           char *spec, size_t len, char *why, size_t whylen)
{
    snprintf(spec, len, "%s/%s.sock", c->run_dir, name);
    return ftd_run_sock_ok(spec, why, whylen);
}

/*
 * A copy of 'name' is coming: start its guest with the settings of its
 * section in ft.conf.  The pair connects once it answers.
 */
static int ftvm_make_copy(const struct ftd_config *c, const char *name,
                          char *sock, size_t len, char *why, size_t whylen)
{
    const struct ftd_guest *g = ftd_config_guest(c, name);
    char console[300], log[300], mem[16];
    struct xlft_ftvm *probe;
    const char *argv[16];
    int n = 0, rc, logfd = -1, confd = -1;
    pid_t pid;

    if (!g) {
        snprintf(why, whylen, "not configured on this host (add [guest %s] "
                 "to ft.conf)", name);
        return -ENOENT;
    }
    rc = ftvm_guest_spec(c, name, sock, len, why, whylen);
    if (rc)
        return rc;
    if (!xlft_ftvm_open(&probe, sock, why, whylen)) {
        xlft_ftvm_close(probe);
        snprintf(why, whylen, "a guest %s already runs here", name);
        return -EEXIST;
    }
    snprintf(console, sizeof(console), "%s/%s.console", c->run_dir, name);
    snprintf(log, sizeof(log), "%s/%s.log", c->run_dir, name);
    snprintf(mem, sizeof(mem), "%u", g->mem_mib);
    argv[n++] = c->ftvm;
    argv[n++] = "serve";
    argv[n++] = "--incoming";
    argv[n++] = "--control";
    argv[n++] = sock;
    /* The console file opened here, and ftvm given that very file. */
    argv[n++] = "--console";
    argv[n++] = "/dev/fd/3";
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
    logfd = ftd_run_file_open(log, O_APPEND, why, whylen);
    if (logfd < 0) {
        rc = logfd;
        goto out;
    }
    confd = ftd_run_file_open(console, 0, why, whylen);
    if (confd < 0) {
        rc = confd;
        goto out;
    }
    if (ftruncate(confd, 0)) {
        rc = -errno;
        snprintf(why, whylen, "cannot empty %s: %s", console,
                 strerror(errno));
        goto out;
    }
    pid = fork();
    if (pid < 0) {
        rc = -EAGAIN;
        snprintf(why, whylen, "cannot start ftvm: %s", strerror(errno));
        goto out;
    }
    if (pid == 0) {
        /* The guest outlives this ftd. */
        setsid();
        dup2(logfd, 1);
        dup2(logfd, 2);
        if (confd == 3)
            fcntl(3, F_SETFD, 0);   /* dup2 would leave it close-on-exec */
        else
            dup2(confd, 3);
        execvp(argv[0], (char *const *)argv);
        dprintf(2, "ftd: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    fprintf(stderr, "ftd: guest %s: copy starting under ftvm (pid %d)\n",
            name, (int)pid);
out:
    if (logfd >= 0)
        close(logfd);
    if (confd >= 0)
        close(confd);
    return rc;
}

/* The `ftvm serve --incoming` started for the copy halts (exits). */
static int ftvm_drop_copy(const char *spec, const char *peer,
                          unsigned int flags, char *why, size_t len)
{
    struct guest *g;
    int rc = ftvm_open(&g, spec, peer, flags, why, len);

    if (rc)
        return rc;
    rc = ftvm_call(g, GUEST_HALT, 0, -1, why, len);
    ftvm_close(g);
    return rc;
}

/* ftvm counts instructions on its own software CPU (hvm/ftvm/ftvm.h). */
static void ftvm_kind(unsigned int flags, uint32_t *counter, uint32_t *cpu)
{
    (void)flags;
    *counter = FT_COUNTER_STEPS;
    *cpu = FT_CPU_FTVM;
}

const struct backend backend_ftvm = {
    .name = "ftvm",
    .kind = ftvm_kind,
    .open = ftvm_open,
    .close = ftvm_close,
    .call = ftvm_call,
    .why_stopped = ftvm_why_stopped,
    .ended = ftvm_ended,
    .went_live = ftvm_went_live,
    .ctl_fd = ftvm_ctl_fd,
    .ring = ftvm_ring,
    .ring_fd = ftvm_ring_fd,
    .ring_drain = ftvm_ring_drain,
    .ring_notify = ftvm_ring_notify,
    .args_ok = ftvm_args_ok,
    .guest_spec = ftvm_guest_spec,
    .make_copy = ftvm_make_copy,
    .drop_copy = ftvm_drop_copy,
};
