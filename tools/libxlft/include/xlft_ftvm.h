/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_ftvm.h - the dom0 side of `ftvm serve`'s control socket: what
 * ftd's ftvm backend uses where its xen backend issues the FT domctl
 * and maps the ring with acquire_resource.  Protocol: xlft_ftvm_ctl.h.
 *
 * Errors are negative errno values.  A refused request returns the
 * server's error, and its reason is in rep->msg.
 */
#ifndef XLFT_FTVM_H
#define XLFT_FTVM_H

#include <stddef.h>
#include <stdint.h>

#include "ft_ring.h"
#include "xlft_ftvm_ctl.h"

struct xlft_ftvm;

/* Connect to the control socket at 'path'; 'err' says why not. */
int xlft_ftvm_open(struct xlft_ftvm **c, const char *path, char *err,
                   size_t errlen);
void xlft_ftvm_close(struct xlft_ftvm *c);

/* The socket, for poll(): readable when a reply has arrived. */
int xlft_ftvm_fd(const struct xlft_ftvm *c);

/*
 * Send one request without waiting for its reply.  'fd' (or -1) goes
 * with SAVE and RESTORE; 'arg' is RECORD's and REPLAY's ring size and
 * THROTTLE's percentage.
 */
int xlft_ftvm_send(struct xlft_ftvm *c, uint16_t op, uint32_t arg,
                   uint32_t flags, int fd);

/*
 * Receive the reply to the request sent.  For a successful RECORD or
 * REPLAY, fds[] gets the ring memfd and the up and down eventfds, which
 * the caller owns.  Returns rep->error, or a transport error (then
 * rep->msg says what happened).  A reply to anything but SAVE, RESTORE
 * and STOP is due within the deadline: -ETIMEDOUT once it has passed,
 * and the connection is given up on (every later call: -EPIPE), since
 * an ftvm that its guest has taken over must not hold its client.
 */
int xlft_ftvm_recv(struct xlft_ftvm *c, struct xlft_ftvm_rep *rep,
                   int fds[3]);

/* How long a reply may take, ms: XLFT_FTVM_REPLY_MS unless set. */
#define XLFT_FTVM_REPLY_MS  10000
void xlft_ftvm_set_deadline(struct xlft_ftvm *c, int ms);

/* send, then recv. */
int xlft_ftvm_call(struct xlft_ftvm *c, uint16_t op, uint32_t arg,
                   uint32_t flags, int fd, struct xlft_ftvm_rep *rep,
                   int fds[3]);

/*
 * Ask 'op' (STATUS) in passing: sent unless it is already out, and its
 * reply returned as xlft_ftvm_recv would once it has come; -EAGAIN
 * until then, however long that is, so that a stopped ftvm cannot hold
 * a caller that only asks.  A call made meanwhile takes that reply
 * first (within the deadline).
 */
int xlft_ftvm_ask(struct xlft_ftvm *c, uint16_t op,
                  struct xlft_ftvm_rep *rep);

/* A ring as ftvm passed it: mapped and checked for 'role'. */
struct xlft_ring {
    void *mem;
    uint32_t size;
    struct ft_ring ring;
    int up_fd, down_fd;     /* eventfds: from ftvm, to ftvm */
};

/*
 * Map the ring of fds[] (closing the memfd; the eventfds move into 'r').
 * -EPERM if the memfd is not sealed at its size (F_SEAL_SHRINK,
 * F_SEAL_GROW, F_SEAL_SEAL), -EPROTO if it is not 'size' bytes, or not a
 * ring of 'role', -EPROTONOSUPPORT if not of this version.  Nothing is
 * mapped then, and the eventfds are closed.
 */
int xlft_ring_map(struct xlft_ring *r, const int fds[3], uint32_t size,
                  uint32_t role, char *err, size_t errlen);
void xlft_ring_unmap(struct xlft_ring *r);

/* Signal ftvm through the down eventfd. */
int xlft_ring_notify(struct xlft_ring *r);

/* Names for messages. */
const char *xlft_ftvm_op_name(uint16_t op);
const char *xlft_ftvm_state_name(uint32_t state);
const char *xlft_ftvm_mode_name(uint32_t mode);

#endif /* XLFT_FTVM_H */
