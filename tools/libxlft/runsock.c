// SPDX-License-Identifier: GPL-2.0-only
/*
 * runsock.c - the device model's sockets in the run directory
 * (runsock.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runsock.h"

int runsock_path(struct sockaddr_un *sa, const char *dir, const char *name,
                 uint32_t domid)
{
    int n;

    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s-%u", dir, name,
                 domid);
    return n > 0 && (size_t)n < sizeof(sa->sun_path) ? 0 : -ENAMETOOLONG;
}

/*
 * A socket there that nobody listens on is a dead listener's; one that
 * answers is alive; anything but a socket is not ours to remove.
 */
static int clear_stale(const struct sockaddr_un *sa, int type)
{
    struct stat st;
    int fd, rc;

    if (lstat(sa->sun_path, &st))
        return errno == ENOENT ? 0 : -errno;
    if (!S_ISSOCK(st.st_mode))
        return -EEXIST;
    fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
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

int runsock_bind(const struct sockaddr_un *sa, const char *dir, int type,
                 uint32_t domid, char *err, size_t errlen)
{
    struct stat st;
    int fd = -1, rc;

    if (mkdir(dir, 0700) && errno != EEXIST) {
        rc = -errno;
        goto out;
    }
    /* Whoever else may write there could send us words, or squat. */
    if (lstat(dir, &st)) {
        rc = -errno;
        goto out;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 022)) {
        rc = -EPERM;
        goto out;
    }
    rc = clear_stale(sa, type);
    if (rc)
        goto out;
    fd = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (const struct sockaddr *)sa, sizeof(*sa))) {
        rc = -errno;
        goto out;
    }
    return fd;
out:
    if (fd >= 0)
        close(fd);
    snprintf(err, errlen, "domain %u: cannot listen on %s: %s%s", domid,
             sa->sun_path, strerror(-rc), rc == -EPERM ? " (the directory "
             "must be the listener's own, written by nobody else)" : "");
    return rc;
}
