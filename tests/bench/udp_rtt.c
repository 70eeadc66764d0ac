// SPDX-License-Identifier: GPL-2.0-only
/*
 * udp_rtt.c - request to reply times of small UDP datagrams, one in
 * flight, for the output latency benchmark (run-ftd.sh).
 *
 *   udp-rtt loopback N       a ping-pong between two sockets on
 *                            127.0.0.1, the other one in a child
 *                            process: the bare round trip
 *   udp-rtt kv N ADDR...     "GET bench" to the kvstore guest at
 *                            each ADDR:7777 in turn, its "NONE bench"
 *                            back: N requests to each
 *
 * Each request waits for its reply (1 s at most: a request unanswered
 * by then is counted as lost, not timed) and the next leaves 1 ms after
 * it, so that the guest is idle when a request comes, as between the
 * requests of an interactive client.  Taking the guests in turn puts
 * them under the same load from the rest of the machine.  The first 20
 * requests to each are not counted (ARP, caches).  Prints one line for
 * each target:
 *   TARGET n=N lost=L p50_us=X p99_us=Y max_us=Z
 * Exit status 1 if more than 1% were lost or on an error.
 *
 *   udp-rtt --samples DIR ...  also writes every time counted, in us,
 *                              sorted, one a line, into DIR/TARGET.us
 *                              (for the plot of make bench)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define TEST_NAME "udp-rtt"
#include "testutil.h"

#define WARMUP      20
#define N_MAX       100000
#define REPLY_MS    1000
#define KV_PORT     7777
#define TARGETS_MAX 4

static const char *samples_dir;

static int fail(const char *what)
{
    fprintf(stderr, "udp-rtt: %s: %s\n", what, strerror(errno));
    return 1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* The value at fraction q of the sorted times, nearest rank. */
static double pct(const uint64_t *v, long n, double q)
{
    long i = (long)(q * (double)n + 0.999999) - 1;

    if (i < 0)
        i = 0;
    if (i >= n)
        i = n - 1;
    return (double)v[i] / 1e3;
}

/* One request on 'fd' and its reply 'want': ns, or 0 if none came. */
static uint64_t ask(int fd, const char *req, const char *want)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    uint64_t t0 = now_ns();
    char ans[256];

    if (send(fd, req, strlen(req), 0) < 0)
        return 0;
    /* Skip a late reply to an earlier request: only ours counts. */
    for (;;) {
        int left = REPLY_MS - (int)((now_ns() - t0) / 1000000);
        ssize_t k;

        if (left <= 0 || poll(&p, 1, left) <= 0)
            return 0;
        k = recv(fd, ans, sizeof(ans) - 1, 0);
        if (k < 0)
            return 0;
        ans[k] = '\0';
        if (!strcmp(ans, want))
            return now_ns() - t0;
    }
}

/*
 * Send 'req' to each of the 'nt' connected sockets 'fd' in turn,
 * n + WARMUP times, each time waiting for a reply equal to 'want'; print
 * the figures of each, named by 'name'.
 */
static int write_samples(const char *name, const uint64_t *v, long n)
{
    char path[4096];
    FILE *f;

    if (snprintf(path, sizeof(path), "%s/%s.us", samples_dir, name) >=
        (int)sizeof(path)) {
        fprintf(stderr, "udp-rtt: %s: name too long\n", samples_dir);
        return 1;
    }
    f = fopen(path, "w");
    if (!f)
        return fail(path);
    for (long i = 0; i < n; i++)
        fprintf(f, "%.1f\n", v[i] / 1e3);
    if (fclose(f))
        return fail(path);
    return 0;
}

static int measure(const int *fd, char *const *name, int nt,
                   const char *req, const char *want, long n)
{
    struct timespec gap = { 0, 1000000 };
    uint64_t *t[TARGETS_MAX];
    long got[TARGETS_MAX] = { 0 }, lost[TARGETS_MAX] = { 0 };
    int rc = 0;

    for (int j = 0; j < nt; j++) {
        t[j] = calloc((size_t)n, sizeof(*t[j]));
        if (!t[j])
            return fail("memory");
    }
    for (long i = 0; i < n + WARMUP; i++) {
        for (int j = 0; j < nt; j++) {
            uint64_t dt = ask(fd[j], req, want);

            if (i >= WARMUP) {
                if (dt)
                    t[j][got[j]++] = dt;
                else
                    lost[j]++;
            }
            nanosleep(&gap, NULL);
        }
    }
    for (int j = 0; j < nt; j++) {
        if (!got[j]) {
            fprintf(stderr, "udp-rtt: %s: no reply came\n", name[j]);
            rc = 1;
            free(t[j]);
            continue;
        }
        qsort(t[j], (size_t)got[j], sizeof(*t[j]), cmp_u64);
        printf("%s n=%ld lost=%ld p50_us=%.1f p99_us=%.1f max_us=%.1f\n",
               name[j], got[j], lost[j], pct(t[j], got[j], 0.50),
               pct(t[j], got[j], 0.99), pct(t[j], got[j], 1.0));
        if (lost[j] * 100 > n)
            rc = 1;
        if (samples_dir && write_samples(name[j], t[j], got[j]))
            rc = 1;
        free(t[j]);
    }
    return rc;
}

static int loopback(long n)
{
    struct sockaddr_in a = { .sin_family = AF_INET }, b;
    socklen_t blen = sizeof(b);
    int fa = socket(AF_INET, SOCK_DGRAM, 0);
    int fb = socket(AF_INET, SOCK_DGRAM, 0);
    int rc, status;
    pid_t child;

    if (fa < 0 || fb < 0)
        return fail("socket");
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    b = a;
    if (bind(fa, (struct sockaddr *)&a, sizeof(a)) ||
        bind(fb, (struct sockaddr *)&b, sizeof(b)) ||
        getsockname(fa, (struct sockaddr *)&a, &(socklen_t){ sizeof(a) }) ||
        getsockname(fb, (struct sockaddr *)&b, &blen) ||
        connect(fa, (struct sockaddr *)&b, sizeof(b)) ||
        connect(fb, (struct sockaddr *)&a, sizeof(a)))
        return fail("loopback sockets");
    child = fork();
    if (child < 0)
        return fail("fork");
    if (child == 0) {
        char buf[256];

        /* The echo: ends when the parent closes its socket (or dies). */
        close(fa);
        for (;;) {
            struct pollfd p = { .fd = fb, .events = POLLIN };
            ssize_t k;

            if (poll(&p, 1, 2 * REPLY_MS) <= 0 && getppid() == 1)
                _exit(0);
            if (!(p.revents & POLLIN))
                continue;
            k = recv(fb, buf, sizeof(buf), 0);
            if (k <= 0 || send(fb, buf, (size_t)k, 0) != k)
                _exit(0);
        }
    }
    close(fb);
    rc = measure(&fa, (char *[]){ "loopback" }, 1, "ping", "ping", n);
    kill(child, SIGTERM);
    waitpid(child, &status, 0);
    close(fa);
    return rc;
}

static int kv(long n, char **addr, int nt)
{
    int fd[TARGETS_MAX];

    for (int j = 0; j < nt; j++) {
        struct sockaddr_in a = { .sin_family = AF_INET,
                                 .sin_port = htons(KV_PORT) };

        if (inet_pton(AF_INET, addr[j], &a.sin_addr) != 1) {
            fprintf(stderr, "udp-rtt: '%s' is not an IPv4 address\n",
                    addr[j]);
            return 2;
        }
        fd[j] = socket(AF_INET, SOCK_DGRAM, 0);
        if (fd[j] < 0 || connect(fd[j], (struct sockaddr *)&a, sizeof(a)))
            return fail(addr[j]);
    }
    return measure(fd, addr, nt, "GET bench\n", "NONE bench", n);
}

static long count(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);

    return *end || v < 1 || v > N_MAX ? -1 : v;
}

int main(int argc, char **argv)
{
    long n;

    if (argc >= 3 && !strcmp(argv[1], "--samples")) {
        samples_dir = argv[2];
        argc -= 2;
        argv += 2;
    }
    if (argc == 3 && !strcmp(argv[1], "loopback") &&
        (n = count(argv[2])) > 0)
        return loopback(n);
    if (argc >= 4 && argc <= 3 + TARGETS_MAX && !strcmp(argv[1], "kv") &&
        (n = count(argv[2])) > 0)
        return kv(n, argv + 3, argc - 3);
    fprintf(stderr, "usage: udp-rtt [--samples DIR] loopback N | "
            "udp-rtt [--samples DIR] kv N ADDR...  (N from 1 to %d, up to %d addresses)\n", N_MAX, TARGETS_MAX);
    return 2;
}
