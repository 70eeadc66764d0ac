/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tap.h - the network backend of ftdm's virtio-net: a tap device in
 * dom0, made by ftdm for the guest, up, and a port of the guest's
 * bridge when one is named.  It goes when ftdm closes it.
 */
#ifndef FTDM_TAP_H
#define FTDM_TAP_H

#include <stddef.h>
#include <stdint.h>

/*
 * Make tap 'name' (at most 15 bytes) for 'domid', bring it up and, if
 * 'bridge' is not NULL, add it to that bridge.  A non-blocking
 * descriptor, or -errno with 'err' naming the device and what failed.
 */
int ftdm_tap_open(uint32_t domid, const char *name, const char *bridge,
                  char *err, size_t errlen);
void ftdm_tap_close(int fd);

/*
 * One frame from the outside world into 'buf': its length, 0 if none
 * waits, or -errno.  A frame longer than 'len' is cut (and counted by
 * the caller as too long).
 */
int ftdm_tap_read(int fd, void *buf, size_t len);
/* One frame out: 0, -EAGAIN while the device's queue is full, -errno. */
int ftdm_tap_write(int fd, const void *frame, size_t len);

#endif /* FTDM_TAP_H */
