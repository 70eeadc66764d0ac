/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_channel.h - one end of a logging channel: a connected TCP socket
 * driven by libevent, running the handshake of xlft_crypto.h and then
 * carrying frames both ways (WIRE.md).
 *
 * Memory is bounded whatever the peer does: at most 'in_max' bytes read
 * ahead from the socket (one buffer, in which frames are opened in
 * place) and 'out_max' bytes queued to it.  Nothing is ever dropped: a
 * full output queue makes xlft_chan_send return -EAGAIN (on_writable
 * says when to try again), and a receiver that cannot take more pauses
 * reading, which fills the sender's queue in turn.
 *
 * The channel logs one line when it ends with an error, naming the
 * domid and the peer; on_down gets the same reason.
 */
#ifndef XLFT_CHANNEL_H
#define XLFT_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>

#include "xlft_crypto.h"

struct xlft_chan;

struct xlft_chan_cfg {
    struct event_base *base;
    int fd;                     /* connected TCP socket, taken over */
    const char *peer;           /* how log lines name the peer */
    struct xlft_session_cfg session;
    size_t in_max;              /* read-ahead bound, >= XLFT_FRAME_MAX */
    size_t out_max;             /* send queue bound, >= XLFT_FRAME_MAX */
    unsigned int handshake_ms;  /* give up on a silent peer after this */

    /* Both sides have proved the key: frames may be sent. */
    void (*on_up)(struct xlft_chan *c, void *arg);
    /*
     * A frame from the peer.  LOG and STATE data point into a buffer
     * that is reused after the call returns.  May send and pause, not
     * free the channel.
     */
    void (*on_msg)(struct xlft_chan *c, const struct xlft_msg *m,
                   void *arg);
    /* The send queue has room again after an -EAGAIN. */
    void (*on_writable)(struct xlft_chan *c, void *arg);
    /*
     * The channel has ended: 'err' is 0 after an orderly close (ours, or
     * the peer's after a SHUTDOWN frame), else a negative errno value
     * with 'why'.  The last callback; it may free the channel.
     */
    void (*on_down)(struct xlft_chan *c, int err, const char *why,
                    void *arg);
    /* Where the log line goes; NULL: standard error. */
    void (*log)(void *arg, const char *line);
    void *arg;
};

/*
 * Set up the channel on cfg->fd, a TCP socket, with keepalive and a user
 * timeout (WIRE.md, "The connection"); an initiator sends its HELLO at
 * once.  On failure the socket is closed.
 */
int xlft_chan_new(struct xlft_chan **c, const struct xlft_chan_cfg *cfg,
                  char *msg, size_t msglen);

/*
 * Queue 'm' as the next frame.  -EAGAIN if the queue would pass
 * 'out_max' (nothing queued; on_writable follows), -ENOTCONN before
 * on_up or after the channel ended, -EINVAL for a message that cannot be
 * encoded.
 */
int xlft_chan_send(struct xlft_chan *c, const struct xlft_msg *m);

/* Stop (true) or resume (false) taking frames from the peer. */
void xlft_chan_pause(struct xlft_chan *c, bool paused);

/* Send what is queued, then close; on_down follows with 0. */
void xlft_chan_close(struct xlft_chan *c);

/* The pair agreed in the handshake, and the host the peer proved it is
 * (from on_up; "" before the peer's hello). */
const char *xlft_chan_pair(const struct xlft_chan *c);
const char *xlft_chan_peer_host(const struct xlft_chan *c);

/* Bytes read ahead and queued to send, for status and tests. */
void xlft_chan_buffered(const struct xlft_chan *c, size_t *in, size_t *out);

/* Free at any time outside the channel's callbacks but on_down. */
void xlft_chan_free(struct xlft_chan *c);

#endif /* XLFT_CHANNEL_H */
