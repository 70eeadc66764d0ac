// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvclient - writes keys to the kvstore guest and lists those it
 * acknowledged (each acknowledgement comes once the key is on disk).
 *   kvclient ADDR N OUT     PUT key1..keyN to ADDR:7777, acknowledged
 *                           keys one per line into OUT (as they come)
 *   kvclient --check ADDR FILE   GET every key listed in FILE and check
 *                           its value
 * Each request is tried up to 10 times, 300 ms apart.  Exit status 0 if
 * every key was acknowledged (read back).
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

/* One request, retried: true once 'want' comes back. */
static bool ask(int fd, const char *req, const char *want)
{
    char ans[256];
    bool ok = false;

    for (int t = 0; t < 10 && !ok; t++) {
        struct pollfd p = { .fd = fd, .events = POLLIN };

        if (send(fd, req, strlen(req), 0) < 0)
            continue;
        while (!ok && poll(&p, 1, 300) > 0) {
            ssize_t got = recv(fd, ans, sizeof(ans) - 1, 0);

            if (got <= 0)
                break;
            ans[got] = '\0';
            ok = !strcmp(ans, want);
        }
    }
    return ok;
}

static int connect_to(const char *addr)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_port = htons(7777) };
    int fd;

    if (inet_pton(AF_INET, addr, &a.sin_addr) != 1)
        return -1;
    fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static int check(const char *addr, const char *path)
{
    char req[128], want[128], key[64];
    long n = 0, good = 0, i;
    int fd = connect_to(addr);
    FILE *in = fopen(path, "r");

    if (fd < 0 || !in) {
        fprintf(stderr, "kvclient: %s\n", strerror(errno));
        return 1;
    }
    while (fscanf(in, "%63s", key) == 1) {
        if (sscanf(key, "key%ld", &i) != 1)
            continue;
        n++;
        snprintf(req, sizeof(req), "GET %s\n", key);
        snprintf(want, sizeof(want), "VAL value-%ld", i * 7919);
        if (ask(fd, req, want))
            good++;
        else
            fprintf(stderr, "kvclient: %s is not there\n", key);
    }
    fclose(in);
    printf("kvclient: %ld of %ld keys read back\n", good, n);
    return good == n ? 0 : 1;
}

int main(int argc, char **argv)
{
    char req[128], want[64];
    long n, acked = 0;
    FILE *out;
    int fd;

    if (argc == 4 && !strcmp(argv[1], "--check"))
        return check(argv[2], argv[3]);
    if (argc != 4 || (n = strtol(argv[2], NULL, 10)) < 1 || n > 100000) {
        fprintf(stderr, "usage: kvclient ADDR N OUT | --check ADDR FILE\n");
        return 2;
    }
    fd = connect_to(argv[1]);
    out = fopen(argv[3], "w");
    if (fd < 0 || !out) {
        fprintf(stderr, "kvclient: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    /* Each acknowledged key is on record at once: the demo watches. */
    setvbuf(out, NULL, _IOLBF, 0);
    for (long i = 1; i <= n; i++) {
        snprintf(req, sizeof(req), "PUT key%ld value-%ld\n", i, i * 7919);
        snprintf(want, sizeof(want), "OK key%ld", i);
        if (!ask(fd, req, want)) {
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
