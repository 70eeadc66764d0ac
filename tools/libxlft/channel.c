// SPDX-License-Identifier: GPL-2.0-only
/*
 * channel.c - one end of a logging channel on a libevent bufferevent:
 * frames cut from the byte stream, handed to the session (handshake,
 * decryption, sequence checks) and to the owner; frames from the owner
 * sealed straight into the send queue.  Both queues are bounded (see
 * xlft_channel.h); the end of a channel is reported from the event loop,
 * never from inside a call of the owner's.
 *
 * The channel reads the socket itself, as much as there is room for
 * (libevent 2.1 reads at most 4096, a system call and a trip through
 * the loop for every 4 KiB), into one buffer of in_max bytes where each
 * frame lies whole and is opened in place: no frame is copied out of
 * it, but for the start of one that would not fit before its end, moved
 * to the front (once every in_max bytes or so).
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/util.h>

#include "xlft_channel.h"
#include "say.h"

#define HANDSHAKE_MS_DEFAULT 5000u
/* The largest frame of a handshake: an ERROR with its longest reason,
 * sealed, and room to spare (WIRE.md, The connection). */
#define HANDSHAKE_FRAME_MAX  512u
/* How long a closing channel tries to send what is queued. */
#define LINGER_MS            1000u
#define WHY_MAX              320u
/*
 * A peer whose host died, or whose packets are dropped, sends nothing,
 * not even its FIN: TCP would keep the connection for hours when no
 * data flows, for some fifteen minutes of retransmissions when it does.
 * Probes after 2 s of silence, 2 s apart, 4 of them; and data (or a
 * shut window) unacknowledged for 10 s ends it too.  Both ~10 s.
 */
#define KEEPIDLE_S           2
#define KEEPINTVL_S          2
#define KEEPCNT              4
#define USER_TIMEOUT_MS      10000u

enum cstate {
    C_HANDSHAKE,
    C_UP,
    C_CLOSING,          /* sending what is queued, then down */
    C_DOWN,             /* on_down delivered or due */
};

struct xlft_chan {
    struct xlft_chan_cfg cfg;
    char peer[64];
    struct xlft_session *s;
    struct bufferevent *bev;
    struct event *timer;        /* handshake deadline */
    struct event *kick;         /* take buffered frames after a pause */
    struct event *down;         /* on_down, from the event loop */
    struct event *rd;           /* the socket readable */
    uint8_t *in;                /* read ahead: in_max bytes */
    size_t in_head, in_tail;    /* the bytes not yet taken */
    enum cstate state;
    bool paused;
    bool eof;                   /* the peer closed its side */
    bool dead;                  /* the socket failed: nothing to flush */
    bool want_writable;         /* an -EAGAIN awaits on_writable */
    bool peer_shutdown;         /* a SHUTDOWN frame came */
    bool orderly;               /* closing without an error */
    bool half_closed;           /* our side of the socket is shut */
    int err;
    char why[WHY_MAX];
};

static void log_line(struct xlft_chan *c, const char *text)
{
    char line[WHY_MAX + 128];

    snprintf(line, sizeof(line), "channel of domid %u, peer %s: %s",
             c->cfg.session.domid, c->peer, text);
    if (c->cfg.log)
        c->cfg.log(c->cfg.arg, line);
    else
        fprintf(stderr, "xlft: %s\n", line);
}

/* TCP keepalive and a user timeout on the channel's socket (WIRE.md). */
static int keepalive(int fd, char *msg, size_t msglen)
{
    static const struct {
        int level, name, value;
        const char *text;
    } opt[] = {
        { SOL_SOCKET, SO_KEEPALIVE, 1, "SO_KEEPALIVE" },
        { IPPROTO_TCP, TCP_KEEPIDLE, KEEPIDLE_S, "TCP_KEEPIDLE" },
        { IPPROTO_TCP, TCP_KEEPINTVL, KEEPINTVL_S, "TCP_KEEPINTVL" },
        { IPPROTO_TCP, TCP_KEEPCNT, KEEPCNT, "TCP_KEEPCNT" },
        { IPPROTO_TCP, TCP_USER_TIMEOUT, USER_TIMEOUT_MS,
          "TCP_USER_TIMEOUT" },
    };
    int err;

    for (size_t i = 0; i < sizeof(opt) / sizeof(opt[0]); i++) {
        if (!setsockopt(fd, opt[i].level, opt[i].name, &opt[i].value,
                        sizeof(opt[i].value)))
            continue;
        err = errno;
        xlft_say(msg, msglen, "channel: cannot set %s on its socket: %s "
            "(a channel is a TCP connection)", opt[i].text, strerror(err));
        return -err;
    }
    return 0;
}

/*
 * libevent frees a bufferevent from its loop, later; the socket is
 * closed now, so that the peer hears of it at once.
 */
static void drop_socket(struct xlft_chan *c)
{
    evutil_socket_t fd;

    if (!c->bev)
        return;
    fd = bufferevent_getfd(c->bev);
    if (c->rd)
        event_del(c->rd);
    bufferevent_disable(c->bev, EV_READ | EV_WRITE);
    bufferevent_setfd(c->bev, -1);
    bufferevent_free(c->bev);
    c->bev = NULL;
    if (fd >= 0)
        evutil_closesocket(fd);
}

static void down_later(struct xlft_chan *c)
{
    event_active(c->down, EV_TIMEOUT, 1);
}

static void half_close(struct xlft_chan *c)
{
    if (!c->half_closed && c->bev) {
        c->half_closed = true;
        shutdown(bufferevent_getfd(c->bev), SHUT_WR);
    }
    /* The peer has closed its side already: nothing more will come. */
    if (c->eof)
        down_later(c);
}

/*
 * The channel ends: log why (unless orderly), let the queue drain for
 * at most LINGER_MS (an ERROR frame may be in it), then on_down.
 */
static void finish(struct xlft_chan *c, int err, const char *why)
{
    struct evbuffer *out;

    if (c->state >= C_CLOSING)
        return;
    c->state = C_CLOSING;
    c->err = err;
    snprintf(c->why, sizeof(c->why), "%s", why);
    if (err)
        log_line(c, why);
    evtimer_del(c->timer);
    out = bufferevent_get_output(c->bev);
    if (c->dead) {
        event_del(c->rd);
        down_later(c);
        return;
    }
    /*
     * An orderly end must reach the peer whole: closing while its frames
     * lie unread here would reset the connection and lose ours.  So all
     * is sent, the socket half-closed, and what the peer still sends is
     * read and dropped until it closes too (or LINGER_MS passes).
     */
    c->orderly = !err;
    if (!c->orderly)
        event_del(c->rd);
    else if (!c->eof)
        event_add(c->rd, NULL);     /* even if paused: drain to the end */
    if (!c->orderly && !evbuffer_get_length(out)) {
        down_later(c);
    } else {
        struct timeval tv = { LINGER_MS / 1000, LINGER_MS % 1000 * 1000 };

        bufferevent_setwatermark(c->bev, EV_WRITE, 0, 0);
        evtimer_add(c->down, &tv);
        if (c->orderly && !evbuffer_get_length(out))
            half_close(c);
    }
}

static void down_cb(evutil_socket_t fd, short what, void *arg)
{
    struct xlft_chan *c = arg;

    (void)fd;
    (void)what;
    event_del(c->down);
    if (c->state == C_DOWN)
        return;
    c->state = C_DOWN;
    drop_socket(c);
    if (c->cfg.on_down)
        c->cfg.on_down(c, c->err, c->why, c->cfg.arg);
}

/* The peer has closed and every whole frame it sent has been taken. */
static void at_eof(struct xlft_chan *c, size_t left)
{
    char why[WHY_MAX];

    if (left) {
        snprintf(why, sizeof(why), "the connection closed in the middle "
                 "of a frame (%zu bytes of it)", left);
        finish(c, -ECONNRESET, why);
    } else if (c->peer_shutdown) {
        finish(c, 0, "closed by the peer after SHUTDOWN");
    } else {
        finish(c, -ECONNRESET, c->state == C_HANDSHAKE ?
               "the peer closed the connection during the handshake" :
               "the peer closed the connection");
    }
}

/* The size of the frame that starts at 'p', or 0 if its header is bad. */
static size_t frame_size(const uint8_t *p)
{
    struct xlft_hdr h;

    if (xlft_hdr_get(p, XLFT_HDR_SIZE, &h, NULL, 0))
        return 0;
    return XLFT_HDR_SIZE + h.len;
}

/* Take every whole frame read ahead, unless paused. */
static void take_frames(struct xlft_chan *c)
{
    struct evbuffer *out = bufferevent_get_output(c->bev);
    uint8_t reply[XLFT_REPLY_MAX];
    char text[WHY_MAX];

    while (c->state == C_HANDSHAKE || c->state == C_UP) {
        size_t have = c->in_tail - c->in_head, total, rlen = 0;
        uint8_t *frame = c->in + c->in_head;
        struct xlft_msg m;
        int rc;

        if (c->paused)
            return;
        if (have < XLFT_HDR_SIZE) {
            if (c->eof)
                at_eof(c, have);
            return;
        }
        /* A bad header goes to the session alone, which says why. */
        total = frame_size(frame);
        if (!total) {
            total = XLFT_HDR_SIZE;
        } else if (c->state == C_HANDSHAKE && total > HANDSHAKE_FRAME_MAX) {
            /* Before the key is proved, nothing large is read in. */
            snprintf(text, sizeof(text), "a frame of %zu bytes before "
                     "the handshake is done (at most %u)", total,
                     HANDSHAKE_FRAME_MAX);
            finish(c, -EPROTO, text);
            return;
        } else if (have < total) {
            /* in_max >= XLFT_FRAME_MAX: the rest can arrive. */
            if (c->eof)
                at_eof(c, have);
            return;
        }
        /* Taken: LOG and STATE data stay put until on_msg returns. */
        c->in_head += total;
        rc = xlft_session_recv(c->s, frame, total, &m, reply, &rlen,
                               text, sizeof(text));
        if (rlen)
            evbuffer_add(out, reply, rlen);
        if (rc < 0) {
            finish(c, rc, text);
            return;
        }
        if (rc == 0) {
            if (c->state == C_HANDSHAKE &&
                xlft_session_established(c->s)) {
                c->state = C_UP;
                evtimer_del(c->timer);
                if (c->cfg.on_up)
                    c->cfg.on_up(c, c->cfg.arg);
            }
            continue;
        }
        if (m.type == XLFT_T_SHUTDOWN)
            c->peer_shutdown = true;
        if (c->cfg.on_msg)
            c->cfg.on_msg(c, &m, c->cfg.arg);
    }
}

/*
 * Room to read into after what is there, with the frame being read kept
 * whole: it is moved to the front when it would pass the buffer's end.
 */
static size_t read_room(struct xlft_chan *c)
{
    size_t have = c->in_tail - c->in_head, need = XLFT_FRAME_MAX;

    if (have >= XLFT_HDR_SIZE && frame_size(c->in + c->in_head))
        need = frame_size(c->in + c->in_head);
    if (!have || c->in_head + need > c->cfg.in_max) {
        memmove(c->in, c->in + c->in_head, have);
        c->in_head = 0;
        c->in_tail = have;
    }
    return c->cfg.in_max - c->in_tail;
}

/* The socket is readable (only watched while not paused). */
static void rd_cb(evutil_socket_t fd, short what, void *arg)
{
    struct xlft_chan *c = arg;
    size_t room;
    char why[WHY_MAX];
    ssize_t n;

    (void)what;
    room = read_room(c);
    /* None only just after a pause: the kick takes frames first. */
    if (!room)
        return;
    n = recv(fd, c->in + c->in_tail, room, 0);
    if (n < 0) {
        int err = errno;

        if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR)
            return;
        c->dead = true;
        snprintf(why, sizeof(why), "connection failed: %s", strerror(err));
        finish(c, -err, why);
        return;
    }
    c->in_tail += (size_t)n;
    if (n == 0) {
        c->eof = true;
        event_del(c->rd);
    }
    if (c->state == C_CLOSING) {
        /* Closing in order: the peer's last words are not needed. */
        c->in_head = c->in_tail = 0;
        if (c->eof)
            down_later(c);
        return;
    }
    take_frames(c);
}

static void kick_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    take_frames(arg);
}

static void write_cb(struct bufferevent *bev, void *arg)
{
    struct xlft_chan *c = arg;

    if (c->state == C_CLOSING) {
        if (evbuffer_get_length(bufferevent_get_output(bev)))
            return;
        if (c->orderly)
            half_close(c);      /* down once the peer closes too */
        else
            down_later(c);
        return;
    }
    if (c->state == C_UP && c->want_writable) {
        c->want_writable = false;
        if (c->cfg.on_writable)
            c->cfg.on_writable(c, c->cfg.arg);
    }
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
    struct xlft_chan *c = arg;
    char why[WHY_MAX];

    (void)bev;
    if (what & BEV_EVENT_ERROR) {
        int err = EVUTIL_SOCKET_ERROR();

        c->dead = true;
        if (c->state == C_CLOSING) {
            down_later(c);
            return;
        }
        snprintf(why, sizeof(why), "connection failed: %s",
                 evutil_socket_error_to_string(err));
        finish(c, err ? -err : -EIO, why);
    }
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct xlft_chan *c = arg;
    char why[WHY_MAX];

    (void)fd;
    (void)what;
    snprintf(why, sizeof(why), "no handshake within %u ms",
             c->cfg.handshake_ms);
    finish(c, -ETIMEDOUT, why);
}

void xlft_chan_free(struct xlft_chan *c)
{
    if (!c)
        return;
    /* Before its events go: dropping the socket takes it off them. */
    drop_socket(c);
    if (c->timer)
        event_free(c->timer);
    if (c->kick)
        event_free(c->kick);
    if (c->rd) {
        event_del(c->rd);
        event_free(c->rd);
    }
    if (c->down)
        event_free(c->down);
    xlft_session_free(c->s);
    free(c->in);
    free(c);
}

int xlft_chan_new(struct xlft_chan **cp, const struct xlft_chan_cfg *cfg,
                  char *msg, size_t msglen)
{
    uint8_t hello[XLFT_REPLY_MAX];
    struct xlft_chan *c = NULL;
    struct timeval tv;
    int fd = cfg->fd, one = 1, rc, n;

    *cp = NULL;
    if (!cfg->base || fd < 0 || cfg->in_max < XLFT_FRAME_MAX ||
        cfg->out_max < XLFT_FRAME_MAX) {
        xlft_say(msg, msglen, "channel: no event base or socket, or a buffer "
            "bound under %u bytes", XLFT_FRAME_MAX);
        rc = -EINVAL;
        goto out;
    }
    c = calloc(1, sizeof(*c));
    if (!c) {
        xlft_say(msg, msglen, "channel: out of memory");
        rc = -ENOMEM;
        goto out;
    }
    c->cfg = *cfg;
    if (!c->cfg.handshake_ms)
        c->cfg.handshake_ms = HANDSHAKE_MS_DEFAULT;
    snprintf(c->peer, sizeof(c->peer), "%s", cfg->peer ? cfg->peer : "?");
    c->cfg.peer = c->peer;
    c->state = C_HANDSHAKE;

    evutil_make_socket_nonblocking(fd);
    /* ACKs hold the primary's output: they must not wait for Nagle. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    rc = keepalive(fd, msg, msglen);
    if (rc)
        goto out;
    c->bev = bufferevent_socket_new(cfg->base, fd, 0);
    if (!c->bev) {
        xlft_say(msg, msglen, "channel: cannot create a bufferevent");
        rc = -ENOMEM;
        goto out;
    }
    fd = -1;                    /* the bufferevent's: drop_socket closes it */
    rc = xlft_session_new(&c->s, &cfg->session, msg, msglen);
    if (rc)
        goto out;
    c->in = malloc(cfg->in_max);
    c->timer = evtimer_new(cfg->base, timer_cb, c);
    c->kick = event_new(cfg->base, -1, 0, kick_cb, c);
    c->down = evtimer_new(cfg->base, down_cb, c);
    c->rd = event_new(cfg->base, cfg->fd, EV_READ | EV_PERSIST, rd_cb, c);
    if (!c->in || !c->timer || !c->kick || !c->down || !c->rd) {
        xlft_say(msg, msglen, "channel: out of memory");
        rc = -ENOMEM;
        goto out;
    }
    bufferevent_setcb(c->bev, NULL, write_cb, event_cb, c);
    bufferevent_set_max_single_write(c->bev, (ev_ssize_t)cfg->out_max);
    bufferevent_setwatermark(c->bev, EV_WRITE, cfg->out_max / 2, 0);
    if (cfg->session.initiator) {
        n = xlft_session_start(c->s, hello, sizeof(hello), msg, msglen);
        if (n < 0) {
            rc = n;
            goto out;
        }
        evbuffer_add(bufferevent_get_output(c->bev), hello, (size_t)n);
    }
    tv.tv_sec = c->cfg.handshake_ms / 1000;
    tv.tv_usec = c->cfg.handshake_ms % 1000 * 1000;
    if (evtimer_add(c->timer, &tv) || event_add(c->rd, NULL) ||
        bufferevent_enable(c->bev, EV_WRITE)) {
        xlft_say(msg, msglen, "channel: cannot arm its events");
        rc = -EIO;
        goto out;
    }
    *cp = c;
    c = NULL;
out:
    if (fd >= 0)
        close(fd);
    xlft_chan_free(c);
    return rc;
}

/*
 * A small frame (an ACK, a heartbeat) with nothing queued: sealed and
 * sent at once.  Queued, each would cost the bufferevent's write event
 * added and deleted again (two epoll_ctl calls) and a trip through the
 * loop; only what the socket does not take now is queued.
 */
static int send_now(struct xlft_chan *c, const struct xlft_msg *m)
{
    uint8_t frame[XLFT_REPLY_MAX];
    char text[WHY_MAX];
    ssize_t sent;
    size_t done;
    int n;

    n = xlft_session_seal(c->s, m, frame, sizeof(frame), text,
                          sizeof(text));
    if (n < 0) {
        finish(c, n, text);
        return n;
    }
    sent = send(bufferevent_getfd(c->bev), frame, (size_t)n,
                MSG_DONTWAIT | MSG_NOSIGNAL);
    /* A socket that fails is the bufferevent's to report, from the loop. */
    done = sent > 0 ? (size_t)sent : 0;
    if (done < (size_t)n &&
        evbuffer_add(bufferevent_get_output(c->bev), frame + done,
                     (size_t)n - done)) {
        /* Part of the frame may be on its way: the stream cannot go on. */
        finish(c, -ENOMEM, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

int xlft_chan_send(struct xlft_chan *c, const struct xlft_msg *m)
{
    struct evbuffer *out;
    struct evbuffer_iovec v;
    char text[WHY_MAX];
    size_t need, queued;
    int n;

    if (c->state != C_UP)
        return -ENOTCONN;
    need = xlft_payload_size(m);
    if (!need)
        return -EINVAL;
    need += xlft_session_overhead(c->s);
    out = bufferevent_get_output(c->bev);
    queued = evbuffer_get_length(out);
    if (queued + need > c->cfg.out_max) {
        c->want_writable = true;
        return -EAGAIN;
    }
    if (!queued && need <= XLFT_REPLY_MAX)
        return send_now(c, m);
    if (evbuffer_reserve_space(out, (ev_ssize_t)need, &v, 1) != 1)
        return -ENOMEM;
    n = xlft_session_seal(c->s, m, v.iov_base, v.iov_len, text,
                          sizeof(text));
    if (n < 0) {
        finish(c, n, text);
        return n;
    }
    v.iov_len = (size_t)n;
    /* Sealed, its number spent: a frame not queued breaks the stream. */
    if (evbuffer_commit_space(out, &v, 1)) {
        finish(c, -ENOMEM, "cannot queue a frame");
        return -ENOMEM;
    }
    return 0;
}

void xlft_chan_pause(struct xlft_chan *c, bool paused)
{
    if (c->state >= C_CLOSING || c->paused == paused)
        return;
    c->paused = paused;
    if (paused) {
        event_del(c->rd);
    } else {
        if (!c->eof)
            event_add(c->rd, NULL);
        /* Frames already read wait for the loop, not for more bytes. */
        event_active(c->kick, EV_TIMEOUT, 1);
    }
}

void xlft_chan_close(struct xlft_chan *c)
{
    finish(c, 0, "closed");
}

void xlft_chan_buffered(const struct xlft_chan *c, size_t *in, size_t *out)
{
    *in = c->bev ? c->in_tail - c->in_head : 0;
    *out = c->bev ? evbuffer_get_length(bufferevent_get_output(c->bev)) : 0;
}

const char *xlft_chan_pair(const struct xlft_chan *c)
{
    return xlft_session_pair(c->s);
}

const char *xlft_chan_peer_host(const struct xlft_chan *c)
{
    return xlft_session_peer_host(c->s);
}
