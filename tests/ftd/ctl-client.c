// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctl-client.c - control clients of ftd that misbehave, for busy.sh.
 *
 *   ctl-client SOCK late GOFILE   connect, say "connected", send nothing
 *                                 until GOFILE exists (10 s at most), then
 *                                 send "status" and print the answer
 *   ctl-client SOCK many N        hold N connections that send nothing,
 *                                 then print what one more is answered
 *
 * late shows whether ftd still served others while this client was
 * silent, and whether it was still heard afterwards; many shows how
 * ftd refuses a client beyond its bound.  Exit 0, or 1 with a message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MANY_MAX    64
#define ANSWER_MS   5000

static int dial(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd, tries = 0;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        fprintf(stderr, "ctl-client: socket path too long: %s\n", path);
        return -1;
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    /* A full backlog: ftd takes clients from it at once, or fails. */
    while (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        if (errno == EAGAIN && ++tries < 100) {
            usleep(10000);      /* polling for room, bounded: 1 s */
            continue;
        }
        fprintf(stderr, "ctl-client: connect to %s: %s\n", path,
                strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* Print what 'fd' is sent until it closes, ANSWER_MS at most. */
static int answer(int fd)
{
    char buf[4096];

    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        ssize_t n;

        if (poll(&p, 1, ANSWER_MS) != 1) {
            printf("(no answer within %d ms)\n", ANSWER_MS);
            return 1;
        }
        n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EAGAIN)
            continue;
        if (n <= 0)
            return 0;
        fwrite(buf, 1, (size_t)n, stdout);
    }
}

static int late(const char *path, const char *go)
{
    static const char cmd[] = "status\n";
    int fd = dial(path), i, rc = 1;

    if (fd < 0)
        return 1;
    printf("connected\n");
    fflush(stdout);
    for (i = 0; i < 1000 && access(go, F_OK); i++)
        usleep(10000);          /* polling for the go, bounded: 10 s */
    if (i == 1000)
        fprintf(stderr, "ctl-client: no %s within 10 s\n", go);
    else if (send(fd, cmd, sizeof(cmd) - 1, MSG_NOSIGNAL) !=
             (ssize_t)sizeof(cmd) - 1)
        printf("(dropped before it spoke: %s)\n", strerror(errno));
    else
        rc = answer(fd);
    close(fd);
    return rc;
}

static int many(const char *path, int n)
{
    int fds[MANY_MAX], got = 0, fd, rc = 1;

    if (n < 1 || n > MANY_MAX) {
        fprintf(stderr, "ctl-client: many: 1 to %d\n", MANY_MAX);
        return 1;
    }
    while (got < n && (fds[got] = dial(path)) >= 0)
        got++;
    if (got < n) {
        fprintf(stderr, "ctl-client: only %d of %d connections\n", got, n);
    } else {
        fd = dial(path);
        if (fd >= 0) {
            rc = answer(fd);
            close(fd);
        }
    }
    while (got)
        close(fds[--got]);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[2], "late"))
        return late(argv[1], argv[3]);
    if (argc == 4 && !strcmp(argv[2], "many"))
        return many(argv[1], atoi(argv[3]));
    fprintf(stderr, "usage: ctl-client SOCK late GOFILE | many N\n");
    return 2;
}
