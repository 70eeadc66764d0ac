// SPDX-License-Identifier: GPL-2.0-only
/*
 * ack_wake.c - ftd's wake-up of a Xen guest's device model when the
 * acknowledgement moves (xlft_ack_wake.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "xlft_ack_wake.h"

static int sock_path(struct sockaddr_un *sa, const char *dir,
                     uint32_t domid)
{
    int n;

    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/ack-%u", dir,
                 domid);
    return n > 0 && (size_t)n < sizeof(sa->sun_path) ? 0 : -ENAMETOOLONG;
}

/*
 * A socket there that nobody listens on is a dead listener's; one that
 * answers is alive; anything but a socket is not ours to remove.
 */
static int clear_stale(const struct sockaddr_un *sa)
{
    struct stat st;
    int fd, rc;

    if (lstat(sa->sun_path, &st))
        return errno == ENOENT ? 0 : -errno;
    if (!S_ISSOCK(st.st_mode))
        return -EEXIST;
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    rc = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
    close(fd);
    if (!rc)
        return -EADDRINUSE;
    if (errno != ECONNREFUSED)
        return -errno;
    return unlink(sa->sun_path) && errno != ENOENT ? -errno : 0;
}

int xlft_ack_wake_listen(const char *dir, uint32_t domid, char *err,
                         size_t errlen)
{
    struct sockaddr_un sa;
    struct stat st;
    int fd = -1, rc;

    rc = sock_path(&sa, dir, domid);
    if (rc)
        goto out;
    if (mkdir(dir, 0700) && errno != EEXIST) {
        rc = -errno;
        goto out;
    }
    /* Whoever else may write there could send wake-ups or squat. */
    if (lstat(dir, &st)) {
        rc = -errno;
        goto out;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 022)) {
        rc = -EPERM;
        goto out;
    }
    rc = clear_stale(&sa);
    if (rc)
        goto out;
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (const struct sockaddr *)&sa, sizeof(sa))) {
        rc = -errno;
        goto out;
    }
    return fd;
out:
    if (fd >= 0)
        close(fd);
    snprintf(err, errlen, "domain %u: cannot listen on %s/ack-%u: %s%s",
             domid, dir, domid, strerror(-rc),
             rc == -EPERM ? " (the directory must be the listener's "
             "own, written by nobody else)" : "");
    return rc;
}

void xlft_ack_wake_close(const char *dir, uint32_t domid, int fd)
{
    struct sockaddr_un sa;

    if (fd < 0)
        return;
    if (!sock_path(&sa, dir, domid))
        unlink(sa.sun_path);
    close(fd);
}

int xlft_ack_wake_drain(int fd)
{
    char b[16];
    int n = 0;

    /* Bounded: the socket's queue, refilled no faster than acks come. */
    for (int i = 0; i < 4096; i++) {
        if (recv(fd, b, sizeof(b), MSG_DONTWAIT) < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK ? n : -errno;
        n++;
    }
    return n;
}

int xlft_ack_wake_sender(void)
{
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    return fd < 0 ? -errno : fd;
}

int xlft_ack_wake_send(int fd, const char *dir, uint32_t domid)
{
    struct sockaddr_un sa;
    int rc = sock_path(&sa, dir, domid);

    if (rc)
        return rc;
    if (sendto(fd, "a", 1, MSG_DONTWAIT | MSG_NOSIGNAL,
               (const struct sockaddr *)&sa, sizeof(sa)) < 0)
        return errno == EWOULDBLOCK ? -EAGAIN : -errno;
    return 0;
}
