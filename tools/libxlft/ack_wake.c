// SPDX-License-Identifier: GPL-2.0-only
/*
 * ack_wake.c - ftd's wake-up of a Xen guest's device model when the
 * acknowledgement moves (xlft_ack_wake.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "runsock.h"
#include "xlft_ack_wake.h"

int xlft_ack_wake_listen(const char *dir, uint32_t domid, char *err,
                         size_t errlen)
{
    struct sockaddr_un sa;

    if (runsock_path(&sa, dir, "ack", domid)) {
        snprintf(err, errlen, "domain %u: %s/ack-%u: %s", domid, dir, domid,
                 strerror(ENAMETOOLONG));
        return -ENAMETOOLONG;
    }
    return runsock_bind(&sa, dir, SOCK_DGRAM, domid, err, errlen);
}

void xlft_ack_wake_close(const char *dir, uint32_t domid, int fd)
{
    struct sockaddr_un sa;

    if (fd < 0)
        return;
    if (!runsock_path(&sa, dir, "ack", domid))
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
    int rc = runsock_path(&sa, dir, "ack", domid);

    if (rc)
        return rc;
    if (sendto(fd, "a", 1, MSG_DONTWAIT | MSG_NOSIGNAL,
               (const struct sockaddr *)&sa, sizeof(sa)) < 0)
        return errno == EWOULDBLOCK ? -EAGAIN : -errno;
    return 0;
}
