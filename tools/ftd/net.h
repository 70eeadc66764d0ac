/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * net.h - the TCP ends of ftd's logging channels.
 */
#ifndef FTD_NET_H
#define FTD_NET_H

#include <stddef.h>

#define FTD_PORT        "7800"      /* when a peer names no port */
#define FTD_PEER_MAX    1100        /* "host:port" of an accepted peer */

/*
 * Connect to HOST[:PORT] ('port' when it names none; NULL: PORT is
 * required) within 'timeout_ms'.  The socket, or -1 with 'why'.
 */
int ftd_dial(const char *spec, const char *port, int timeout_ms, char *why,
             size_t len);

struct event_base;
struct ftd_dial;

/*
 * How a dial ends, called once from its loop: the connected socket,
 * now the callee's, or -1 and why.  The dial is gone by then.
 */
typedef void ftd_dial_done(void *arg, int fd, const char *why);

/*
 * Connect to HOST[:PORT] as ftd_dial does, without ever blocking 'base':
 * a HOST that is a name is looked up on a thread; the lookup and the
 * connect together have 'timeout_ms'.  0, or -errno with 'why' (a bad
 * spec, too many lookups at once); 'done' is then never called.
 */
int ftd_dial_start(struct ftd_dial **dp, struct event_base *base,
                   const char *spec, const char *port, int timeout_ms,
                   ftd_dial_done *done, void *arg, char *why, size_t len);

/* Stop a dial before it has ended; 'done' is not called. */
void ftd_dial_cancel(struct ftd_dial *d);

/* A listening socket on ADDR:PORT, or -1 with 'why'. */
int ftd_listen(const char *spec, int backlog, char *why, size_t len);

/* Take a connection from 'lfd', naming its peer "host:port"; or -1. */
int ftd_accept(int lfd, char peer[FTD_PEER_MAX]);

#endif /* FTD_NET_H */
