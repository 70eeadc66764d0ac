// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_arbiter_etcd.c - the etcd arbiter against a real etcd that the
 * suite starts on loopback (Debian's etcd-server): one winner per
 * generation, also when two processes race for 1000 of them; a claim
 * granted stays granted after its claimant's lease has lapsed, and one
 * left half-way (created, never settled) lapses with its lease or is
 * settled by its own host.  Against a port where nothing listens
 * and against a fake server that answers garbage, every claim is an
 * error, never a grant.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "etcd_msg.h"
#include "http.h"
#include "unit.h"
#include "xlft_arbiter.h"
#define TEST_NAME "unit-tests"
#include "testutil.h"

static char datadir[64];
static char url[64];            /* the real etcd's client URL */
static char why[512];           /* why etcd is not running, if not */
static pid_t etcd_pid;

static void pause_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

/* A loopback port that was free a moment ago; 'keep' keeps it bound. */
static int free_port(int *keep)
{
    struct sockaddr_in sa = { .sin_family = AF_INET,
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t sl = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

    if (fd >= 0 && !bind(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
        !getsockname(fd, (struct sockaddr *)&sa, &sl))
        port = ntohs(sa.sin_port);
    if (keep)
        *keep = fd;
    else if (fd >= 0)
        close(fd);
    return port;
}

static bool on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[512];

    while (path && *path) {
        size_t n = strcspn(path, ":");

        snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
        if (!access(buf, X_OK))
            return true;
        path += n + (path[n] == ':');
    }
    return false;
}

static bool healthy(void)
{
    static struct xlft_http_reply r;
    struct xlft_http_url u;
    char err[200];

    return !xlft_http_parse_url(url, strlen(url), &u, err, sizeof(err)) &&
           !xlft_http_request(&u, "GET", "/health", NULL, 500, &r, err,
                              sizeof(err)) &&
           r.status == 200 && strstr(r.body, "\"health\":\"true\"");
}

static void start_etcd(void)
{
    char peer[64], data[96], log[96], cluster[96];
    const char *base = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
    int cport = free_port(NULL), pport = free_port(NULL), status;

    if (!on_path("etcd")) {
        snprintf(why, sizeof(why), "no etcd on PATH: install Debian's "
                 "etcd-server (tools/deps.sh check)");
        return;
    }
    /* tmpfs when there is one: etcd syncs every write. */
    snprintf(datadir, sizeof(datadir), "%s/xenft-etcd.XXXXXX", base);
    if (cport < 0 || pport < 0 || !mkdtemp(datadir)) {
        snprintf(why, sizeof(why), "no free port or temporary directory");
        datadir[0] = '\0';
        return;
    }
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", cport);
    snprintf(peer, sizeof(peer), "http://127.0.0.1:%d", pport);
    snprintf(cluster, sizeof(cluster), "xenft-test=%s", peer);
    snprintf(data, sizeof(data), "%s/data", datadir);
    snprintf(log, sizeof(log), "%s/etcd.log", datadir);
    etcd_pid = fork();
    if (etcd_pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

        /* Never outlive the tests, however they end. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            _exit(126);
        execlp("etcd", "etcd", "--name", "xenft-test", "--data-dir", data,
               "--listen-client-urls", url, "--advertise-client-urls", url,
               "--listen-peer-urls", peer, "--initial-advertise-peer-urls",
               peer, "--initial-cluster", cluster, (char *)NULL);
        _exit(127);
    }
    if (etcd_pid < 0) {
        snprintf(why, sizeof(why), "cannot fork: %s", strerror(errno));
        etcd_pid = 0;
        return;
    }
    for (int i = 0; i < 200; i++) {             /* 10 s at most */
        if (waitpid(etcd_pid, &status, WNOHANG) == etcd_pid) {
            snprintf(why, sizeof(why), "etcd exited at start (status "
                     "%d): see %s", status, log);
            etcd_pid = 0;
            return;
        }
        if (healthy())
            return;
        pause_ms(50);
    }
    snprintf(why, sizeof(why), "etcd not healthy after 10 s: see %s", log);
}

static int suite_init(void)
{
    start_etcd();
    if (why[0])
        fprintf(stderr, "\netcd arbiter tests: %s\n", why);
    return 0;                   /* each test fails on its own, saying why */
}

static int suite_clean(void)
{
    char cmd[96];
    int status;

    if (etcd_pid > 0) {
        kill(etcd_pid, SIGTERM);
        for (int i = 0; i < 100 &&
             waitpid(etcd_pid, &status, WNOHANG) != etcd_pid; i++) {
            if (i == 99) {
                kill(etcd_pid, SIGKILL);
                waitpid(etcd_pid, &status, 0);
            }
            pause_ms(50);
        }
    }
    if (!datadir[0] || why[0])
        return 0;               /* keep the log of an etcd that failed */
    snprintf(cmd, sizeof(cmd), "rm -rf %s", datadir);
    return system(cmd) == 0 ? 0 : -1;
}

#define NEED_ETCD() do { \
        if (why[0]) \
            CU_FAIL_FATAL("etcd is not running: see the message above"); \
    } while (0)

static struct xlft_arbiter *open_ok(const char *spec, const char *pair)
{
    struct xlft_arbiter *a = NULL;
    char err[256];

    CU_ASSERT_EQUAL(xlft_arbiter_open(&a, spec, pair, err, sizeof(err)), 0);
    return a;
}

static int claim(struct xlft_arbiter *a, uint64_t gen, const char *me,
                 char *holder)
{
    char err[256];

    return xlft_arbiter_claim(a, gen, me, holder, 80, err, sizeof(err));
}

static void test_specs(void)
{
    static const char *const bad[] = {
        "etcd:", "etcd:https://h:2379", "etcd:ftp://h:1", "etcd:http://h",
        "etcd:http://h:", "etcd:http://h:70000", "etcd:http://h:1/v3",
        "etcd:http://:1", "etcd:http://h_x:1", "etcd:http://[::1:1",
        "etcd:http://a:1,,http://b:1", "etcd:http://a:1,",
        "etcd:http://a:1?ttl=0", "etcd:http://a:1?ttl=x",
        "etcd:http://a:1?ttl=99999", "etcd:http://a:1?color=red",
        "etcd:http://a:1?ttl=2&timeout=2000", "etcd:http://a:1?timeout=5",
        "etcd:http://1:1,http://2:1,http://3:1,http://4:1,http://5:1,"
        "http://6:1,http://7:1,http://8:1,http://9:1",
    };
    static const char *const good[] = {
        "etcd:http://127.0.0.1:2379", "etcd:http://localhost:2379/",
        "etcd:http://[::1]:2379", "etcd:http://a:1,http://b.c:2?ttl=5",
        "etcd:http://a:1?timeout=100&ttl=3",
    };
    struct xlft_arbiter *a;
    char err[256];

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        if (xlft_arbiter_open(&a, bad[i], "p", err, sizeof(err)) !=
            -EINVAL || !err[0] || a) {
            fprintf(stderr, "\nspec '%s' was not refused\n", bad[i]);
            CU_FAIL("a bad etcd spec was taken");
        }
    }
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        if (xlft_arbiter_open(&a, good[i], "p", err, sizeof(err))) {
            fprintf(stderr, "\nspec '%s': %s\n", good[i], err);
            CU_FAIL("a good etcd spec was refused");
            continue;
        }
        xlft_arbiter_close(a);
    }
}

static void test_one_winner(void)
{
    struct xlft_arbiter *a, *b;
    char spec[96], holder[80];

    NEED_ETCD();
    snprintf(spec, sizeof(spec), "etcd:%s", url);
    a = open_ok(spec, "dom5");
    b = open_ok(spec, "dom5");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    ASSERT_RC(claim(a, 1, "hostA", holder), 1);
    CU_ASSERT_STRING_EQUAL(holder, "hostA");
    ASSERT_RC(claim(b, 1, "hostB", holder), 0);
    CU_ASSERT_STRING_EQUAL(holder, "hostA");
    ASSERT_RC(claim(a, 1, "hostA", holder), 1);
    ASSERT_RC(claim(b, 2, "hostB", holder), 1);
    ASSERT_RC(claim(a, 2, "hostA", holder), 0);
    CU_ASSERT_STRING_EQUAL(holder, "hostB");
    ASSERT_RC(claim(a, 3, "bad/name", holder), -EINVAL);
    CU_ASSERT_STRING_EQUAL(holder, "");
    xlft_arbiter_close(a);
    xlft_arbiter_close(b);
}

static void test_race(void)
{
    char spec[96];

    NEED_ETCD();
    snprintf(spec, sizeof(spec), "etcd:%s", url);
    arbiter_race(spec, "race");
}

static void test_unreachable(void)
{
    struct xlft_arbiter *a;
    char spec[160], holder[80], err[256];
    int fd, port = free_port(&fd), rc;

    CU_ASSERT_FATAL(port > 0);
    /* Bound but not listening: every connection is refused. */
    snprintf(spec, sizeof(spec), "etcd:http://127.0.0.1:%d", port);
    a = open_ok(spec, "dom5");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    strcpy(holder, "x");
    rc = xlft_arbiter_claim(a, 1, "hostA", holder, sizeof(holder), err,
                            sizeof(err));
    CU_ASSERT(rc < 0);
    CU_ASSERT_STRING_EQUAL(holder, "");
    CU_ASSERT_PTR_NOT_NULL(strstr(err, spec + 5));
    xlft_arbiter_close(a);

    /* A cluster: the URL that does not answer is passed over. */
    if (!why[0]) {
        snprintf(spec, sizeof(spec), "etcd:http://127.0.0.1:%d,%s", port,
                 url);
        a = open_ok(spec, "dom6");
        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        ASSERT_RC(claim(a, 1, "hostA", holder), 1);
        xlft_arbiter_close(a);
    }
    close(fd);
    NEED_ETCD();
}

/*
 * A claim granted is final: its claimant's handle is closed (its lease
 * left to lapse, as when its ftd dies) and another host asking well past
 * the TTL still loses.  Claims that lapsed let a loser cut off from etcd
 * for longer than the TTL win a generation that was already won.
 */
static void test_final(void)
{
    struct xlft_arbiter *a, *b;
    char spec[128], holder[80];
    uint64_t start;

    NEED_ETCD();
    snprintf(spec, sizeof(spec), "etcd:%s?ttl=1&timeout=500", url);
    a = open_ok(spec, "final");
    b = open_ok(spec, "final");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    ASSERT_RC(claim(a, 1, "hostA", holder), 1);
    xlft_arbiter_close(a);
    for (start = now_ms(); now_ms() < start + 3000; pause_ms(250)) {
        ASSERT_RC(claim(b, 1, "hostB", holder), 0);
        CU_ASSERT_STRING_EQUAL(holder, "hostA");
    }
    xlft_arbiter_close(b);
}

/* POST a request built by etcd_msg.c to the real etcd: 0 or -1. */
static int etcd_post(const char *path, const char *body,
                     struct xlft_http_reply *r)
{
    struct xlft_http_url u;
    char err[200];

    if (xlft_http_parse_url(url, strlen(url), &u, err, sizeof(err)) ||
        xlft_http_request(&u, "POST", path, body, 1000, r, err,
                          sizeof(err)) || r->status != 200) {
        fprintf(stderr, "\netcd %s: %s\n", path, err);
        return -1;
    }
    return 0;
}

/* hostA's claim of 'gen' made under a lease of 1 s and never settled. */
static void halfway(const char *pair, int gen)
{
    static struct xlft_http_reply r;
    char key[64], req[1024], err[200];
    int64_t lease = 0, ttl;

    snprintf(key, sizeof(key), "/xenft/%s/%d", pair, gen);
    CU_ASSERT_FATAL(!xlft_etcd_grant_req(req, sizeof(req), 1) &&
                    !etcd_post("/v3/lease/grant", req, &r) &&
                    !xlft_etcd_grant_reply(r.body, r.bodylen, &lease, &ttl,
                                           err, sizeof(err)));
    CU_ASSERT_FATAL(!xlft_etcd_claim_req(req, sizeof(req), key, "hostA",
                                         lease) &&
                    !etcd_post("/v3/kv/txn", req, &r));
}

/*
 * A claimant that died half-way: its claim is no loss to the other host
 * (asked again) and lapses with its lease, the other then wins; the same
 * host asking again in time settles
 * it and is granted.
 */
static void test_halfway(void)
{
    struct xlft_arbiter *a, *b;
    char spec[128], holder[80];
    uint64_t start;
    int rc = 0;

    NEED_ETCD();
    snprintf(spec, sizeof(spec), "etcd:%s?ttl=1&timeout=500", url);
    a = open_ok(spec, "halfway");
    b = open_ok(spec, "halfway");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    halfway("halfway", 1);
    ASSERT_RC(claim(a, 1, "hostA", holder), 1);
    for (start = now_ms(); now_ms() < start + 2500; pause_ms(250))
        ASSERT_RC(claim(b, 1, "hostB", holder), 0);
    halfway("halfway", 2);
    ASSERT_RC(claim(b, 2, "hostB", holder), -EAGAIN);
    for (start = now_ms(); rc != 1 && now_ms() < start + 15000;
         pause_ms(100))
        rc = claim(b, 2, "hostB", holder);
    ASSERT_RC(rc, 1);
    ASSERT_RC(claim(a, 2, "hostA", holder), 0);
    CU_ASSERT_STRING_EQUAL(holder, "hostB");
    xlft_arbiter_close(a);
    xlft_arbiter_close(b);
}

/* --- a fake etcd that answers what each test tells it to ------------ */

struct fake {
    int lfd, port;
    pthread_t thread;
    volatile bool stop;
    pthread_mutex_t lock;
    const char *grant, *txn;            /* NULL: never answer */
    int txns;
};
static struct fake fake = { .lock = PTHREAD_MUTEX_INITIALIZER };

static const char grant_ok[] =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
    "Content-Length: 46\r\n\r\n"
    "{\"header\":{},\"ID\":\"7587869\",\"TTL\":\"10\"}       ";

/* Read a request (headers and Content-Length body) within 2 s. */
static int read_request(int fd, char *buf, size_t len)
{
    size_t n = 0;

    for (int i = 0; i < 20 && n < len - 1; i++) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        char *h, *cl;
        ssize_t k;

        if (poll(&p, 1, 100) <= 0)
            continue;
        k = read(fd, buf + n, len - 1 - n);
        if (k <= 0)
            return -1;
        n += (size_t)k;
        buf[n] = '\0';
        h = strstr(buf, "\r\n\r\n");
        cl = strcasestr(buf, "Content-Length:");
        if (h && cl && (size_t)(h + 4 - buf) + strtoul(cl + 15, NULL, 10)
            <= n)
            return 0;
    }
    return -1;
}

static void serve(int fd)
{
    char req[4096];
    const char *reply = NULL;

    if (read_request(fd, req, sizeof(req)))
        return;
    pthread_mutex_lock(&fake.lock);
    if (strstr(req, "POST /v3/lease/grant ")) {
        reply = fake.grant;
    } else if (strstr(req, "POST /v3/kv/txn ")) {
        reply = fake.txn;
        fake.txns += strstr(req, "\"compare\":[{\"target\":") != NULL;
    }
    pthread_mutex_unlock(&fake.lock);
    if (!reply) {
        /* Silent until the client gives up (or 5 s). */
        struct pollfd p = { .fd = fd, .events = POLLIN };

        for (int i = 0; i < 50 && !fake.stop; i++) {
            if (poll(&p, 1, 100) > 0 && read(fd, req, sizeof(req)) <= 0)
                break;
        }
        return;
    }
    if (write(fd, reply, strlen(reply)) < 0)
        return;
    shutdown(fd, SHUT_WR);
}

static void *fake_main(void *arg)
{
    (void)arg;
    while (!fake.stop) {
        struct pollfd p = { .fd = fake.lfd, .events = POLLIN };
        int fd;

        if (poll(&p, 1, 100) <= 0)
            continue;
        fd = accept4(fake.lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        serve(fd);
        close(fd);
    }
    return NULL;
}

static bool fake_start(void)
{
    fake.port = free_port(&fake.lfd);
    fake.stop = false;
    if (fake.port < 0 || listen(fake.lfd, 8))
        return false;
    return pthread_create(&fake.thread, NULL, fake_main, NULL) == 0;
}

static void fake_stop(void)
{
    fake.stop = true;
    pthread_join(fake.thread, NULL);
    close(fake.lfd);
}

static void fake_set(const char *grant, const char *txn)
{
    pthread_mutex_lock(&fake.lock);
    fake.grant = grant;
    fake.txn = txn;
    pthread_mutex_unlock(&fake.lock);
}

#define OK200 "HTTP/1.1 200 OK\r\n"

static const char *const bad_txn[] = {
    "",
    "garbage\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n{\"header\":",
    "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{\"header\":",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}xx",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
    "HTTP/1.1 200 OK\r\nContent-Length: -2\r\n\r\n{}",
    "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n{}",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        "10\r\n{\"succeeded\":",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        "zz\r\n{}\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n{}",
    "HTTP/1.1 100 Continue\r\n\r\n",
    "HTTP/2 200 OK\r\nContent-Length: 2\r\n\r\n{}",
    "HTTP/1.1 200 OK\r\nno colon here\r\nContent-Length: 2\r\n\r\n{}",
    "HTTP/1.1 200 OK\r\n\r\n{\"header\":{}}",
    "HTTP/1.1 200 OK\r\n\r\n{\"succeeded\":true}",
    "HTTP/1.1 200 OK\r\n\r\n{\"succeeded\":\"yes\",\"responses\":"
        "[{\"response_put\":{}}]}",
    "HTTP/1.1 200 OK\r\n\r\n{\"succeeded\":true,\"responses\":"
        "[{\"response_put\":{}}]",
    "HTTP/1.1 200 OK\r\n\r\n{\"responses\":[{\"response_range\":"
        "{\"count\":\"1\"}}]}",
    /* key /xenft/dom9/1, value "hostB" but base64 broken */
    "HTTP/1.1 200 OK\r\n\r\n{\"responses\":[{\"response_range\":{\"kvs\":"
        "[{\"key\":\"L3hlbmZ0L2RvbTkvMQ==\",\"mod_revision\":\"5\","
        "\"value\":\"aG9zdEI\"}],\"count\":\"1\"}}]}",
    /* value "bad/x" */
    "HTTP/1.1 200 OK\r\n\r\n{\"responses\":[{\"response_range\":{\"kvs\":"
        "[{\"key\":\"L3hlbmZ0L2RvbTkvMQ==\",\"mod_revision\":\"5\","
        "\"value\":\"YmFkL3g=\"}],\"count\":\"1\"}}]}",
    /* another key: /xenft/dom9/2 */
    "HTTP/1.1 200 OK\r\n\r\n{\"responses\":[{\"response_range\":{\"kvs\":"
        "[{\"key\":\"L3hlbmZ0L2RvbTkvMg==\",\"mod_revision\":\"5\","
        "\"value\":\"aG9zdEI=\"}],\"count\":\"1\"}}]}",
    /* no mod_revision */
    "HTTP/1.1 200 OK\r\n\r\n{\"responses\":[{\"response_range\":{\"kvs\":"
        "[{\"key\":\"L3hlbmZ0L2RvbTkvMQ==\","
        "\"value\":\"aG9zdEI=\"}],\"count\":\"1\"}}]}",
    /* nested too deep */
    "HTTP/1.1 200 OK\r\n\r\n[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]"
        "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
};

static const char good_txn_lost[] =
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    "8\r\n{\"respon\r\n"
    "75\r\nses\":[{\"response_range\":{\"kvs\":[{\"key\":"
    "\"L3hlbmZ0L2RvbTkvMQ==\",\"mod_revision\":\"5\",\"value\":"
    "\"aG9zdEI=\"}],\"count\":\"1\"}}]}\r\n"
    "0\r\n\r\n";

static const char *const bad_grant[] = {
    OK200 "\r\n{\"ID\":\"x1\",\"TTL\":\"10\"}",
    OK200 "\r\n{\"TTL\":\"10\"}",
    OK200 "\r\n{\"ID\":\"5\",\"TTL\":\"0\"}",
    OK200 "\r\n{\"ID\":\"-5\",\"TTL\":\"10\"}",
    OK200 "\r\n{\"ID\":\"99999999999999999999\",\"TTL\":\"10\"}",
    OK200 "\r\n{\"ID\":5,\"TTL\":1.5}",
    OK200 "\r\n{\"ID\":\"5\",\"TTL\":\"10\"",
};

/* How many claim transactions reached the fake since last asked. */
static int fake_txns_take(void)
{
    int n;

    pthread_mutex_lock(&fake.lock);
    n = fake.txns;
    fake.txns = 0;
    pthread_mutex_unlock(&fake.lock);
    return n;
}

static void test_malformed(void)
{
    struct xlft_arbiter *a;
    char spec[96], holder[80], err[256], *big;
    uint64_t t0;
    int rc;

    CU_ASSERT_FATAL(fake_start());
    snprintf(spec, sizeof(spec), "etcd:http://127.0.0.1:%d?timeout=300",
             fake.port);
    a = open_ok(spec, "dom9");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);

    /* The fake itself: a well-formed loss is read as one. */
    fake_set(grant_ok, good_txn_lost);
    ASSERT_RC(claim(a, 1, "hostA", holder), 0);
    CU_ASSERT_STRING_EQUAL(holder, "hostB");

    for (size_t i = 0; i < sizeof(bad_txn) / sizeof(bad_txn[0]); i++) {
        fake_set(grant_ok, bad_txn[i]);
        strcpy(holder, "x");
        err[0] = '\0';
        rc = xlft_arbiter_claim(a, 1, "hostA", holder, sizeof(holder), err,
                                sizeof(err));
        if (rc != -EBADMSG || holder[0] || !err[0]) {
            fprintf(stderr, "\nreply %zu: %d (%s)\n", i, rc, err);
            CU_FAIL("a malformed reply was not -EBADMSG");
        }
    }

    /* Lease grants, asked by a new handle's first claim. */
    for (size_t i = 0; i < sizeof(bad_grant) / sizeof(bad_grant[0]); i++) {
        struct xlft_arbiter *b = open_ok(spec, "dom9");

        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        fake_set(bad_grant[i], good_txn_lost);
        fake_txns_take();
        rc = claim(b, 1, "hostA", holder);
        if (rc != -EBADMSG || fake_txns_take()) {
            fprintf(stderr, "\ngrant %zu: %d\n", i, rc);
            CU_FAIL("a malformed lease grant was used");
        }
        xlft_arbiter_close(b);
    }

    /* Errors from etcd are errors, whatever the claim was. */
    fake_set(grant_ok, "HTTP/1.1 503 Service Unavailable\r\n\r\n"
             "{\"error\":\"etcdserver: no leader\",\"code\":14}");
    rc = xlft_arbiter_claim(a, 1, "hostA", holder, sizeof(holder), err,
                            sizeof(err));
    CU_ASSERT(rc < 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no leader"));
    fake_set(grant_ok, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0"
             "\r\n\r\n");
    ASSERT_RC(claim(a, 1, "hostA", holder), -EPROTO);

    /* A reply longer than any etcd gives. */
    big = malloc(XLFT_HTTP_MAX + 64);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    memset(big, ' ', XLFT_HTTP_MAX + 63);
    memcpy(big, OK200 "\r\n{", 20);
    big[XLFT_HTTP_MAX + 63] = '\0';
    fake_set(grant_ok, big);
    ASSERT_RC(claim(a, 1, "hostA", holder), -EBADMSG);

    /* A server that never answers: bounded by the timeout. */
    fake_set(grant_ok, NULL);
    t0 = now_ms();
    ASSERT_RC(claim(a, 1, "hostA", holder), -ETIMEDOUT);
    CU_ASSERT(now_ms() - t0 < 2000);
    CU_ASSERT_STRING_EQUAL(holder, "");

    /* Only a settled claim is granted: a server that says each create
     * was done, and never holds the key, grants nothing. */
    fake_set(grant_ok, OK200 "\r\n{\"succeeded\":true,\"responses\":"
             "[{\"response_put\":{\"header\":{}}}]}");
    ASSERT_RC(claim(a, 2, "hostA", holder), -EAGAIN);
    CU_ASSERT_STRING_EQUAL(holder, "");

    xlft_arbiter_close(a);
    fake_stop();
    free(big);
}

void register_arbiter_etcd_tests(void)
{
    CU_pSuite s = CU_add_suite("arbiter etcd", suite_init, suite_clean);

    CU_add_test(s, "bad etcd specs refused", test_specs);
    CU_add_test(s, "one winner per generation", test_one_winner);
    CU_add_test(s, "two processes race for 1000 generations", test_race);
    CU_add_test(s, "unreachable etcd is never a grant; next URL tried",
                test_unreachable);
    CU_add_test(s, "a granted claim is final, its lease gone or not",
                test_final);
    CU_add_test(s, "a claim left half-way lapses or is settled",
                test_halfway);
    CU_add_test(s, "malformed replies and silence are errors",
                test_malformed);
}
