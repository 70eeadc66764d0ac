// SPDX-License-Identifier: GPL-2.0-only
/*
 * net.c - the TCP ends of ftd's logging channels (net.h).  Every socket
 * has TCP_NODELAY: a LOG frame that an output waits on goes at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net.h"

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

int ftd_dial(const char *spec, const char *port, int timeout_ms, char *why,
             size_t len)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai, *a;
    char host[256];
    int fd = -1, rc;

    if (split(spec, port, host, sizeof(host), &port)) {
        snprintf(why, len, "peer '%s': want HOST%s", spec,
                 port ? "[:PORT]" : ":PORT");
        return -1;
    }
    rc = getaddrinfo(host, port, &hints, &ai);
    if (rc) {
        snprintf(why, len, "peer %s: %s", spec, gai_strerror(rc));
        return -1;
    }
    for (a = ai; a; a = a->ai_next) {
        struct pollfd p;
        int err = 0;
        socklen_t el = sizeof(err);

        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC |
                    SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0)
            continue;
        if (connect(fd, a->ai_addr, a->ai_addrlen) && errno != EINPROGRESS)
            err = errno;
        p = (struct pollfd){ .fd = fd, .events = POLLOUT };
        if (!err && poll(&p, 1, timeout_ms) != 1)
            err = ETIMEDOUT;
        if (!err)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
        if (!err)
            break;
        snprintf(why, len, "cannot connect to %s: %s", spec, strerror(err));
        close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    if (fd >= 0)
        no_delay(fd);
    return fd;
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
