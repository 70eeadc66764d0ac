// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftvmctl.c - the client of `ftvm serve`'s control socket, and the
 * mapping of the rings it hands out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "xlft_ftvm.h"

struct xlft_ftvm {
    int fd;                     /* -1 once a reply was given up on */
    uint16_t op;                /* the request last sent */
    bool asked;                 /* by xlft_ftvm_ask, its reply not taken */
    int deadline_ms;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

int xlft_ftvm_open(struct xlft_ftvm **cp, const char *path, char *err,
                   size_t errlen)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct xlft_ftvm *c = NULL;
    int rc;

    *cp = NULL;
    if (strlen(path) >= sizeof(sa.sun_path)) {
        snprintf(err, errlen, "control socket path too long: %s", path);
        rc = -ENAMETOOLONG;
        goto out;
    }
    c = calloc(1, sizeof(*c));
    if (!c) {
        snprintf(err, errlen, "out of memory");
        rc = -ENOMEM;
        goto out;
    }
    strcpy(sa.sun_path, path);
    strcpy(c->path, path);
    c->deadline_ms = XLFT_FTVM_REPLY_MS;
    c->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa))) {
        rc = -errno;
        snprintf(err, errlen, "cannot reach ftvm at %s: %s%s", path,
                 strerror(-rc), rc == -ENOENT || rc == -ECONNREFUSED ?
                 " (is `ftvm serve` running?)" : "");
        goto out;
    }
    *cp = c;
    c = NULL;
    rc = 0;
out:
    xlft_ftvm_close(c);
    return rc;
}

void xlft_ftvm_close(struct xlft_ftvm *c)
{
    if (!c)
        return;
    if (c->fd >= 0)
        close(c->fd);
    free(c);
}

void xlft_ftvm_set_deadline(struct xlft_ftvm *c, int ms)
{
    c->deadline_ms = ms;
}

int xlft_ftvm_fd(const struct xlft_ftvm *c)
{
    return c->fd;
}

int xlft_ftvm_send(struct xlft_ftvm *c, uint16_t op, uint32_t arg,
                   uint32_t flags, int fd)
{
    struct xlft_ftvm_req req = { .magic = XLFT_FTVM_MAGIC,
                                 .version = XLFT_FTVM_VERSION, .op = op,
                                 .arg = arg, .flags = flags };
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = { &req, sizeof(req) };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

    if (c->fd < 0)
        return -EPIPE;
    c->op = op;
    if (fd >= 0) {
        struct cmsghdr *cm;

        m.msg_control = u.buf;
        m.msg_controllen = sizeof(u.buf);
        cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &fd, sizeof(int));
    }
    if (sendmsg(c->fd, &m, MSG_NOSIGNAL) != (ssize_t)sizeof(req))
        return errno ? -errno : -EIO;
    return 0;
}

/*
 * Wait for the reply to a request that ftvm carries out between two
 * instructions: an ftvm that does not answer one in time (its guest has
 * taken it over, or it is stopped) is given up on, so that it cannot
 * hold ftd.  A copy, and STOP (which waits for the peer's
 * acknowledgements), take as long as they take.  0, or -ETIMEDOUT.
 */
static int reply_due(struct xlft_ftvm *c)
{
    struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
    struct timespec t0, t;
    int left = c->deadline_ms, n;

    if (c->op == XLFT_FTVM_OP_SAVE || c->op == XLFT_FTVM_OP_RESTORE ||
        c->op == XLFT_FTVM_OP_STOP)
        return 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while ((n = poll(&pfd, 1, left)) < 0 && errno == EINTR) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        left = c->deadline_ms - (int)((t.tv_sec - t0.tv_sec) * 1000 +
                                      (t.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0)
            break;
    }
    if (n > 0 || (n < 0 && errno != EINTR))
        return 0;               /* recvmsg says what there is */
    /* A late reply must not be taken for the next request's. */
    close(c->fd);
    c->fd = -1;
    return -ETIMEDOUT;
}

int xlft_ftvm_recv(struct xlft_ftvm *c, struct xlft_ftvm_rep *rep,
                   int fds[3])
{
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = { rep, sizeof(*rep) };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
                        .msg_control = u.buf,
                        .msg_controllen = sizeof(u.buf) };
    struct cmsghdr *cm;
    int got[3], ngot = 0;
    ssize_t n;

    memset(rep, 0, sizeof(*rep));
    if (fds)
        fds[0] = fds[1] = fds[2] = -1;
    if (c->fd < 0) {
        snprintf(rep->msg, sizeof(rep->msg), "ftvm at %s: given up on "
                 "after it left a request unanswered", c->path);
        return rep->error = -EPIPE;
    }
    if (reply_due(c)) {
        snprintf(rep->msg, sizeof(rep->msg), "ftvm at %s did not answer "
                 "%s within %d ms: given up on (its guest is left as it "
                 "is, its outputs held)", c->path,
                 xlft_ftvm_op_name(c->op), c->deadline_ms);
        return rep->error = -ETIMEDOUT;
    }
    n = recvmsg(c->fd, &m, MSG_CMSG_CLOEXEC);
    c->asked = false;
    for (cm = CMSG_FIRSTHDR(&m); n >= 0 && cm; cm = CMSG_NXTHDR(&m, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
            continue;
        for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
             i++) {
            int fd;

            memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
            if (ngot < 3)
                got[ngot++] = fd;
            else
                close(fd);
        }
    }
    if (n != (ssize_t)sizeof(*rep) || rep->magic != XLFT_FTVM_MAGIC ||
        (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
        (ngot && (ngot != 3 || !fds || rep->error))) {
        int rc = n < 0 ? -errno : n == 0 ? -ECONNRESET : -EBADMSG;

        for (int i = 0; i < ngot; i++)
            close(got[i]);
        memset(rep, 0, sizeof(*rep));
        snprintf(rep->msg, sizeof(rep->msg), "ftvm at %s: %s", c->path,
                 rc == -ECONNRESET ? "connection closed (ftvm gone?)" :
                 rc == -EBADMSG ? "malformed reply" : strerror(-rc));
        rep->error = rc;
        return rc;
    }
    rep->msg[sizeof(rep->msg) - 1] = '\0';
    rep->st.why[sizeof(rep->st.why) - 1] = '\0';
    if (ngot)
        memcpy(fds, got, sizeof(got));
    return rep->error;
}

int xlft_ftvm_call(struct xlft_ftvm *c, uint16_t op, uint32_t arg,
                   uint32_t flags, int fd, struct xlft_ftvm_rep *rep,
                   int fds[3])
{
    int rc;

    /* The answer to a question asked in passing comes first. */
    if (c->asked && xlft_ftvm_recv(c, rep, NULL) && c->fd < 0)
        return rep->error;
    /* Given up on: recv says so. */
    rc = c->fd < 0 ? 0 : xlft_ftvm_send(c, op, arg, flags, fd);

    if (rc) {
        memset(rep, 0, sizeof(*rep));
        snprintf(rep->msg, sizeof(rep->msg), "ftvm at %s: cannot send: %s",
                 c->path, strerror(-rc));
        rep->error = rc;
        return rc;
    }
    return xlft_ftvm_recv(c, rep, fds);
}

int xlft_ftvm_ask(struct xlft_ftvm *c, uint16_t op,
                  struct xlft_ftvm_rep *rep)
{
    struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
    int rc;

    if (c->fd >= 0 && !c->asked) {
        rc = xlft_ftvm_send(c, op, 0, 0, -1);
        if (rc) {
            memset(rep, 0, sizeof(*rep));
            snprintf(rep->msg, sizeof(rep->msg), "ftvm at %s: cannot "
                     "send: %s", c->path, strerror(-rc));
            return rep->error = rc;
        }
        c->asked = true;
    }
    /* Interrupted, it has not come either: nothing here may wait. */
    if (c->fd >= 0 && (rc = poll(&pfd, 1, 0)) <= 0 &&
        (rc == 0 || errno == EINTR))
        return -EAGAIN;
    return xlft_ftvm_recv(c, rep, NULL);
}

/* The seals a ring must carry: its size fixed for good. */
#define RING_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

/*
 * Whether the memfd of a ring of 'size' bytes can be mapped for good: a
 * file that its owner could cut after the mapping would kill this
 * process with SIGBUS at its next look into the ring, and ftvm is the
 * guest's (taken over, it is the guest).  0, or -EPERM or -EPROTO.
 */
static int ring_fixed(int fd, uint32_t size, char *err, size_t errlen)
{
    int seals = fcntl(fd, F_GET_SEALS);
    struct stat st;

    if (seals < 0 || (seals & RING_SEALS) != RING_SEALS) {
        snprintf(err, errlen, "refused the ring ftvm passed: %s (it must "
                 "be a memfd sealed with F_SEAL_SHRINK, F_SEAL_GROW and "
                 "F_SEAL_SEAL, or ftvm could cut it from under this "
                 "mapping)", seals < 0 ? "it cannot be sealed" :
                 "it is not sealed against resizing");
        return -EPERM;
    }
    if (fstat(fd, &st)) {
        snprintf(err, errlen, "refused the ring ftvm passed: fstat: %s",
                 strerror(errno));
        return -EPROTO;
    }
    if (st.st_size != (off_t)size) {
        snprintf(err, errlen, "refused the ring ftvm passed: it is %lld "
                 "bytes, not the %u ftvm said", (long long)st.st_size,
                 size);
        return -EPROTO;
    }
    return 0;
}

int xlft_ring_map(struct xlft_ring *r, const int fds[3], uint32_t size,
                  uint32_t role, char *err, size_t errlen)
{
    int rc;

    memset(r, 0, sizeof(*r));
    r->up_fd = fds[1];
    r->down_fd = fds[2];
    r->size = size;
    rc = ring_fixed(fds[0], size, err, errlen);
    if (rc)
        goto out;
    r->mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
    if (r->mem == MAP_FAILED) {
        rc = -errno;
        r->mem = NULL;
        snprintf(err, errlen, "cannot map the ring (%u bytes): %s", size,
                 strerror(-rc));
        goto out;
    }
    rc = ft_ring_attach(&r->ring, r->mem, size, role);
    if (rc) {
        snprintf(err, errlen, "the ring ftvm passed is not a %s ring of "
                 "this version: %s", role == FT_RING_RECORD ? "record"
                 : "replay", ft_strerror(rc));
        rc = rc == FT_EPROTONOSUPPORT ? -EPROTONOSUPPORT : -EPROTO;
    }
out:
    /* The mapping holds the ring: its descriptor is of no more use. */
    close(fds[0]);
    if (rc)
        xlft_ring_unmap(r);
    return rc;
}

void xlft_ring_unmap(struct xlft_ring *r)
{
    if (r->mem)
        munmap(r->mem, r->size);
    if (r->up_fd >= 0)
        close(r->up_fd);
    if (r->down_fd >= 0)
        close(r->down_fd);
    r->mem = NULL;
    r->up_fd = r->down_fd = -1;
}

int xlft_ring_notify(struct xlft_ring *r)
{
    uint64_t one = 1;

    if (write(r->down_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
        return -errno;
    return 0;
}

const char *xlft_ftvm_op_name(uint16_t op)
{
    static const char *const names[] = {
        [XLFT_FTVM_OP_STATUS] = "status", [XLFT_FTVM_OP_PAUSE] = "pause",
        [XLFT_FTVM_OP_UNPAUSE] = "unpause", [XLFT_FTVM_OP_SAVE] = "save",
        [XLFT_FTVM_OP_RESTORE] = "restore", [XLFT_FTVM_OP_RECORD] = "record",
        [XLFT_FTVM_OP_REPLAY] = "replay", [XLFT_FTVM_OP_GOLIVE] = "golive",
        [XLFT_FTVM_OP_DISABLE] = "disable", [XLFT_FTVM_OP_STOP] = "stop",
        [XLFT_FTVM_OP_THROTTLE] = "throttle", [XLFT_FTVM_OP_HALT] = "halt",
    };

    return op <= XLFT_FTVM_OP_MAX && names[op] ? names[op] : "unknown";
}

const char *xlft_ftvm_state_name(uint32_t state)
{
    switch (state) {
    case XLFT_FTVM_ST_PAUSED: return "paused";
    case XLFT_FTVM_ST_RUNNING: return "running";
    case XLFT_FTVM_ST_FAILED: return "failed";
    case XLFT_FTVM_ST_ENDED: return "ended";
    default: return "unknown";
    }
}

const char *xlft_ftvm_mode_name(uint32_t mode)
{
    switch (mode) {
    case XLFT_FTVM_MODE_LIVE: return "live";
    case XLFT_FTVM_MODE_RECORD: return "record";
    case XLFT_FTVM_MODE_REPLAY: return "replay";
    default: return "unknown";
    }
}
