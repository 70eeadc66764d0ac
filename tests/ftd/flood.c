// SPDX-License-Identifier: GPL-2.0-only
/*
 * flood - a stranger without the key at ftd's logging port.
 *   flood ADDR PORT N SECONDS
 * Opens N TCP connections to ADDR:PORT, at most 200 at a time, each
 * either silent or sending the start of a frame that claims to be 1 MiB
 * long, and holds each until the peer closes it or the time is up.
 * Prints how many connected and how many the peer closed.  Exit status
 * 0 once all N were tried within SECONDS, 1 otherwise.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define AT_ONCE 200

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    struct sockaddr_in sa = { .sin_family = AF_INET };
    struct pollfd p[AT_ONCE];
    /* A HELLO's header (WIRE.md) claiming a payload of nearly 1 MiB. */
    static const unsigned char big[20] = { 'X', 'F', 'T', 'C', 1, 1, 0, 0,
                                           0x00, 0xff, 0x0f, 0x00 };
    long n, tried = 0, connected = 0, closed = 0, open = 0;
    double end;

    if (argc != 5 || inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1) {
        fprintf(stderr, "usage: flood ADDR PORT N SECONDS\n");
        return 2;
    }
    sa.sin_port = htons((uint16_t)atoi(argv[2]));
    n = atol(argv[3]);
    end = now_s() + atof(argv[4]);
    for (int i = 0; i < AT_ONCE; i++)
        p[i].fd = -1;
    while ((tried < n || open) && now_s() < end) {
        for (int i = 0; i < AT_ONCE && tried < n; i++) {
            int fd;

            if (p[i].fd >= 0)
                continue;
            fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            tried++;
            if (fd < 0)
                continue;
            if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
                close(fd);
                continue;
            }
            connected++;
            if (tried % 2 && write(fd, big, sizeof(big)) < 0) {
                close(fd);
                continue;
            }
            p[i] = (struct pollfd){ .fd = fd, .events = POLLIN };
            open++;
        }
        if (poll(p, AT_ONCE, 20) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < AT_ONCE; i++) {
            char buf[512];

            if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP |
                                                 POLLERR)))
                continue;
            if (read(p[i].fd, buf, sizeof(buf)) > 0)
                continue;
            close(p[i].fd);
            p[i].fd = -1;
            open--;
            closed++;
        }
    }
    for (int i = 0; i < AT_ONCE; i++)
        if (p[i].fd >= 0)
            close(p[i].fd);
    printf("flood: %ld tried, %ld connected, %ld closed by the peer\n",
           tried, connected, closed);
    return tried == n ? 0 : 1;
}
