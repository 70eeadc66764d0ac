/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_nlsock.h - a netfilter netlink socket, and a request answered by
 * acknowledgements, for the network gate.
 */
#ifndef XLFT_NLSOCK_H
#define XLFT_NLSOCK_H

#include <stddef.h>

/* Replies are awaited this long at most. */
#define XLFT_NLSOCK_TIMEOUT_MS 2000

/* A bound NETLINK_NETFILTER socket (close-on-exec), or -errno. */
int xlft_nlsock_open(void);

/*
 * Send 'len' bytes of requests and read the 'nacks' acknowledgements
 * they ask for, or up to the first error: 0, that error, -ETIMEDOUT, or
 * -EBADMSG for a reply that is not an acknowledgement.
 */
int xlft_nlsock_transact(int fd, const void *req, size_t len,
                         unsigned nacks);

#endif /* XLFT_NLSOCK_H */
