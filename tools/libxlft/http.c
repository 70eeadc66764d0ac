// SPDX-License-Identifier: GPL-2.0-only
/*
 * http.c - a small HTTP/1.1 client for the etcd arbiter (http.h).
 *
 * Everything a server sends is checked before it is used: the reply is
 * parsed from scratch on every read until it is whole, so a reply cut
 * short anywhere is recognised at the end of the connection, and the
 * buffer bounds every length the server claims.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "http.h"

#define BAD(...) (snprintf(err, errlen, __VA_ARGS__), -EBADMSG)

int xlft_http_parse_url(const char *s, size_t n, struct xlft_http_url *u,
                        char *err, size_t errlen)
{
    const char *p = s + 7, *end = s + n, *h, *he;
    unsigned long port = 0;

    if (n < 7 || strncmp(s, "http://", 7)) {
        snprintf(err, errlen, "'%.*s' is not an http:// URL", (int)n, s);
        return -EINVAL;
    }
    if (p < end && *p == '[') {
        h = p + 1;
        he = memchr(h, ']', (size_t)(end - h));
        p = he ? he + 1 : end;
    } else {
        h = p;
        while (p < end && *p != ':' && *p != '/')
            p++;
        he = p;
    }
    if (!he || he == h || (size_t)(he - h) >= sizeof(u->host)) {
        snprintf(err, errlen, "'%.*s': no host name", (int)n, s);
        return -EINVAL;
    }
    for (const char *c = h; c < he; c++) {
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (*c >= '0' && *c <= '9') || *c == '.' || *c == '-' ||
              (*c == ':' && h[-1] == '['))) {
            snprintf(err, errlen, "'%.*s': bad host name", (int)n, s);
            return -EINVAL;
        }
    }
    if (p >= end || *p != ':' || p + 1 >= end) {
        snprintf(err, errlen, "'%.*s': give the port (http://HOST:PORT)",
                 (int)n, s);
        return -EINVAL;
    }
    for (p++; p < end && *p >= '0' && *p <= '9' && port <= 65535; p++)
        port = port * 10 + (unsigned long)(*p - '0');
    if (p < end && *p == '/')
        p++;
    if (p != end || !port || port > 65535) {
        snprintf(err, errlen, "'%.*s': expected http://HOST:PORT with a "
                 "port from 1 to 65535 and no path", (int)n, s);
        return -EINVAL;
    }
    memcpy(u->host, h, (size_t)(he - h));
    u->host[he - h] = '\0';
    snprintf(u->port, sizeof(u->port), "%lu", port);
    return 0;
}

static bool ieq(const char *p, size_t n, const char *w)
{
    return strlen(w) == n && !strncasecmp(p, w, n);
}

/* The CRLF ending the line at p, or NULL if none before end. */
static const char *eol(const char *p, const char *end)
{
    for (; end - p >= 2; p++) {
        if (p[0] == '\r' && p[1] == '\n')
            return p;
    }
    return NULL;
}

/* Chunks from p: 1 whole (body in r->buf), 0 cut short, -EBADMSG. */
static int dechunk(struct xlft_http_reply *r, const char *p,
                   const char *end, char *err, size_t errlen)
{
    size_t o = 0;

    for (;;) {
        const char *e = eol(p, end), *q = p;
        size_t size = 0;

        for (; q < end && q - p < 8 && strchr("0123456789abcdefABCDEF", *q)
             && *q; q++)
            size = size * 16 + (size_t)(*q <= '9' ? *q - '0' :
                                        (*q | 0x20) - 'a' + 10);
        if (q == p && q < end)
            return BAD("chunk size is not a hex number");
        if (q < end && *q != ';' && *q != '\r')
            return BAD("chunk size line is malformed");
        if (!e)
            return 0;
        if (size > XLFT_HTTP_MAX - o)
            return BAD("chunk of %zu bytes is longer than the reply", size);
        p = e + 2;
        if (!size)
            break;
        if ((size_t)(end - p) < size + 2)
            return 0;
        if (p[size] != '\r' || p[size + 1] != '\n')
            return BAD("chunk of %zu bytes not followed by CRLF", size);
        memcpy(r->buf + o, p, size);
        o += size;
        p += size + 2;
    }
    /* Trailer lines, then an empty line ends the reply. */
    for (;;) {
        const char *e = eol(p, end);

        if (!e)
            return 0;
        if (e == p)
            break;
        p = e + 2;
    }
    if (p + 2 != end)
        return BAD("%zu bytes after the last chunk", (size_t)(end - p - 2));
    r->buf[o] = '\0';
    r->body = r->buf;
    r->bodylen = o;
    return 1;
}

int xlft_http_parse(struct xlft_http_reply *r, bool eof, char *err,
                    size_t errlen)
{
    const char *s = r->raw, *end = s + r->len, *hend, *p, *b;
    long clen = -1;
    bool chunked = false;
    int rc;

    hend = memmem(s, r->len, "\r\n\r\n", 4);
    if (!hend) {
        if (eof)
            return BAD("reply cut short in its headers (%zu bytes)",
                       r->len);
        if (r->len >= sizeof(r->raw))
            return BAD("reply headers longer than %d bytes", XLFT_HTTP_MAX);
        return 0;
    }
    if (hend - s < 12 || memcmp(s, "HTTP/1.", 7) ||
        (s[7] != '0' && s[7] != '1') || s[8] != ' ' ||
        s[9] < '1' || s[9] > '5' || s[10] < '0' || s[10] > '9' ||
        s[11] < '0' || s[11] > '9' || (s[12] != ' ' && s[12] != '\r'))
        return BAD("reply does not start with an HTTP/1.x status line");
    r->status = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
    if (r->status < 200)
        return BAD("unexpected interim reply %d", r->status);

    for (p = eol(s, end) + 2; p < hend + 2;) {
        const char *e = eol(p, end), *colon, *v, *ve;

        colon = memchr(p, ':', (size_t)(e - p));
        if (!colon || colon == p)
            return BAD("reply header line without a name");
        for (const char *c = p; c < e; c++) {
            if ((unsigned char)*c < 0x20 && *c != '\t')
                return BAD("control character in a reply header");
        }
        for (v = colon + 1; v < e && (*v == ' ' || *v == '\t'); v++)
            ;
        for (ve = e; ve > v && (ve[-1] == ' ' || ve[-1] == '\t'); ve--)
            ;
        if (ieq(p, (size_t)(colon - p), "Content-Length")) {
            if (clen >= 0)
                return BAD("reply has two Content-Length headers");
            if (v == ve)
                return BAD("empty Content-Length");
            clen = 0;
            for (; v < ve; v++) {
                if (*v < '0' || *v > '9' || clen > XLFT_HTTP_MAX)
                    return BAD("Content-Length is not a length up to %d",
                               XLFT_HTTP_MAX);
                clen = clen * 10 + (*v - '0');
            }
        } else if (ieq(p, (size_t)(colon - p), "Transfer-Encoding")) {
            if (!ieq(v, (size_t)(ve - v), "chunked"))
                return BAD("transfer encoding '%.*s' is not supported",
                           (int)(ve - v), v);
            chunked = true;
        }
        p = e + 2;
    }

    b = hend + 4;
    if (chunked && clen >= 0)
        return BAD("reply has both Content-Length and chunks");
    if (chunked) {
        rc = dechunk(r, b, end, err, errlen);
        if (!rc && eof)
            return BAD("reply cut short in its chunks");
        return rc;
    }
    if (r->status == 204 || r->status == 304)
        clen = 0;
    if (clen >= 0) {
        if ((size_t)(end - b) > (size_t)clen)
            return BAD("%zu bytes after the reply's body",
                       (size_t)(end - b) - (size_t)clen);
        if ((size_t)(end - b) < (size_t)clen) {
            if (eof)
                return BAD("reply cut short: %zu of %ld body bytes",
                           (size_t)(end - b), clen);
            return 0;
        }
    } else if (!eof) {
        return 0;
    }
    r->bodylen = (size_t)(end - b);
    memcpy(r->buf, b, r->bodylen);
    r->buf[r->bodylen] = '\0';
    r->body = r->buf;
    return 1;
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for 'ev' on fd until 'deadline': 0, or -ETIMEDOUT / -errno. */
static int wait_fd(int fd, short ev, int64_t deadline)
{
    for (;;) {
        struct pollfd pfd = { .fd = fd, .events = ev };
        int64_t left = deadline - now_ms();
        int n;

        if (left <= 0)
            return -ETIMEDOUT;
        n = poll(&pfd, 1, (int)left);
        if (n > 0)
            return 0;
        if (n < 0 && errno != EINTR)
            return -errno;
    }
}

static int connect_to(const struct xlft_http_url *u, int64_t deadline,
                      char *err, size_t errlen)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_NUMERICSERV }, *ai, *a;
    int fd = -1, rc, g;

    g = getaddrinfo(u->host, u->port, &hints, &ai);
    if (g) {
        snprintf(err, errlen, "cannot resolve %s: %s", u->host,
                 gai_strerror(g));
        return -EHOSTUNREACH;
    }
    rc = -EHOSTUNREACH;
    for (a = ai; a; a = a->ai_next) {
        int soerr = 0;
        socklen_t sl = sizeof(soerr);

        fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK |
                    SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            rc = -errno;
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) && errno != EINPROGRESS)
            rc = -errno;
        else if ((rc = wait_fd(fd, POLLOUT, deadline)) == 0 &&
                 getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0)
            rc = -soerr;
        if (!rc)
            break;
        close(fd);
        fd = -1;
        if (rc == -ETIMEDOUT)
            break;
    }
    freeaddrinfo(ai);
    if (fd < 0) {
        snprintf(err, errlen, "cannot connect: %s", strerror(-rc));
        return rc;
    }
    return fd;
}

static int send_all(int fd, const char *p, size_t n, int64_t deadline)
{
    while (n) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);

        if (k < 0 && errno == EAGAIN) {
            int rc = wait_fd(fd, POLLOUT, deadline);

            if (rc)
                return rc;
            continue;
        }
        if (k < 0 && errno != EINTR)
            return -errno;
        if (k > 0) {
            p += k;
            n -= (size_t)k;
        }
    }
    return 0;
}

static int exchange(int fd, const struct xlft_http_url *u,
                    const char *method, const char *path, const char *body,
                    int64_t deadline, struct xlft_http_reply *r, char *err,
                    size_t errlen)
{
    char head[512];
    size_t blen = body ? strlen(body) : 0;
    int n, rc;

    n = snprintf(head, sizeof(head),
                 "%s %s HTTP/1.1\r\nHost: %s%s%s:%s\r\n"
                 "Content-Type: application/json\r\n"
                 "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                 method, path, strchr(u->host, ':') ? "[" : "", u->host,
                 strchr(u->host, ':') ? "]" : "", u->port, blen);
    if (n < 0 || (size_t)n >= sizeof(head)) {
        snprintf(err, errlen, "request header too long");
        return -EINVAL;
    }
    if ((rc = send_all(fd, head, (size_t)n, deadline)) ||
        (rc = send_all(fd, body ? body : "", blen, deadline))) {
        snprintf(err, errlen, "cannot send the request: %s", strerror(-rc));
        return rc;
    }
    r->len = 0;
    for (;;) {
        ssize_t k;

        if (r->len == sizeof(r->raw))
            return BAD("reply longer than %d bytes", XLFT_HTTP_MAX);
        k = recv(fd, r->raw + r->len, sizeof(r->raw) - r->len, 0);
        if (k < 0 && errno == EAGAIN) {
            rc = wait_fd(fd, POLLIN, deadline);
            if (rc) {
                snprintf(err, errlen, "no whole reply: %s (%zu bytes "
                         "came)", strerror(-rc), r->len);
                return rc;
            }
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            rc = -errno;
            snprintf(err, errlen, "cannot read the reply: %s",
                     strerror(errno));
            return rc;
        }
        r->len += (size_t)k;
        rc = xlft_http_parse(r, k == 0, err, errlen);
        if (rc)
            return rc < 0 ? rc : 0;
    }
}

int xlft_http_request(const struct xlft_http_url *u, const char *method,
                      const char *path, const char *body, int timeout_ms,
                      struct xlft_http_reply *r, char *err, size_t errlen)
{
    int64_t deadline = now_ms() + timeout_ms;
    int fd = connect_to(u, deadline, err, errlen), rc;

    if (fd < 0)
        return fd;
    rc = exchange(fd, u, method, path, body, deadline, r, err, errlen);
    close(fd);
    return rc;
}
