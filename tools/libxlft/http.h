/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * http.h - a small HTTP/1.1 client for the etcd arbiter (internal).
 *
 * One request per connection ("Connection: close"), the whole exchange
 * bounded by a timeout.  Replies are taken whole into a fixed buffer and
 * parsed strictly: status line, headers, then a body sized by
 * Content-Length, by chunks, or by the end of the connection.
 */
#ifndef XLFT_HTTP_H
#define XLFT_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#define XLFT_HTTP_MAX 16384     /* the longest reply taken, in bytes */

struct xlft_http_url {
    char host[256];             /* a name or an address, no brackets */
    char port[8];
};

struct xlft_http_reply {
    int status;
    char *body;                 /* in buf, NUL-terminated */
    size_t bodylen;
    size_t len;                 /* bytes received into raw */
    char raw[XLFT_HTTP_MAX];
    char buf[XLFT_HTTP_MAX + 1];
};

/* "http://HOST:PORT[/]" of n bytes; HOST may be "[v6 address]". */
int xlft_http_parse_url(const char *s, size_t n, struct xlft_http_url *u,
                        char *err, size_t errlen);

/*
 * Parse the r->len bytes in r->raw; 'eof' once the server has closed.
 * 1: a whole reply, status and body set; 0: more bytes needed;
 * -EBADMSG: not a valid reply, or cut short at eof, with 'err' saying
 * what is wrong.
 */
int xlft_http_parse(struct xlft_http_reply *r, bool eof, char *err,
                    size_t errlen);

/*
 * Send one request with 'body' (NULL: none) and read the reply into 'r'
 * within 'timeout_ms' (not counting the resolution of a host name, which
 * the system's resolver bounds; an address needs none).  0: a reply (of
 * any status); -errno: no connection, -ETIMEDOUT, or -EBADMSG; 'err'
 * says which.
 */
int xlft_http_request(const struct xlft_http_url *u, const char *method,
                      const char *path, const char *body, int timeout_ms,
                      struct xlft_http_reply *r, char *err, size_t errlen);

#endif /* XLFT_HTTP_H */
