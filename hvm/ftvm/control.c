// SPDX-License-Identifier: GPL-2.0-only
/*
 * control.c - the control socket of `ftvm serve` (protocol: libxlft's
 * xlft_ftvm_ctl.h and FTVMCTL.md).  A thread takes requests off the socket; the vCPU thread
 * carries them out where it stops between instructions, as Xen carries
 * out a domctl on a paused or descheduled vCPU, so no request ever sees
 * the guest halfway through an instruction.  While the vCPU waits inside
 * an instruction for the ring (full record ring, or a replayed input not
 * yet received), only STATUS, GOLIVE, STOP and HALT are served; the rest
 * are refused with EBUSY.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ftvm.h"
#include "xlft_ftvm_ctl.h"

struct ftvm_ctl {
    int lfd;                    /* listening socket */
    int quit_fd;                /* eventfd: the thread must end */
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int pending;                /* a request waits (atomic) */
    bool done;                  /* its reply is ready */
    bool busy;                  /* the vCPU thread is carrying it out */
    struct xlft_ftvm_req req;
    int req_fd;                 /* SAVE, RESTORE: -1 otherwise */
    struct xlft_ftvm_rep rep;
    int rep_fds[3];
    int rep_nfds;
};

/* ---- the vCPU thread's side ---------------------------------------- */

static void status(struct ftvm *vm, struct xlft_ftvm_status *st, bool hash)
{
    memset(st, 0, sizeof(*st));
    st->state = vm->status ? XLFT_FTVM_ST_FAILED :
                vm->end ? XLFT_FTVM_ST_ENDED :
                vm->paused ? XLFT_FTVM_ST_PAUSED : XLFT_FTVM_ST_RUNNING;
    st->mode = vm->mode == FTVM_RECORD ? XLFT_FTVM_MODE_RECORD :
               vm->mode == FTVM_REPLAY ? XLFT_FTVM_MODE_REPLAY :
               XLFT_FTVM_MODE_LIVE;
    st->insns = vm->count;
    st->seq = vm->mode == FTVM_RECORD ? ft_recorder_seq(&vm->rec) :
              vm->mode == FTVM_REPLAY ? ft_replay_seq(&vm->rp) : 0;
    st->hash = hash ? ftvm_state_hash(vm) : 0;
    st->halted = vm->halted;
    st->speed_pct = vm->speed_pct;
    st->exit_status = vm->status ? vm->status : ftvm_end_status(vm);
    if (vm->status || vm->end)
        snprintf(st->why, sizeof(st->why), "%s", vm->why);
}

/*
 * The log ends here: a progress mark and the state hash, as a standalone
 * recording ends, so the secondary stops exactly here and proves it.
 */
int ftvm_end_log(struct ftvm *vm)
{
    struct ft_log_rec r = { .kind = FT_K_PROGRESS, .pt = ftvm_point(vm) };

    if (vm->status || ftvm_ft_append(vm, &r))
        return -EIO;
    r.kind = FT_K_SYNC;
    r.u.sync.hash = ftvm_state_hash(vm);
    if (ftvm_ft_append(vm, &r))
        return -EIO;
    ftvm_notify(vm);
    return 0;
}

static int refuse(struct xlft_ftvm_rep *rep, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int refuse(struct xlft_ftvm_rep *rep, int err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(rep->msg, sizeof(rep->msg), fmt, ap);
    va_end(ap);
    return err;
}

static int attach(struct ftvm *vm, struct ftvm_ctl *c, uint32_t role)
{
    int fds[3], rc = ftvm_attach(vm, role, c->req.arg, fds);

    if (rc)
        return refuse(&c->rep, rc, "%s", vm->why);
    /* Passed with the reply, and closed once sent: a refusal has none. */
    c->rep_fds[0] = fds[0];
    c->rep_fds[1] = dup(fds[1]);
    c->rep_fds[2] = dup(fds[2]);
    c->rep_nfds = 3;
    c->rep.ring_size = vm->ring_size;
    if (c->rep_fds[1] < 0 || c->rep_fds[2] < 0) {
        rc = refuse(&c->rep, -errno, "cannot pass the ring: %s",
                    strerror(errno));
        ftvm_detach(vm);
        goto out;
    }
    if (role == FT_RING_RECORD) {
        /* The log starts with the state it applies to. */
        struct ft_log_rec r = { .kind = FT_K_SYNC, .pt = ftvm_point(vm) };

        if (ftvm_gate_start(vm)) {
            rc = refuse(&c->rep, -ENOMEM, "%s", vm->why);
            ftvm_detach(vm);
            goto out;
        }
        vm->mode = FTVM_RECORD;
        ftvm_devstate_reset(vm);
        r.u.sync.hash = ftvm_state_hash(vm);
        if (ftvm_ft_append(vm, &r)) {
            rc = refuse(&c->rep, -EIO, "%s", vm->why);
            goto out;
        }
    } else {
        vm->mode = FTVM_REPLAY;
        ftvm_devstate_reset(vm);
        vm->tsc_last = ftvm_guest_tsc(vm);
    }
out:
    if (rc) {
        for (int i = 0; i < c->rep_nfds; i++)
            if (c->rep_fds[i] >= 0)
                close(c->rep_fds[i]);
        c->rep_nfds = 0;
    }
    return rc;
}

/*
 * This copy must not go on (ftd lost the claim, or fences it): nothing
 * it holds may ever leave, and it produces nothing more, not even the
 * end of its log.  An end says the primary stopped in order, and a
 * secondary that replays to it stops there too; the secondary of a
 * halted primary must instead take over from it, or already has.  A copy
 * that had failed already keeps that failure as its exit status.
 */
static void halt(struct ftvm *vm)
{
    size_t bytes, n = ftvm_gate_discard(vm, &bytes);

    ftvm_fail(vm, FTVM_EXIT_HALTED, "halted by the control client: %zu "
              "held outputs (%zu bytes) thrown away, never sent", n, bytes);
    vm->stop = true;
}

/* Carry out the request in c->req; the reply's error. */
static int perform(struct ftvm *vm, struct ftvm_ctl *c, bool at_stop)
{
    struct xlft_ftvm_rep *rep = &c->rep;
    int rc;

    switch (c->req.op) {
    case XLFT_FTVM_OP_STATUS:
        return 0;
    case XLFT_FTVM_OP_STOP:
        if (vm->mode == FTVM_RECORD && !vm->status && !vm->log_closed &&
            at_stop && ftvm_end_log(vm))
            return refuse(rep, -EIO, "%s", vm->why);
        /* An orderly end: what the gate holds goes out (a primary that
         * failed keeps it: no secondary may hold its record). */
        if (!vm->status)
            ftvm_gate_end(vm);
        vm->stop = true;
        return 0;
    case XLFT_FTVM_OP_HALT:
        halt(vm);
        return 0;
    case XLFT_FTVM_OP_GOLIVE:
        if (vm->went_live)
            return 0;           /* the ring's flag got there first */
        if (vm->mode != FTVM_REPLAY)
            return refuse(rep, -EINVAL, "not replaying: nothing to go live "
                          "from");
        if (vm->status)
            return refuse(rep, -EIO, "replay has failed, the guest cannot "
                          "go live: %s", vm->why);
        ft_ring_set_flags(&vm->ring, FT_RING_F_GOLIVE);
        return 0;
    default:
        break;
    }
    if (!at_stop)
        return refuse(rep, -EBUSY, "the vCPU waits inside an instruction "
                      "for the %s ring; only status, golive, stop and halt "
                      "are served now", vm->mode == FTVM_RECORD ? "record"
                                                            : "replay");
    if ((vm->status && c->req.op != XLFT_FTVM_OP_SAVE) ||
        (vm->end && c->req.op != XLFT_FTVM_OP_DISABLE))
        return refuse(rep, -EIO, "the guest has stopped for good: %s",
                      vm->why);

    switch (c->req.op) {
    case XLFT_FTVM_OP_PAUSE:
        vm->paused = true;
        return 0;
    case XLFT_FTVM_OP_THROTTLE:
        vm->speed_pct = c->req.arg;
        return 0;
    case XLFT_FTVM_OP_UNPAUSE:
        if (!vm->ram_loaded)
            return refuse(rep, -EINVAL, "no guest yet: restore one first");
        vm->paused = false;
        return 0;
    case XLFT_FTVM_OP_SAVE:
        if (!vm->paused)
            return refuse(rep, -EBUSY, "pause the guest before saving it");
        if (!vm->ram_loaded)
            return refuse(rep, -EINVAL, "no guest to save");
        rc = ftvm_snapshot_save_fd(vm, c->req_fd, "(control socket)");
        return rc ? refuse(rep, rc, "%s", vm->why) : 0;
    case XLFT_FTVM_OP_RESTORE:
        if (!vm->paused || vm->mode != FTVM_FREE)
            return refuse(rep, -EBUSY, "restore needs a paused guest that "
                          "neither records nor replays");
        rc = ftvm_snapshot_restore_fd(vm, c->req_fd, "(control socket)");
        if (rc) {
            /* Guest memory may be half overwritten: nothing to run. */
            vm->ram_loaded = false;
            return refuse(rep, rc, "%s", vm->why);
        }
        vm->ram_loaded = true;
        return 0;
    case XLFT_FTVM_OP_RECORD:
    case XLFT_FTVM_OP_REPLAY:
        if (vm->mode != FTVM_FREE)
            return refuse(rep, -EBUSY, "already %s",
                          vm->mode == FTVM_RECORD ? "recording"
                                                  : "replaying");
        if (!vm->ram_loaded)
            return refuse(rep, -EINVAL, "no guest yet: restore one first");
        if (c->req.op == XLFT_FTVM_OP_REPLAY && !vm->paused)
            return refuse(rep, -EBUSY, "pause the guest before replaying "
                          "into it");
        return attach(vm, c, c->req.op == XLFT_FTVM_OP_RECORD
                             ? FT_RING_RECORD : FT_RING_REPLAY);
    case XLFT_FTVM_OP_DISABLE:
        if (vm->mode != FTVM_RECORD)
            return refuse(rep, -EINVAL, "not recording (a secondary is "
                          "stopped or goes live, it is not disabled)");
        if (!vm->log_closed && ftvm_end_log(vm))
            return refuse(rep, -EIO, "%s", vm->why);
        vm->mode = FTVM_FREE;
        ftvm_gate_end(vm);
        ftvm_detach(vm);
        return 0;
    default:
        return refuse(rep, -EOPNOTSUPP, "unknown operation");
    }
}

void ftvm_ctl_service(struct ftvm *vm, bool at_stop)
{
    struct ftvm_ctl *c = vm->ctl;
    uint64_t n;

    if (!c || c->busy || !__atomic_load_n(&c->pending, __ATOMIC_ACQUIRE))
        return;
    if (read(vm->ctl_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
        ftvm_fail(vm, FTVM_EXIT_ERROR, "control: %s", strerror(errno));
    c->busy = true;
    memset(&c->rep, 0, sizeof(c->rep));
    c->rep_nfds = 0;
    c->rep.error = perform(vm, c, at_stop);
    status(vm, &c->rep.st, at_stop && c->req.op == XLFT_FTVM_OP_STATUS &&
           (c->req.flags & XLFT_FTVM_F_HASH));
    c->busy = false;

    pthread_mutex_lock(&c->lock);
    __atomic_store_n(&c->pending, 0, __ATOMIC_RELEASE);
    c->done = true;
    pthread_cond_signal(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

/* Leave replay at the horizon: from here on the host drives the guest. */
void ftvm_go_live(struct ftvm *vm)
{
    vm->mode = FTVM_FREE;
    vm->went_live = true;
    /* The guest's TSC goes on from the last value it saw. */
    vm->tsc_base = __builtin_ia32_rdtsc() - vm->tsc_last;
    /* Possibly inside a device access (a replay that waited for its
     * input): the devices go live at the next instruction boundary. */
    vm->devices_going_live = true;
    ftvm_notify(vm);
}

/* ---- the control thread -------------------------------------------- */

static void reply(int fd, const struct xlft_ftvm_rep *rep, const int *fds,
                  int nfds)
{
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = { (void *)rep, sizeof(*rep) };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

    if (nfds) {
        struct cmsghdr *cm;

        m.msg_control = u.buf;
        m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
        cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
        memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
    }
    /* A client that went away misses its reply; nothing else is lost. */
    (void)sendmsg(fd, &m, MSG_NOSIGNAL);
}

static void refuse_now(int fd, int err, const char *msg)
{
    struct xlft_ftvm_rep rep = { .magic = XLFT_FTVM_MAGIC,
                                 .version = XLFT_FTVM_VERSION,
                                 .error = err };

    snprintf(rep.msg, sizeof(rep.msg), "%s", msg);
    reply(fd, &rep, NULL, 0);
}

/* One request from 'fd': 1 served, 0 the client left, -1 quit. */
static int serve_one(struct ftvm *vm, struct ftvm_ctl *c, int fd)
{
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    char buf[sizeof(struct xlft_ftvm_req) + 1], msg[200];
    struct iovec iov = { buf, sizeof(buf) };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
                        .msg_control = u.buf,
                        .msg_controllen = sizeof(u.buf) };
    struct cmsghdr *cm;
    int in_fd = -1, nfds = 0, rc;
    ssize_t n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
    uint64_t one = 1;

    if (n <= 0)
        return 0;
    for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
            int k = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));

            for (int i = 0; i < k; i++) {
                int got;

                memcpy(&got, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
                if (in_fd < 0)
                    in_fd = got;
                else
                    close(got);
                nfds++;
            }
        }
    }
    if (m.msg_flags & MSG_CTRUNC) {
        rc = -EINVAL;
        snprintf(msg, sizeof(msg), "too many file descriptors");
    } else if (m.msg_flags & MSG_TRUNC) {
        rc = -EBADMSG;
        snprintf(msg, sizeof(msg), "request longer than %zu bytes",
                 sizeof(struct xlft_ftvm_req));
    } else {
        rc = xlft_ftvm_req_check(buf, (long)n, nfds, msg, sizeof(msg));
    }
    if (rc) {
        refuse_now(fd, rc, msg);
        if (in_fd >= 0)
            close(in_fd);
        return 1;
    }

    pthread_mutex_lock(&c->lock);
    memcpy(&c->req, buf, sizeof(c->req));
    c->req_fd = in_fd;
    c->done = false;
    __atomic_store_n(&c->pending, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&vm->kick, 1, __ATOMIC_RELEASE);
    if (write(vm->ctl_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
        c->done = true;         /* cannot happen with an eventfd */
    /* The vCPU thread answers at its next stop; a reply that is ready
     * goes out even if ftvm is quitting meanwhile. */
    while (!c->done) {
        struct pollfd q = { .fd = c->quit_fd, .events = POLLIN };
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&c->cond, &c->lock, &ts);
        if (c->done)
            break;
        pthread_mutex_unlock(&c->lock);
        if (poll(&q, 1, 0) > 0) {
            if (in_fd >= 0)
                close(in_fd);
            return -1;
        }
        pthread_mutex_lock(&c->lock);
    }
    c->rep.magic = XLFT_FTVM_MAGIC;
    c->rep.version = XLFT_FTVM_VERSION;
    c->rep.op = c->req.op;
    reply(fd, &c->rep, c->rep_fds, c->rep_nfds);
    for (int i = 0; i < c->rep_nfds; i++)
        close(c->rep_fds[i]);
    c->rep_nfds = 0;
    pthread_mutex_unlock(&c->lock);
    if (in_fd >= 0)
        close(in_fd);
    return 1;
}

/* Only the user ftvm runs as (or root) may drive it. */
static bool trusted(int fd)
{
    struct ucred cr;
    socklen_t len = sizeof(cr);

    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
        return false;
    return cr.uid == 0 || cr.uid == geteuid();
}

/*
 * A connection beside the client's: each of its requests is answered
 * -EBUSY until it hangs up.  1 while it stays, 0 once it has gone.
 */
static int refuse_extra(int fd)
{
    union {
        char buf[CMSG_SPACE(4 * sizeof(int))];
        struct cmsghdr align;
    } u;
    char buf[sizeof(struct xlft_ftvm_req) + 1];
    struct iovec iov = { buf, sizeof(buf) };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
                        .msg_control = u.buf,
                        .msg_controllen = sizeof(u.buf) };
    struct cmsghdr *cm;

    if (recvmsg(fd, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT) <= 0)
        return 0;
    for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
            continue;
        for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
             i++) {
            int got;

            memcpy(&got, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
            close(got);
        }
    }
    refuse_now(fd, -EBUSY, "another control client is connected");
    return 1;
}

#define EXTRA_MAX 8

static void *ctl_main(void *arg)
{
    struct ftvm *vm = arg;
    struct ftvm_ctl *c = vm->ctl;
    int cfd = -1, extra[EXTRA_MAX], nextra = 0;

    for (;;) {
        struct pollfd p[3 + EXTRA_MAX] = {
            { .fd = c->quit_fd, .events = POLLIN },
            { .fd = c->lfd, .events = POLLIN },
            { .fd = cfd, .events = POLLIN },
        };

        for (int i = 0; i < nextra; i++)
            p[3 + i] = (struct pollfd){ .fd = extra[i], .events = POLLIN };
        if (poll(p, (nfds_t)(3 + nextra), -1) < 0 && errno != EINTR)
            break;
        if (p[0].revents)
            break;
        /* A client that left goes first: one connecting right after it
         * is the next client, not a second one. */
        if (cfd >= 0 && p[2].revents) {
            int rc = serve_one(vm, c, cfd);

            if (rc < 0)
                break;
            if (rc == 0) {
                close(cfd);
                cfd = -1;
            }
        }
        for (int i = nextra - 1; i >= 0; i--) {
            if (p[3 + i].revents && !refuse_extra(extra[i])) {
                close(extra[i]);
                extra[i] = extra[--nextra];
            }
        }
        if (p[1].revents & POLLIN) {
            int fd = accept4(c->lfd, NULL, NULL, SOCK_CLOEXEC);

            if (fd < 0)
                continue;
            if (!trusted(fd)) {
                refuse_now(fd, -EPERM, "not allowed: connect as root or "
                           "as the user ftvm runs as");
                close(fd);
            } else if (cfd < 0) {
                cfd = fd;
            } else if (nextra < EXTRA_MAX) {
                extra[nextra++] = fd;
            } else {
                close(fd);      /* a flood: these get no answer */
            }
        }
    }
    if (cfd >= 0)
        close(cfd);
    for (int i = 0; i < nextra; i++)
        close(extra[i]);
    return NULL;
}

/*
 * Listen on 'path'.  A socket left there by an ftvm that died is
 * replaced; one that answers is another ftvm's, and an error; anything
 * else there (a symbolic link, a file) is not ours to remove.
 */
/* A system call on the control socket failed: 'rc', said in vm->why. */
static int ctl_failed(struct ftvm *vm, const char *path, int rc)
{
    snprintf(vm->why, sizeof(vm->why), "control socket %s: %s", path,
             strerror(-rc));
    return rc;
}

int ftvm_ctl_open(struct ftvm *vm, const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct ftvm_ctl *c = NULL;
    bool bound = false;
    struct stat st;
    mode_t old;
    int fd = -1, efd = -1, rc;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        snprintf(vm->why, sizeof(vm->why), "control socket path too long "
                 "(at most %zu bytes): %s", sizeof(sa.sun_path) - 1, path);
        rc = -ENAMETOOLONG;
        goto out;
    }
    if (!lstat(path, &st) && !S_ISSOCK(st.st_mode)) {
        snprintf(vm->why, sizeof(vm->why), "control socket %s is %s, not "
                 "a socket: not used, not removed", path,
                 S_ISLNK(st.st_mode) ? "a symbolic link" :
                 S_ISREG(st.st_mode) ? "a regular file" : "another file");
        rc = -EEXIST;
        goto out;
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        rc = ctl_failed(vm, path, -errno);
        goto out;
    }
    if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        snprintf(vm->why, sizeof(vm->why), "control socket %s is in use "
                 "by another ftvm", path);
        rc = -EADDRINUSE;
        goto out;
    }
    if (errno == ECONNREFUSED)
        unlink(path);
    old = umask(077);
    rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
    umask(old);
    if (rc) {
        rc = ctl_failed(vm, path, -errno);
        goto out;
    }
    bound = true;
    if (listen(fd, 4)) {
        rc = ctl_failed(vm, path, -errno);
        goto out;
    }
    c = calloc(1, sizeof(*c));
    if (!c) {
        rc = ctl_failed(vm, path, -ENOMEM);
        goto out;
    }
    c->lfd = c->quit_fd = c->req_fd = -1;
    strcpy(c->path, path);
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->cond, NULL);
    c->quit_fd = eventfd(0, EFD_CLOEXEC);
    efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (c->quit_fd < 0 || efd < 0) {
        rc = ctl_failed(vm, path, -errno);
        goto out;
    }
    /* The thread finds them in vm from its start. */
    c->lfd = fd;
    vm->ctl_fd = efd;
    vm->ctl = c;
    rc = -pthread_create(&c->thread, NULL, ctl_main, vm);
    if (rc) {
        vm->ctl_fd = -1;
        vm->ctl = NULL;
        c->lfd = -1;
        ctl_failed(vm, path, rc);
        goto out;
    }
    fd = efd = -1;
    c = NULL;
out:
    if (c) {
        if (c->quit_fd >= 0)
            close(c->quit_fd);
        pthread_mutex_destroy(&c->lock);
        pthread_cond_destroy(&c->cond);
        free(c);
    }
    if (efd >= 0)
        close(efd);
    if (fd >= 0)
        close(fd);
    if (rc && bound)
        unlink(path);
    return rc;
}

void ftvm_ctl_close(struct ftvm *vm)
{
    struct ftvm_ctl *c = vm->ctl;
    uint64_t one = 1;

    if (!c)
        return;
    if (write(c->quit_fd, &one, sizeof(one)) < 0)
        pthread_cancel(c->thread);
    pthread_join(c->thread, NULL);
    unlink(c->path);
    close(c->lfd);
    close(c->quit_fd);
    close(vm->ctl_fd);
    vm->ctl_fd = -1;
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->cond);
    free(c);
    vm->ctl = NULL;
}
