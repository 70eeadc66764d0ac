// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm_ctl.c - freezing a guest's device model for its copy, and taking
 * its devices' state (xlft_dm_ctl.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "runsock.h"
#include "xlft_dm_ctl.h"

int xlft_dm_ctl_listen(const char *dir, uint32_t domid, char *err,
                       size_t errlen)
{
    struct sockaddr_un sa;
    int fd;

    if (runsock_path(&sa, dir, "dm", domid)) {
        snprintf(err, errlen, "domain %u: %s/dm-%u: %s", domid, dir, domid,
                 strerror(ENAMETOOLONG));
        return -ENAMETOOLONG;
    }
    fd = runsock_bind(&sa, dir, SOCK_SEQPACKET, domid, err, errlen);
    if (fd >= 0 && listen(fd, 4)) {
        int rc = -errno;

        snprintf(err, errlen, "domain %u: cannot listen on %s: %s", domid,
                 sa.sun_path, strerror(-rc));
        xlft_dm_ctl_close(dir, domid, fd);
        return rc;
    }
    return fd;
}

void xlft_dm_ctl_close(const char *dir, uint32_t domid, int fd)
{
    struct sockaddr_un sa;

    if (fd < 0)
        return;
    if (!runsock_path(&sa, dir, "dm", domid))
        unlink(sa.sun_path);
    close(fd);
}

/* One message from the device model, within XLFT_DM_CTL_MS. */
static ssize_t answer(int fd, void *buf, size_t len)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    ssize_t n;
    int rc;

    do
        rc = poll(&p, 1, XLFT_DM_CTL_MS);
    while (rc < 0 && errno == EINTR);
    if (rc < 0)
        return -errno;
    if (!rc)
        return -ETIMEDOUT;
    n = recv(fd, buf, len, MSG_DONTWAIT | MSG_TRUNC);
    /*
     * A peer that hangs up on a message we sent is reported before
     * what it said first (a refusal); the report read, that comes next.
     */
    if (n < 0 && errno == ECONNRESET) {
        n = recv(fd, buf, len, MSG_DONTWAIT | MSG_TRUNC);
        if (n < 0 && errno == EAGAIN)
            return -ECONNRESET;
    }
    if (n < 0)
        return -errno;
    if (!n)
        return -ECONNRESET;
    return (size_t)n > len ? -EMSGSIZE : n;
}

int xlft_dm_freeze(const char *dir, uint32_t domid, char *err,
                   size_t errlen)
{
    static const char ask[] = "freeze 1";
    struct sockaddr_un sa;
    char buf[200];
    ssize_t n;
    int fd = -1, rc;

    rc = runsock_path(&sa, dir, "dm", domid);
    if (rc)
        goto out;
    fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        rc = -errno;
        goto out;
    }
    if (connect(fd, (const struct sockaddr *)&sa, sizeof(sa))) {
        rc = errno == ECONNREFUSED ? -ENOENT : -errno;
        goto out;
    }
    /* A refusal may be waiting already, and the socket then closed. */
    if (send(fd, ask, sizeof(ask) - 1, MSG_NOSIGNAL) < 0 &&
        errno != EPIPE && errno != ECONNRESET) {
        rc = -errno;
        goto out;
    }
    n = answer(fd, buf, sizeof(buf) - 1);
    if (n < 0) {
        rc = (int)n;
        goto out;
    }
    buf[n] = '\0';
    if (strcmp(buf, "frozen")) {
        snprintf(err, errlen, "domain %u: its device model would not "
                 "freeze for the copy: %.*s", domid, (int)n, buf);
        close(fd);
        return -EPROTO;
    }
    return fd;
out:
    if (fd >= 0)
        close(fd);
    snprintf(err, errlen, "domain %u: cannot freeze its device model at "
             "%s: %s", domid, sa.sun_path,
             rc == -ENOENT ? "none listens" : strerror(-rc));
    return rc;
}

int xlft_dm_state(int fd, uint32_t domid, uint8_t *buf, char *err,
                  size_t errlen)
{
    ssize_t n;

    if (send(fd, "state", 5, MSG_NOSIGNAL) < 0)
        n = -errno;
    else
        n = answer(fd, buf, XLFT_DM_STATE_MAX);
    if (n >= 8 && !memcmp(buf, "XFTDMDEV", 8))
        return (int)n;
    if (n >= 0)
        snprintf(err, errlen, "domain %u: its device model answered no "
                 "device state (%zd bytes)", domid, n);
    else
        snprintf(err, errlen, "domain %u: no device state from its device "
                 "model: %s", domid, strerror((int)-n));
    return n >= 0 ? -EPROTO : (int)n;
}
