/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_ack_wake.h - a wake-up from ftd to the device model of a Xen
 * guest (ftdm) when the secondary's acknowledgement moves: the device
 * model holds the guest's outputs until then, and reads how far the
 * acknowledgement goes from the record ring itself (ft_ring_ack).
 *
 * The wake-up carries nothing to trust: one datagram on a Unix socket
 * named for the domain, in a directory only root may write.  A lost or
 * unsent one costs latency, never an output let out too early: the
 * listener also looks at the ring on a timer while it holds anything.
 */
#ifndef XLFT_ACK_WAKE_H
#define XLFT_ACK_WAKE_H

#include <stddef.h>
#include <stdint.h>

/* Where the sockets are, one per domain: DIR/ack-DOMID. */
#define XLFT_ACK_WAKE_DIR "/run/xenft"

/*
 * Listen for the wake-ups of 'domid' in 'dir' (made 0700 if missing):
 * a non-blocking descriptor, readable when one came (drain it with
 * xlft_ack_wake_drain), or -errno with 'err' naming the path.
 * -EADDRINUSE: another listener has it.  A socket left by a listener
 * that died is replaced.
 */
int xlft_ack_wake_listen(const char *dir, uint32_t domid, char *err,
                         size_t errlen);
/* Stop listening: close 'fd' and remove the socket. */
void xlft_ack_wake_close(const char *dir, uint32_t domid, int fd);
/* Take every wake-up that came: how many, or -errno. */
int xlft_ack_wake_drain(int fd);

/*
 * The sender's side: a descriptor to send from (-errno if none can be
 * made), and one wake-up to the listener of 'domid', if there is one.
 * Never blocks; 0, or -errno: -ENOENT or -ECONNREFUSED when nobody
 * listens, -EAGAIN when the listener has unread wake-ups already.
 */
int xlft_ack_wake_sender(void);
int xlft_ack_wake_send(int fd, const char *dir, uint32_t domid);

#endif /* XLFT_ACK_WAKE_H */
