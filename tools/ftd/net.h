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

/* A listening socket on ADDR:PORT, or -1 with 'why'. */
int ftd_listen(const char *spec, int backlog, char *why, size_t len);

/* Take a connection from 'lfd', naming its peer "host:port"; or -1. */
int ftd_accept(int lfd, char peer[FTD_PEER_MAX]);

#endif /* FTD_NET_H */
