// SPDX-License-Identifier: GPL-2.0-only
/*
 * udpframes - the other end of ftvm's UDP-backed virtio-net, for
 * tests: each datagram is one Ethernet frame.
 *   udpframes send PORT N SIZE     N frames of SIZE bytes to 127.0.0.1:PORT
 *   udpframes recv PORT N SECONDS  wait for N frames on 127.0.0.1:PORT
 * Prints what it did; recv exits 1 if fewer than N came in time.
 */
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

static long arg(const char *s, long lo, long hi)
{
    char *end;
    long v = strtol(s, &end, 10);

    if (*end || v < lo || v > hi) {
        fprintf(stderr, "udpframes: '%s' is not a number from %ld to %ld\n",
                s, lo, hi);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    uint8_t frame[2048];
    int fd;

    if (argc != 5 || (strcmp(argv[1], "send") && strcmp(argv[1], "recv"))) {
        fprintf(stderr, "usage: udpframes send PORT N SIZE\n"
                        "       udpframes recv PORT N SECONDS\n");
        return 2;
    }
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)arg(argv[2], 1, 65535));
    fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        perror("udpframes: socket");
        return 1;
    }
    if (!strcmp(argv[1], "send")) {
        long n = arg(argv[3], 1, 1000000), size = arg(argv[4], 14, 2048);
        struct timespec gap = { 0, 200000 };    /* 0.2 ms: no burst loss */

        for (long i = 0; i < n; i++) {
            for (long j = 0; j < size; j++)
                frame[j] = (uint8_t)(i * 7 + j);
            if (sendto(fd, frame, (size_t)size, 0, (struct sockaddr *)&a,
                       sizeof(a)) != size) {
                perror("udpframes: sendto");
                return 1;
            }
            nanosleep(&gap, NULL);
        }
        printf("udpframes: sent %ld frames of %ld bytes\n", n, size);
        return 0;
    }

    long want = arg(argv[3], 1, 1000000), secs = arg(argv[4], 1, 600), got = 0;
    time_t until = time(NULL) + secs;

    /* Room for every frame at once: a loaded machine may not run this
     * receiver while the guest sends (FORCE passes rmem_max as root). */
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &(int){ 8 << 20 },
                   sizeof(int)))
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &(int){ 8 << 20 },
                   sizeof(int));
    if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
        perror("udpframes: bind");
        return 1;
    }
    while (got < want && time(NULL) < until) {
        struct pollfd p = { .fd = fd, .events = POLLIN };

        if (poll(&p, 1, 200) > 0 && recv(fd, frame, sizeof(frame), 0) > 0)
            got++;
    }
    printf("udpframes: received %ld of %ld frames\n", got, want);
    return got < want;
}
