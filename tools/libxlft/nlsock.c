// SPDX-License-Identifier: GPL-2.0-only
/*
 * nlsock.c - netfilter netlink socket and acknowledged requests
 * (xlft_nlsock.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "xlft_nfnl.h"
#include "xlft_nlsock.h"

int xlft_nlsock_open(void)
{
    struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
    int one = 1;
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
                    NETLINK_NETFILTER);

    if (fd < 0)
        return -errno;
    /* Errors come back with their request's header only. */
    setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        int rc = -errno;

        close(fd);
        return rc;
    }
    return fd;
}

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int xlft_nlsock_transact(int fd, const void *req, size_t len,
                         unsigned nacks)
{
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    long long deadline = now_ms() + XLFT_NLSOCK_TIMEOUT_MS;
    unsigned char *buf;
    unsigned got = 0;
    int err = 0, rc = 0;

    if (sendto(fd, req, len, 0, (struct sockaddr *)&kernel,
               sizeof(kernel)) != (ssize_t)len)
        return -errno;
    buf = malloc(XLFT_NFNL_RCVBUF);
    if (!buf)
        return -ENOMEM;
    while (got < nacks) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        long long left = deadline - now_ms();
        ssize_t n;

        if (left <= 0) {
            rc = -ETIMEDOUT;
            break;
        }
        if (poll(&p, 1, (int)left) < 0 && errno != EINTR) {
            rc = -errno;
            break;
        }
        n = recv(fd, buf, XLFT_NFNL_RCVBUF, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        rc = xlft_nfnl_decode_acks(buf, (size_t)n, &err);
        if (rc < 0)
            break;
        got += (unsigned)rc;
        rc = 0;
        /* A failed batch may not acknowledge the rest: do not wait. */
        if (err)
            break;
    }
    free(buf);
    return rc ? rc : err;
}
