// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctl.c - one command to ftd, one answer (ctl.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl.h"

/* ftd answers at once; a connect to a peer takes 5 s at most. */
#define ANSWER_MS   15000
/* Status of 64 pairs as JSON is some 60 KiB: far below this. */
#define ANSWER_MAX  (1u << 20)

int ctl_ask(const char *path, const char *req, char **ans, char *why,
            size_t len)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    size_t got = 0, cap = 4096, n = strlen(req);
    char *buf = NULL;
    int fd = -1, rc = 0;

    *ans = NULL;
    if (strlen(path) >= sizeof(sa.sun_path)) {
        snprintf(why, len, "socket path too long: %s", path);
        return -ENAMETOOLONG;
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        rc = -errno;
        snprintf(why, len, "cannot reach ftd at %s: %s%s", path,
                 strerror(errno), errno == ENOENT || errno == ECONNREFUSED ?
                 " (is ftd running on this host?)" : "");
        goto out;
    }
    if (write(fd, req, n) != (ssize_t)n) {
        rc = -errno;
        snprintf(why, len, "%s: %s", path, strerror(errno));
        goto out;
    }
    buf = malloc(cap);
    if (!buf) {
        rc = -ENOMEM;
        snprintf(why, len, "out of memory");
        goto out;
    }
    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        ssize_t r;

        if (poll(&p, 1, ANSWER_MS) != 1) {
            rc = -ETIMEDOUT;
            snprintf(why, len, "ftd did not answer");
            goto out;
        }
        if (got + 1 == cap) {
            char *more = cap < ANSWER_MAX ? realloc(buf, cap * 2) : NULL;

            if (!more) {
                rc = -EMSGSIZE;
                snprintf(why, len, "ftd's answer is longer than %u bytes",
                         ANSWER_MAX);
                goto out;
            }
            buf = more;
            cap *= 2;
        }
        r = read(fd, buf + got, cap - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = -errno;
            snprintf(why, len, "%s: %s", path, strerror(errno));
            goto out;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    buf[got] = '\0';
    *ans = buf;
    buf = NULL;
out:
    free(buf);
    if (fd >= 0)
        close(fd);
    return rc;
}

int ctl_refused(const char *ans)
{
    return !strncmp(ans, "error", 5);
}
