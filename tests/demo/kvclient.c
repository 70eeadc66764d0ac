// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvclient - writes keys to the kvstore guest and lists those it
 * acknowledged (each acknowledgement comes once the key is on disk).
 *   kvclient ADDR N OUT     PUT key1..keyN to ADDR:7777, acknowledged
 *                           keys one per line into OUT
 * Each request is tried up to 10 times, 300 ms apart.  Exit status 0 if
 * every key was acknowledged.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(7777) };
    char req[128], ans[256], want[64];
    long n, acked = 0;
    FILE *out;
    int fd;

    if (argc != 4 || inet_pton(AF_INET, argv[1], &a.sin_addr) != 1 ||
        (n = strtol(argv[2], NULL, 10)) < 1 || n > 100000) {
        fprintf(stderr, "usage: kvclient ADDR N OUT\n");
        return 2;
    }
    fd = socket(AF_INET, SOCK_DGRAM, 0);
    out = fopen(argv[3], "w");
    if (fd < 0 || !out || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
        fprintf(stderr, "kvclient: %s\n", strerror(errno));
        return 1;
    }
    for (long i = 1; i <= n; i++) {
        int len = snprintf(req, sizeof(req), "PUT key%ld value-%ld\n", i,
                           i * 7919);
        bool ok = false;

        snprintf(want, sizeof(want), "OK key%ld", i);
        for (int t = 0; t < 10 && !ok; t++) {
            struct pollfd p = { .fd = fd, .events = POLLIN };

            if (send(fd, req, (size_t)len, 0) < 0)
                continue;
            while (!ok && poll(&p, 1, 300) > 0) {
                ssize_t got = recv(fd, ans, sizeof(ans) - 1, 0);

                if (got <= 0)
                    break;
                ans[got] = '\0';
                ok = !strcmp(ans, want);
            }
        }
        if (!ok) {
            fprintf(stderr, "kvclient: key%ld was not acknowledged\n", i);
            continue;
        }
        fprintf(out, "key%ld\n", i);
        acked++;
    }
    fclose(out);
    printf("kvclient: %ld of %ld keys acknowledged\n", acked, n);
    return acked == n ? 0 : 1;
}
