/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * runsock.h - the Unix sockets by which ftd reaches a guest's device
 * model: DIR/NAME-DOMID, in a directory only root may write.  Internal
 * to libxlft.
 */
#ifndef RUNSOCK_H
#define RUNSOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

/* DIR/NAME-DOMID into 'sa'; 0 or -ENAMETOOLONG. */
int runsock_path(struct sockaddr_un *sa, const char *dir, const char *name,
                 uint32_t domid);

/*
 * A socket of 'type' (SOCK_DGRAM, SOCK_SEQPACKET; non-blocking) bound
 * at 'sa', in its directory (made 0700 if missing, refused if anyone
 * but us may write it), replacing one a dead listener left: the fd, or
 * -errno with 'err' naming the path.  -EADDRINUSE: a live one has it.
 */
int runsock_bind(const struct sockaddr_un *sa, const char *dir, int type,
                 uint32_t domid, char *err, size_t errlen);

#endif /* RUNSOCK_H */
