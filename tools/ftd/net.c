// SPDX-License-Identifier: GPL-2.0-only
/*
 * net.c - the TCP ends of ftd's logging channels (net.h).  Every socket
 * has TCP_NODELAY: a LOG frame that an output waits on goes at once.
 *
 * A dial never blocks its loop: the connect is non-blocking, and a host
 * that is a name (not an address) is looked up by getaddrinfo on a
 * detached thread of its own, which sends its answer back over a
 * socketpair.  getaddrinfo cannot be stopped, so a dial that ends first
 * (its deadline, a cancel) just closes its end: the thread's answer then
 * goes nowhere and the thread frees what it holds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include "net.h"

#define DIAL_ADDRS  8               /* addresses of a name tried */
#define LOOKUPS_MAX 8               /* lookup threads at once */

/* What a lookup thread sends back: one SOCK_SEQPACKET message. */
struct answer {
    int rc;                         /* getaddrinfo's */
    int n;
    struct {
        socklen_t len;
        struct sockaddr_storage sa;
    } a[DIAL_ADDRS];
};

struct lookup {
    int fd;                         /* the thread's end of the socketpair */
    char host[256], port[64];
};

struct ftd_dial {
    struct event_base *base;
    char spec[256];
    int timeout_ms;
    ftd_dial_done *done;
    void *arg;
    int lfd;                        /* lookup's answer comes here, or -1 */
    int fd;                         /* the socket connecting, or -1 */
    struct event *ev;               /* on lfd or fd, or the first step */
    struct event *deadline;
    struct answer ans;
    int next;                       /* the next address of ans to try */
    char why[640];                  /* why the last address failed */
};

static atomic_int lookups;

static void no_delay(int fd)
{
    int one = 1;

    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* HOST:PORT into its parts; 'port' is the default, NULL if required. */
static int split(const char *spec, const char *port, char *host,
                 size_t hlen, const char **portp)
{
    const char *colon = strrchr(spec, ':');

    if (!colon) {
        if (!port || strlen(spec) >= hlen || !*spec)
            return -1;
        strcpy(host, spec);
        *portp = port;
        return 0;
    }
    if (colon == spec || !colon[1] || (size_t)(colon - spec) >= hlen)
        return -1;
    memcpy(host, spec, (size_t)(colon - spec));
    host[colon - spec] = '\0';
    *portp = colon + 1;
    return 0;
}

static void fill_answer(struct answer *ans, struct addrinfo *ai)
{
    for (ans->n = 0; ai && ans->n < DIAL_ADDRS; ai = ai->ai_next) {
        if (ai->ai_addrlen > sizeof(ans->a[0].sa))
            continue;
        ans->a[ans->n].len = ai->ai_addrlen;
        memcpy(&ans->a[ans->n].sa, ai->ai_addr, ai->ai_addrlen);
        ans->n++;
    }
}

static void *lookup_thread(void *arg)
{
    struct lookup *lk = arg;
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
    struct answer ans = { 0 };

    ans.rc = getaddrinfo(lk->host, lk->port, &hints, &ai);
    if (!ans.rc) {
        fill_answer(&ans, ai);
        freeaddrinfo(ai);
    }
    /* Fails (EPIPE) when the dial has ended meanwhile: nobody waits. */
    send(lk->fd, &ans, sizeof(ans), MSG_NOSIGNAL);
    close(lk->fd);
    free(lk);
    atomic_fetch_sub(&lookups, 1);
    return NULL;
}

/* Look 'host' up on a thread; the answer comes on d->lfd.  0 or -errno. */
static int lookup_start(struct ftd_dial *d, const char *host,
                        const char *port)
{
    struct lookup *lk = NULL;
    pthread_attr_t attr;
    sigset_t all, old;
    int sv[2] = { -1, -1 }, rc;

    if (atomic_fetch_add(&lookups, 1) >= LOOKUPS_MAX) {
        atomic_fetch_sub(&lookups, 1);
        snprintf(d->why, sizeof(d->why), "peer %s: %d name lookups under "
                 "way already; try again", d->spec, LOOKUPS_MAX);
        return -EAGAIN;
    }
    lk = calloc(1, sizeof(*lk));
    if (!lk) {
        rc = -ENOMEM;
        goto out;
    }
    lk->fd = -1;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0,
                   sv)) {
        rc = -errno;
        goto out;
    }
    snprintf(lk->host, sizeof(lk->host), "%s", host);
    snprintf(lk->port, sizeof(lk->port), "%s", port);
    lk->fd = sv[1];
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* Signals stay with the loop's thread. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = -pthread_create(&(pthread_t){ 0 }, &attr, lookup_thread, lk);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc)
        goto out;
    /* The thread's now: it closes its end and frees the rest. */
    d->lfd = sv[0];
    sv[0] = sv[1] = -1;
    lk = NULL;
out:
    if (rc) {
        snprintf(d->why, sizeof(d->why), "peer %s: cannot look it up: %s",
                 d->spec, strerror(-rc));
        atomic_fetch_sub(&lookups, 1);
    }
    if (sv[0] >= 0)
        close(sv[0]);
    if (sv[1] >= 0)
        close(sv[1]);
    free(lk);
    return rc;
}

/* The dial is over: tell its owner, with the socket or -1, and free it. */
static void finish(struct ftd_dial *d, int fd)
{
    ftd_dial_done *done = d->done;
    void *arg = d->arg;
    char why[sizeof(d->why)];

    snprintf(why, sizeof(why), "%s", d->why);
    if (fd >= 0)
        d->fd = -1;             /* the owner's now */
    ftd_dial_cancel(d);
    if (fd >= 0)
        no_delay(fd);
    done(arg, fd, fd >= 0 ? "" : why);
}

static void on_connected(evutil_socket_t fd, short what, void *arg);

/* Connect to the next address; on none left, the dial has failed. */
static void try_next(struct ftd_dial *d)
{
    while (d->next < d->ans.n) {
        const struct sockaddr *sa =
            (const struct sockaddr *)&d->ans.a[d->next].sa;
        socklen_t sl = d->ans.a[d->next++].len;

        d->fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC |
                       SOCK_NONBLOCK, 0);
        if (d->fd < 0) {
            snprintf(d->why, sizeof(d->why), "cannot connect to %s: %s",
                     d->spec, strerror(errno));
            continue;
        }
        if (!connect(d->fd, sa, sl)) {
            finish(d, d->fd);
            return;
        }
        if (errno == EINPROGRESS) {
            event_free(d->ev);
            d->ev = event_new(d->base, d->fd, EV_WRITE, on_connected, d);
            if (d->ev && !event_add(d->ev, NULL))
                return;
            errno = ENOMEM;
        }
        snprintf(d->why, sizeof(d->why), "cannot connect to %s: %s",
                 d->spec, strerror(errno));
        close(d->fd);
        d->fd = -1;
    }
    if (!d->why[0])
        snprintf(d->why, sizeof(d->why), "peer %s: no address to connect "
                 "to", d->spec);
    finish(d, -1);
}

static void on_connected(evutil_socket_t fd, short what, void *arg)
{
    struct ftd_dial *d = arg;
    socklen_t el = sizeof(int);
    int err = 0;

    (void)what;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el))
        err = errno;
    if (!err) {
        finish(d, d->fd);
        return;
    }
    snprintf(d->why, sizeof(d->why), "cannot connect to %s: %s", d->spec,
             strerror(err));
    close(d->fd);
    d->fd = -1;
    try_next(d);
}

static void on_answer(evutil_socket_t lfd, short what, void *arg)
{
    struct ftd_dial *d = arg;
    ssize_t n = recv(lfd, &d->ans, sizeof(d->ans), 0);

    (void)what;
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    close(d->lfd);
    d->lfd = -1;
    if (n != (ssize_t)sizeof(d->ans) || d->ans.n < 0 ||
        d->ans.n > DIAL_ADDRS) {
        snprintf(d->why, sizeof(d->why), "peer %s: its name lookup gave "
                 "no answer", d->spec);
        d->ans.n = 0;
    } else if (d->ans.rc) {
        snprintf(d->why, sizeof(d->why), "peer %s: cannot resolve it: %s",
                 d->spec, gai_strerror(d->ans.rc));
        d->ans.n = 0;
    }
    try_next(d);
}

/* The first step, from the loop: never inside ftd_dial_start. */
static void on_start(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    try_next(arg);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
    struct ftd_dial *d = arg;

    (void)fd;
    (void)what;
    snprintf(d->why, sizeof(d->why), d->lfd >= 0 ?
             "peer %s: cannot resolve it: no answer within %d ms" :
             "cannot connect to %s: no answer within %d ms", d->spec,
             d->timeout_ms);
    finish(d, -1);
}

int ftd_dial_start(struct ftd_dial **dp, struct event_base *base,
                   const char *spec, const char *port, int timeout_ms,
                   ftd_dial_done *done, void *arg, char *why, size_t len)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_NUMERICHOST }, *ai;
    struct timeval tv = { timeout_ms / 1000, timeout_ms % 1000 * 1000 };
    struct ftd_dial *d = NULL;
    char host[256];
    int rc;

    *dp = NULL;
    if (strlen(spec) >= sizeof(d->spec)) {
        snprintf(why, len, "peer '%.40s...': too long (%zu at most)", spec,
                 sizeof(d->spec) - 1);
        rc = -EINVAL;
        goto out;
    }
    if (split(spec, port, host, sizeof(host), &port)) {
        snprintf(why, len, "peer '%s': want HOST%s", spec,
                 port ? "[:PORT]" : ":PORT");
        rc = -EINVAL;
        goto out;
    }
    d = calloc(1, sizeof(*d));
    if (!d) {
        snprintf(why, len, "peer %s: out of memory", spec);
        rc = -ENOMEM;
        goto out;
    }
    *d = (struct ftd_dial){ .base = base, .timeout_ms = timeout_ms,
                            .done = done, .arg = arg, .lfd = -1,
                            .fd = -1 };
    snprintf(d->spec, sizeof(d->spec), "%s", spec);
    rc = getaddrinfo(host, port, &hints, &ai);
    if (!rc) {
        fill_answer(&d->ans, ai);
        freeaddrinfo(ai);
        d->ev = event_new(base, -1, 0, on_start, d);
    } else if (rc == EAI_NONAME) {
        rc = lookup_start(d, host, port);
        if (rc) {
            snprintf(why, len, "%s", d->why);
            goto out;
        }
        d->ev = event_new(base, d->lfd, EV_READ | EV_PERSIST, on_answer, d);
    } else {
        snprintf(why, len, "peer %s: %s", spec, gai_strerror(rc));
        rc = -EINVAL;
        goto out;
    }
    d->deadline = evtimer_new(base, on_deadline, d);
    if (!d->ev || !d->deadline || evtimer_add(d->deadline, &tv) ||
        (d->lfd >= 0 && event_add(d->ev, NULL))) {
        snprintf(why, len, "peer %s: cannot set up the event loop", spec);
        rc = -ENOMEM;
        goto out;
    }
    if (d->lfd < 0)
        event_active(d->ev, EV_TIMEOUT, 0);
    *dp = d;
    d = NULL;
out:
    ftd_dial_cancel(d);
    return rc;
}

void ftd_dial_cancel(struct ftd_dial *d)
{
    if (!d)
        return;
    if (d->ev)
        event_free(d->ev);
    if (d->deadline)
        event_free(d->deadline);
    if (d->lfd >= 0)
        close(d->lfd);
    if (d->fd >= 0)
        close(d->fd);
    free(d);
}

struct dial_wait {
    int fd;
    char *why;
    size_t len;
};

static void dial_waited(void *arg, int fd, const char *why)
{
    struct dial_wait *w = arg;

    w->fd = fd;
    if (fd < 0)
        snprintf(w->why, w->len, "%s", why);
}

int ftd_dial(const char *spec, const char *port, int timeout_ms, char *why,
             size_t len)
{
    struct event_base *base = event_base_new();
    struct dial_wait w = { -1, why, len };
    struct ftd_dial *d;

    if (!base) {
        snprintf(why, len, "peer %s: cannot set up an event loop", spec);
        return -1;
    }
    if (!ftd_dial_start(&d, base, spec, port, timeout_ms, dial_waited, &w,
                        why, len))
        event_base_dispatch(base);
    event_base_free(base);
    return w.fd;
}
int ftd_listen(const char *spec, int backlog, char *why, size_t len)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_PASSIVE }, *ai;
    const char *port;
    char host[256];
    int fd, one = 1, rc;

    if (split(spec, NULL, host, sizeof(host), &port)) {
        snprintf(why, len, "listen on '%s': want ADDR:PORT", spec);
        return -1;
    }
    rc = getaddrinfo(host, port, &hints, &ai);
    if (rc) {
        snprintf(why, len, "listen on %s: %s", spec, gai_strerror(rc));
        return -1;
    }
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
                ai->ai_protocol);
    if (fd < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, backlog)) {
        snprintf(why, len, "cannot listen on %s: %s", spec, strerror(errno));
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    return fd;
}

int ftd_accept(int lfd, char peer[FTD_PEER_MAX])
{
    struct sockaddr_storage sa;
    socklen_t sl = sizeof(sa);
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    int fd = accept4(lfd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC);

    if (fd < 0)
        return -1;
    no_delay(fd);
    if (getnameinfo((struct sockaddr *)&sa, sl, host, sizeof(host), serv,
                    sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV))
        snprintf(peer, FTD_PEER_MAX, "?");
    else
        snprintf(peer, FTD_PEER_MAX, "%s:%s", host, serv);
    return fd;
}
