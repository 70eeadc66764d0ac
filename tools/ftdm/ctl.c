// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctl.c - ftd's word to ftdm while the guest's copy is made (ctl.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctl.h"
#include "xlft_dm_ctl.h"

struct ftdm_ctl {
    uint32_t domid;
    const char *dir;
    struct ftdm_ctl_ops ops;
    int lfd, cfd;               /* listening; the connection, or -1 */
    bool frozen;
    struct event *listen_ev, *conn_ev;
    uint8_t buf[XLFT_DM_STATE_MAX];
};

static void hang_up(struct ftdm_ctl *c)
{
    if (c->conn_ev)
        event_free(c->conn_ev);
    c->conn_ev = NULL;
    if (c->cfd >= 0)
        close(c->cfd);
    c->cfd = -1;
    if (c->frozen) {
        c->frozen = false;
        c->ops.thaw(c->ops.opaque);
    }
}

static void say(struct ftdm_ctl *c, const void *msg, size_t len)
{
    if (send(c->cfd, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
        hang_up(c);
}

static void on_conn(evutil_socket_t fd, short what, void *opaque)
{
    struct ftdm_ctl *c = opaque;
    static const char refused[] = "refused: not freeze 1, or state "
                                  "before it";
    char m[64];
    ssize_t n = recv(fd, m, sizeof(m) - 1, MSG_DONTWAIT);

    (void)what;
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        hang_up(c);
        return;
    }
    m[n] = '\0';
    if (!strcmp(m, "freeze 1")) {
        if (!c->frozen) {
            c->frozen = true;
            c->ops.freeze(c->ops.opaque);
        }
        say(c, "frozen", 6);
    } else if (!strcmp(m, "state") && c->frozen) {
        say(c, c->buf, c->ops.state(c->ops.opaque, c->buf));
    } else {
        fprintf(stderr, "ftdm: domain %u: a word on its control socket it "
                "does not know (%zd bytes): refused\n", c->domid, n);
        say(c, refused, strlen(refused));
        hang_up(c);
    }
}

static void on_listen(evutil_socket_t fd, short what, void *opaque)
{
    struct ftdm_ctl *c = opaque;
    int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

    (void)what;
    if (cfd < 0)
        return;
    if (c->cfd >= 0) {
        send(cfd, "refused: busy", 13, MSG_NOSIGNAL | MSG_DONTWAIT);
        close(cfd);
        return;
    }
    c->cfd = cfd;
    c->conn_ev = event_new(event_get_base(c->listen_ev), cfd,
                           EV_READ | EV_PERSIST, on_conn, c);
    if (!c->conn_ev || event_add(c->conn_ev, NULL))
        hang_up(c);
}

int ftdm_ctl_open(struct ftdm_ctl **cp, uint32_t domid,
                  struct event_base *base, const char *dir,
                  const struct ftdm_ctl_ops *ops, char *err, size_t errlen)
{
    struct ftdm_ctl *c = calloc(1, sizeof(*c));

    *cp = NULL;
    if (!c) {
        snprintf(err, errlen, "domain %u: out of memory", domid);
        return -ENOMEM;
    }
    *c = (struct ftdm_ctl){ .domid = domid, .dir = dir, .ops = *ops,
                            .lfd = -1, .cfd = -1 };
    c->lfd = xlft_dm_ctl_listen(dir, domid, err, errlen);
    if (c->lfd < 0) {
        int rc = c->lfd;

        free(c);
        return rc;
    }
    c->listen_ev = event_new(base, c->lfd, EV_READ | EV_PERSIST, on_listen,
                             c);
    if (!c->listen_ev || event_add(c->listen_ev, NULL)) {
        snprintf(err, errlen, "domain %u: cannot set up its events", domid);
        ftdm_ctl_close(c);
        return -ENOMEM;
    }
    *cp = c;
    return 0;
}

void ftdm_ctl_close(struct ftdm_ctl *c)
{
    if (!c)
        return;
    hang_up(c);
    if (c->listen_ev)
        event_free(c->listen_ev);
    xlft_dm_ctl_close(c->dir, c->domid, c->lfd);
    free(c);
}
