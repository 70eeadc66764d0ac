// SPDX-License-Identifier: GPL-2.0-only
/*
 * loopback.c - the logging channel end to end over TCP on 127.0.0.1,
 * both ends in this process on one libevent loop.
 *
 *   primary (connects) ---- LOG ---->  secondary (accepts)
 *                      <--- ACK -----
 *
 * - stream: tens of MiB of real records (hvm/core's encoder) in LOG
 *   frames; the secondary checks every record in order (ft_log_check)
 *   and ACKs; it stops reading until the primary's queue is full, so
 *   back-pressure is reached and nothing may be lost; both queues stay
 *   within their bounds throughout; SHUTDOWN, then an orderly close.
 * - both sockets with TCP keepalive and a user timeout (~10 s);
 * - a peer unheard once up (its packets dropped) while no frame flows:
 *   the channel ends within ~10 s;
 * - the same with encryption disabled;
 * - LOG frames of random sizes up to the largest, through socket buffers
 *   of a few KiB: headers and frames arrive cut anywhere, and the frame
 *   at the end of the receiver's read-ahead (of one frame's size) is
 *   moved to its front to be opened in place, nearly every frame;
 * - a different key on each side: both ends down, "different key" said;
 * - raw peers writing bytes by hand: a version 4 frame, version 1's
 *   HELLO (before host identities) and version 2's (before counters),
 *   a HELLO from a peer of the same role, of this host's name or of a
 *   log this side could not replay, an oversize header, half a frame then
 *   close, silence: each refused with its own error, and the ERROR
 *   frame the peer gets back decodes;
 * - ACKs sent while the primary reads nothing: at once while the socket
 *   takes them, then queued behind the one it took in part, up to the
 *   bound; all arrive, in order, once the primary reads again;
 * - a channel freed while up (as ftd drops one whose peer it gave up
 *   on): nothing of it is used once freed.  libevent's memory is
 *   poisoned as it is freed (ev_free), so that an event used after its
 *   free faults rather than reading what is left there by chance.
 *
 * Every run is bounded by a deadline on the event loop; no sleeps.
 * Prints one line per scenario; exits 1 on the first failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/filter.h>
#include <event2/event.h>

#include "ft_abi.h"
#include "ft_log.h"
#include "records.h"
#include "xlft_channel.h"
#include "old_hello.h"
#define TEST_NAME "chan-loopback"
#include "testutil.h"

#define DEADLINE_S   60
#define BATCH        (128u << 10)   /* LOG frame payload target */
#define STREAM_BYTES (24u << 20)

static const uint8_t key_a[XLFT_KEY_SIZE] = { 1, 2, 3, 4, 5, 6, 7, 8 };
static const uint8_t key_b[XLFT_KEY_SIZE] = { 1, 2, 3, 4, 5, 6, 7, 9 };

/* The records of one log, and where each starts. */
struct log {
    uint8_t *bytes;
    size_t len;
    uint32_t *off;          /* off[i]: record i + 1; off[n] = len */
    uint32_t n;
};

static void make_log(struct log *l, size_t want, uint64_t seed)
{
    static uint8_t dma[FT_DMA_MAX];
    struct ft_point pt = { 0, 0, 0 };
    struct ft_codec c;
    size_t cap = want + FT_LOG_REC_MAX;
    uint32_t ncap = 1024;

    l->bytes = malloc(cap);
    l->off = malloc(ncap * sizeof(*l->off));
    CHECK(l->bytes && l->off);
    l->len = 0;
    l->n = 0;
    ft_codec_init(&c);
    while (l->len < want) {
        struct ft_log_rec r;
        int k;

        if (l->n + 1 >= ncap) {
            ncap *= 2;
            l->off = realloc(l->off, ncap * sizeof(*l->off));
            CHECK(l->off);
        }
        l->off[l->n++] = (uint32_t)l->len;
        random_record(&seed, &pt, &r, dma, FT_DMA_MAX);
        k = ft_log_encode(&c, &r, l->bytes + l->len);
        CHECK(k > 0);
        l->len += (size_t)k;
        if (r.kind == FT_K_DMA) {
            memcpy(l->bytes + l->len, r.u.dma.data, r.u.dma.len);
            l->len += r.u.dma.len;
        }
        ft_codec_advance(&c, &r);
    }
    l->off[l->n] = (uint32_t)l->len;
}

struct end {
    const char *name;
    struct xlft_chan *c;
    struct xlft_chan_cfg cfg;
    bool up, down;
    int err;
    char why[256];
    char logged[512];
    /* primary */
    const struct log *log;
    uint32_t next;          /* index of the next record to send */
    uint64_t acked;
    uint32_t frames, eagain;
    bool shutdown_sent;
    uint64_t sizes;         /* nonzero: LOG payloads of random sizes */
    uint32_t max;           /* the size drawn for the next frame */
    uint32_t acks;          /* no log: ACKs taken, each recv_ns one more */
    /* secondary */
    struct ft_codec codec;
    uint64_t held;
    uint32_t got;
    bool ack_pending;
    uint64_t echo;
    bool pause_once;        /* pause after the first frame */
    bool paused;
    /* either */
    bool deaf;              /* once up, every packet to it is dropped */
    uint64_t down_ns;       /* when on_down came */
};

static struct event_base *base;
static struct end *pri, *sec;
/* Long enough for a loaded machine; short where a test waits on it. */
static unsigned int handshake_ms = 10000;
static int downs_wanted, ups_wanted;

/* Each block libevent asks for, with its size before it. */
union blk {
    size_t len;
    max_align_t align;
};

static void *ev_malloc(size_t n)
{
    union blk *b = malloc(sizeof(*b) + n);

    if (!b)
        return NULL;
    b->len = n;
    return b + 1;
}

static void ev_free(void *p)
{
    union blk *b = (union blk *)p - 1;

    if (!p)
        return;
    memset(p, 0xa5, b->len);
    free(b);
}

static void *ev_realloc(void *p, size_t n)
{
    void *q;

    if (!p)
        return ev_malloc(n);
    q = ev_malloc(n);
    if (!q)
        return NULL;
    memcpy(q, p, ((union blk *)p - 1)->len < n ? ((union blk *)p - 1)->len
                                                : n);
    ev_free(p);
    return q;
}

static void check_bounds(struct end *e)
{
    size_t in, out;

    if (!e->c || e->down)
        return;
    xlft_chan_buffered(e->c, &in, &out);
    CHECK(in <= e->cfg.in_max);
    CHECK(out <= e->cfg.out_max);
}

static void log_cb(void *arg, const char *line)
{
    struct end *e = arg;

    snprintf(e->logged, sizeof(e->logged), "%s", line);
}

static void on_down(struct xlft_chan *c, int err, const char *why,
                    void *arg)
{
    struct end *e = arg;

    CHECK(!e->down);
    e->down = true;
    e->down_ns = now_ns();
    e->err = err;
    snprintf(e->why, sizeof(e->why), "%s", why);
    xlft_chan_free(c);
    e->c = NULL;
    if (--downs_wanted == 0)
        event_base_loopbreak(base);
}

/* Record bytes of the next LOG frame: BATCH, or 1 to the most. */
static uint32_t batch(struct end *e)
{
    if (!e->sizes)
        return BATCH;
    if (!e->max) {
        e->sizes ^= e->sizes << 13;
        e->sizes ^= e->sizes >> 7;
        e->sizes ^= e->sizes << 17;
        e->max = 1 + (uint32_t)(e->sizes %
                                (XLFT_PLAIN_MAX - XLFT_LOG_HDR_SIZE));
    }
    return e->max;
}

/* Primary: send LOG frames until the queue is full or the log ends. */
static void pump(struct end *e)
{
    while (e->next < e->log->n) {
        struct xlft_msg m = { .type = XLFT_T_LOG };
        uint32_t first = e->next, last = first + 1, max = batch(e);
        int rc;

        while (last < e->log->n &&
               e->log->off[last + 1] - e->log->off[first] <= max)
            last++;
        m.u.log = (struct xlft_log){
            .first_seq = first + 1ull, .sent_ns = now_ns(),
            .count = last - first,
            .len = e->log->off[last] - e->log->off[first],
            .recs = e->log->bytes + e->log->off[first],
        };
        rc = xlft_chan_send(e->c, &m);
        check_bounds(e);
        if (rc == -EAGAIN) {
            e->eagain++;
            /* The secondary held back until the primary had to stop. */
            if (sec->paused) {
                sec->paused = false;
                xlft_chan_pause(sec->c, false);
            }
            return;
        }
        CHECK(rc == 0);
        e->frames++;
        e->next = last;
        e->max = 0;
    }
    if (e->acked == e->log->n && !e->shutdown_sent) {
        struct xlft_msg m = { .type = XLFT_T_SHUTDOWN };
        int rc;

        m.u.shutdown_seq = e->log->n;
        rc = xlft_chan_send(e->c, &m);
        if (rc == -EAGAIN)
            return;
        CHECK(rc == 0);
        e->shutdown_sent = true;
        xlft_chan_close(e->c);
    }
}

/* Secondary: ACK what is held; keep only the latest if the queue is full. */
static void send_ack(struct end *e)
{
    struct xlft_msg m = { .type = XLFT_T_ACK };
    int rc;

    if (!e->ack_pending)
        return;
    m.u.ack = (struct xlft_ack){ e->held, e->held, e->echo, now_ns() };
    rc = xlft_chan_send(e->c, &m);
    check_bounds(e);
    if (rc == -EAGAIN)
        return;
    CHECK(rc == 0);
    e->ack_pending = false;
}

/*
 * Drop every packet that reaches 'fd' from now on, before TCP sees it,
 * as a firewall dropping the peer's packets would: no data, no ACK, no
 * FIN, no reset get through.
 */
static void go_deaf(int fd)
{
    struct sock_filter none = BPF_STMT(BPF_RET | BPF_K, 0);
    struct sock_fprog prog = { .len = 1, .filter = &none };

    CHECK(setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
                     sizeof(prog)) == 0);
}

static void on_up(struct xlft_chan *c, void *arg)
{
    struct end *e = arg;

    (void)c;
    e->up = true;
    if (e->deaf)
        go_deaf(e->cfg.fd);
    if (e == pri && e->log)
        pump(e);
    if (ups_wanted && --ups_wanted == 0)
        event_base_loopbreak(base);
}

static void on_writable(struct xlft_chan *c, void *arg)
{
    struct end *e = arg;

    (void)c;
    check_bounds(e);
    if (e == pri)
        pump(e);
    else
        send_ack(e);
}

static void on_msg(struct xlft_chan *c, const struct xlft_msg *m, void *arg)
{
    struct end *e = arg;

    check_bounds(e);
    if (e == sec && m->type == XLFT_T_LOG) {
        uint32_t n = 0;
        int k;

        /* Contiguous, whole, valid records, in order. */
        CHECK(m->u.log.first_seq == e->held + 1);
        k = ft_log_check(&e->codec, m->u.log.recs, m->u.log.len, &n);
        CHECK(k == (int)m->u.log.len && n == m->u.log.count);
        e->held += n;
        e->got++;
        e->echo = m->u.log.sent_ns;
        e->ack_pending = true;
        send_ack(e);
        if (e->pause_once) {
            e->pause_once = false;
            e->paused = true;
            xlft_chan_pause(c, true);
        }
    } else if (e == sec && m->type == XLFT_T_SHUTDOWN) {
        CHECK(m->u.shutdown_seq == e->held);
    } else if (e == pri && !e->log && m->type == XLFT_T_ACK) {
        CHECK(m->u.ack.recv_ns == ++e->acks);
        if (e->acks == sec->acks)
            event_base_loopbreak(base);
    } else if (e == pri && m->type == XLFT_T_ACK) {
        CHECK(m->u.ack.acked >= e->acked);
        CHECK(m->u.ack.acked <= e->next);
        CHECK(m->u.ack.echo_ns <= now_ns());
        e->acked = m->u.ack.acked;
        pump(e);
    } else {
        die("%s: unexpected %s frame", e->name, xlft_type_name(m->type));
    }
}

static void deadline_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    die("%s: not finished within %d s", (const char *)arg, DEADLINE_S);
}

/* A connected pair of TCP sockets on 127.0.0.1: [0] connects. */
static void tcp_pair(int fds[2])
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t alen = sizeof(a);
    int l = socket(AF_INET, SOCK_STREAM, 0);

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(l >= 0);
    CHECK(bind(l, (struct sockaddr *)&a, sizeof(a)) == 0);
    CHECK(listen(l, 1) == 0);
    CHECK(getsockname(l, (struct sockaddr *)&a, &alen) == 0);
    fds[0] = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(fds[0] >= 0);
    CHECK(connect(fds[0], (struct sockaddr *)&a, sizeof(a)) == 0);
    fds[1] = accept(l, NULL, NULL);
    CHECK(fds[1] >= 0);
    close(l);
}

static void end_init(struct end *e, const char *name, int fd, bool primary,
                     const uint8_t *key, uint8_t enc)
{
    memset(e, 0, sizeof(*e));
    e->name = name;
    e->cfg = (struct xlft_chan_cfg){
        .base = base, .fd = fd, .peer = primary ? "secondary" : "primary",
        .session = {
            .key = key, .initiator = primary,
            .role = primary ? XLFT_ROLE_PRIMARY : XLFT_ROLE_SECONDARY,
            .enc = enc, .domid = primary ? 5 : 6,
            .counter = FT_COUNTER_STEPS, .cpu = FT_CPU_FTVM,
            .host = primary ? "hostA" : "hostB", .pair = "vm1",
        },
        .in_max = XLFT_FRAME_MAX, .out_max = XLFT_FRAME_MAX,
        .handshake_ms = handshake_ms,
        .on_up = on_up, .on_msg = on_msg, .on_writable = on_writable,
        .on_down = on_down, .log = log_cb, .arg = e,
    };
    ft_codec_init(&e->codec);
}

static void start(struct end *e)
{
    char msg[256];

    if (xlft_chan_new(&e->c, &e->cfg, msg, sizeof(msg)))
        die("%s: %s", e->name, msg);
}

/* Run the loop until 'downs' ends are down, within the deadline. */
static void run(const char *what, int downs)
{
    struct event *dl = evtimer_new(base, deadline_cb, (void *)what);
    struct timeval tv = { DEADLINE_S, 0 };

    downs_wanted = downs;
    CHECK(dl && evtimer_add(dl, &tv) == 0);
    CHECK(event_base_dispatch(base) >= 0);
    CHECK(downs_wanted == 0);
    event_free(dl);
}

/*
 * Every channel's socket has TCP keepalive and a user timeout set, so
 * that a peer gone silent (its host dead, its packets dropped, its FIN
 * lost) is noticed within ~10 s even when no frame flows.
 */
static void check_keepalive(const char *name, int fd)
{
    int on = 0, idle = 0, intvl = 0, cnt = 0;
    unsigned int ut = 0;
    socklen_t n = sizeof(int);

    CHECK(getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, &n) == 0);
    CHECK(getsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, &n) == 0);
    CHECK(getsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, &n) == 0);
    CHECK(getsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, &n) == 0);
    CHECK(getsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ut, &n) == 0);
    if (!on || idle <= 0 || intvl <= 0 || cnt <= 0 ||
        idle + intvl * cnt > 12 || !ut || ut > 12000)
        die("%s: keepalive %d, idle %d s, interval %d s, %d probes, user "
            "timeout %u ms: a silent peer is not noticed within ~10 s",
            name, on, idle, intvl, cnt, ut);
    printf("chan-loopback: %s: keepalive after %d s, %d probes %d s "
           "apart, user timeout %u ms\n", name, idle, cnt, intvl, ut);
}

/*
 * 'sizes' (a seed) makes LOG frames of random sizes, sent and read
 * through socket buffers of a few KiB (under the MSS of loopback, 64 KiB:
 * smaller ones stall Linux's TCP itself).
 */
static void stream(const char *what, uint8_t enc, const struct log *log,
                   bool pause, uint64_t sizes)
{
    struct end p, s;
    int fds[2], small = 16384;

    tcp_pair(fds);
    if (sizes) {
        CHECK(setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &small,
                         sizeof(small)) == 0);
        CHECK(setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &small,
                         sizeof(small)) == 0);
    }
    pri = &p;
    sec = &s;
    end_init(&p, "primary", fds[0], true, key_a, enc);
    end_init(&s, "secondary", fds[1], false, key_a, enc);
    p.log = log;
    p.sizes = sizes;
    s.pause_once = pause;
    start(&p);
    start(&s);
    check_keepalive("primary", fds[0]);
    check_keepalive("secondary", fds[1]);
    run(what, 2);
    if (p.err || s.err)
        die("%s: primary: %d %s; secondary: %d %s", what, p.err, p.why,
            s.err, s.why);
    CHECK(p.up && s.up && p.shutdown_sent);
    CHECK(s.held == log->n && p.acked == log->n);
    CHECK(s.got == p.frames);
    if (pause)
        CHECK(p.eagain > 0 && !s.paused);
    printf("chan-loopback: %s: %u records (%zu bytes) in %u LOG frames, "
           "%u full queues, all acked, orderly close\n", what, log->n,
           log->len, p.frames, p.eagain);
}

/*
 * A peer gone silent while no frame flows: once up, the primary hears
 * nothing more from the secondary (its packets dropped, its FIN lost).
 * TCP keepalive and the user timeout end the primary's channel within
 * ~10 s, with an error; the secondary's then ends on the reset that
 * follows.
 */
static void unheard_peer(void)
{
    struct end p, s;
    uint64_t t0, t_p, t_s;
    int fds[2];

    tcp_pair(fds);
    pri = NULL;             /* neither sends a frame */
    sec = NULL;
    end_init(&p, "primary", fds[0], true, key_a, XLFT_ENC_REQUIRED);
    end_init(&s, "secondary", fds[1], false, key_a, XLFT_ENC_REQUIRED);
    p.deaf = true;
    start(&p);
    start(&s);
    t0 = now_ns();
    run("peer unheard once up, no frame flowing", 2);
    t_p = p.down_ns - t0;
    t_s = s.down_ns - t0;
    if (!p.up || !s.up || !p.err || !s.err)
        die("peer unheard: up %d/%d, primary %d \"%s\", secondary %d "
            "\"%s\"", p.up, s.up, p.err, p.why, s.err, s.why);
    if (t_p > 15000000000ull)
        die("peer unheard: the primary's channel ended after %" PRIu64
            " ms, not within ~10 s", t_p / 1000000);
    printf("chan-loopback: peer unheard once up, no frame flowing: the "
           "primary's channel ended after %" PRIu64 " ms (\"%s\"), the "
           "secondary's after %" PRIu64 " ms (\"%s\")\n", t_p / 1000000,
           p.why, t_s / 1000000, s.why);
}

/*
 * Both ends up, then freed as they are, the connection still open: as
 * ftd frees the channel of a peer it has given up on.
 */
/* Run the loop until it is broken, within the deadline. */
static void run_until_break(const char *what)
{
    struct event *dl = evtimer_new(base, deadline_cb, (void *)what);
    struct timeval tv = { DEADLINE_S, 0 };

    CHECK(dl && evtimer_add(dl, &tv) == 0);
    CHECK(event_base_dispatch(base) >= 0);
    event_free(dl);
}

/*
 * ACKs from the secondary while the primary reads nothing, through
 * socket buffers of 16 KiB: the first ones go to the socket at once,
 * the one it takes in part or not at all is queued, the rest behind it
 * until the queue is full; once the primary reads again, every one
 * arrives, in order.
 */
static void acks_unread(void)
{
    struct xlft_msg m = { .type = XLFT_T_ACK };
    struct end p, s;
    size_t in, out;
    int fds[2], small = 16384, rc;

    tcp_pair(fds);
    CHECK(setsockopt(fds[0], SOL_SOCKET, SO_RCVBUF, &small,
                     sizeof(small)) == 0);
    CHECK(setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &small,
                     sizeof(small)) == 0);
    pri = &p;
    sec = &s;
    end_init(&p, "primary", fds[0], true, key_a, XLFT_ENC_REQUIRED);
    end_init(&s, "secondary", fds[1], false, key_a, XLFT_ENC_REQUIRED);
    start(&p);
    start(&s);
    ups_wanted = 2;
    run_until_break("ACKs unread: handshake");
    CHECK(p.up && s.up && !p.down && !s.down);
    xlft_chan_pause(p.c, true);
    do {
        m.u.ack = (struct xlft_ack){ 0, 0, 0, s.acks + 1ull };
        rc = xlft_chan_send(s.c, &m);
        if (!rc)
            s.acks++;
    } while (!rc);
    CHECK(rc == -EAGAIN);
    xlft_chan_buffered(s.c, &in, &out);
    CHECK(out > 0 && out <= s.cfg.out_max);
    xlft_chan_pause(p.c, false);
    run_until_break("ACKs unread");
    CHECK(p.acks == s.acks && !p.down && !s.down);
    xlft_chan_free(p.c);
    xlft_chan_free(s.c);
    printf("chan-loopback: ACKs unread: %u sent, %zu bytes of them queued "
           "at the most, all taken in order\n", s.acks, out);
}

static void freed_while_up(void)
{
    struct event *dl = evtimer_new(base, deadline_cb, "freed while up");
    struct timeval tv = { DEADLINE_S, 0 };
    struct end p, s;
    int fds[2];

    tcp_pair(fds);
    pri = NULL;
    sec = NULL;
    end_init(&p, "primary", fds[0], true, key_a, XLFT_ENC_REQUIRED);
    end_init(&s, "secondary", fds[1], false, key_a, XLFT_ENC_REQUIRED);
    start(&p);
    start(&s);
    ups_wanted = 2;
    CHECK(dl && evtimer_add(dl, &tv) == 0);
    CHECK(event_base_dispatch(base) >= 0);
    event_free(dl);
    CHECK(p.up && s.up && !p.down && !s.down);
    xlft_chan_free(p.c);
    xlft_chan_free(s.c);
    printf("chan-loopback: both ends freed while up: nothing used after "
           "its free\n");
}

static void wrong_key(void)
{
    struct end p, s;
    int fds[2];

    tcp_pair(fds);
    pri = &p;
    sec = &s;
    end_init(&p, "primary", fds[0], true, key_a, XLFT_ENC_REQUIRED);
    end_init(&s, "secondary", fds[1], false, key_b, XLFT_ENC_REQUIRED);
    start(&p);
    start(&s);
    run("wrong key", 2);
    CHECK(!p.up && !s.up);
    CHECK(p.err == -EACCES && s.err == -ECONNABORTED);
    CHECK(strstr(p.logged, "domid 5, peer secondary: peer has a different "
                           "key (the key confirmation of domid 6"));
    CHECK(strstr(s.logged, "different key"));
    printf("chan-loopback: wrong key: refused; primary logged \"%s\"; "
           "secondary logged \"%s\"\n", p.logged, s.logged);
}

/*
 * A secondary channel fed 'len' raw bytes by a hand-written peer, which
 * then closes its side if 'hangup'.  Expect 'err' and 'what' in the log
 * line, and, if 'code', an ERROR frame with that code back.
 */
static void raw_peer(const char *name, const uint8_t *bytes, size_t len,
                     bool hangup, int err, const char *what, uint32_t code)
{
    uint8_t back[1024];
    struct end s;
    struct pollfd pfd;
    ssize_t n;
    size_t got = 0;
    int fds[2];

    tcp_pair(fds);
    pri = NULL;
    sec = &s;
    end_init(&s, "secondary", fds[1], false, key_a, XLFT_ENC_REQUIRED);
    if (len)
        CHECK(write(fds[0], bytes, len) == (ssize_t)len);
    if (hangup)
        CHECK(shutdown(fds[0], SHUT_WR) == 0);
    start(&s);
    run(name, 1);
    if (s.err != err || !strstr(s.logged, what))
        die("%s: got %d \"%s\", want %d \"%s\"", name, s.err, s.logged,
            err, what);
    /* What the channel sent back, up to its close. */
    pfd = (struct pollfd){ .fd = fds[0], .events = POLLIN };
    while (got < sizeof(back) && poll(&pfd, 1, 5000) == 1) {
        n = read(fds[0], back + got, sizeof(back) - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fds[0]);
    if (code) {
        struct xlft_hdr h;
        struct xlft_msg m;
        char msg[256];

        CHECK(xlft_frame_get(back, got, &h, &m, msg, sizeof(msg)) ==
              (int)got);
        CHECK(m.type == XLFT_T_ERROR && m.u.error.code == code);
    } else {
        CHECK(got == 0);
    }
    printf("chan-loopback: %s: refused, \"%s\"\n", name, s.logged);
}

static size_t hello(uint8_t *out, uint8_t hdr_version, uint16_t lo,
                    uint16_t hi, uint8_t role)
{
    struct xlft_msg m = { .type = XLFT_T_HELLO };
    char msg[256];
    int n;

    m.u.hello = (struct xlft_hello){
        .ver_min = lo, .ver_max = hi, .role = role,
        .enc = XLFT_ENC_REQUIRED, .log_version = FT_LOG_VERSION,
        .domid = 3, .host = "hostA", .pair = "vm1",
        .counter = FT_COUNTER_STEPS, .cpu = FT_CPU_FTVM,
    };
    n = xlft_frame_put(&m, hdr_version, 0, out, 256, msg, sizeof(msg));
    CHECK(n > 0);
    return (size_t)n;
}

int main(void)
{
    struct log big, small;
    uint8_t b[256];
    size_t n;

    setvbuf(stdout, NULL, _IOLBF, 0);
    event_set_mem_functions(ev_malloc, ev_realloc, ev_free);
    base = event_base_new();
    CHECK(base);
    make_log(&big, STREAM_BYTES, 0x10ad);
    make_log(&small, 2u << 20, 0x5a11);

    stream("stream, encrypted, secondary held back", XLFT_ENC_REQUIRED,
           &big, true, 0);
    stream("stream, encryption disabled", XLFT_ENC_DISABLED, &small, false,
           0);
    stream("stream, frames of random sizes in pieces, held back",
           XLFT_ENC_REQUIRED, &big, true, 0x5eed);
    stream("stream, frames of random sizes in pieces, in clear",
           XLFT_ENC_DISABLED, &big, false, 0x5eed2);
    unheard_peer();
    acks_unread();
    freed_while_up();
    wrong_key();

    n = hello(b, 4, 3, 3, XLFT_ROLE_PRIMARY);
    raw_peer("version 4 frame", b, n, false, -EPROTONOSUPPORT,
             "is channel version 4", XLFT_ERR_VERSION);
    n = hello(b, 1, 3, 3, XLFT_ROLE_PRIMARY);
    b[XLFT_HDR_SIZE] = 4, b[XLFT_HDR_SIZE + 2] = 5;
    raw_peer("peer speaking versions 4-5", b, n, false, -EPROTONOSUPPORT,
             "no channel version in common", XLFT_ERR_VERSION);
    raw_peer("version 1 peer", b, old_hello(b, 1), false,
             -EPROTONOSUPPORT, "the peer speaks 1 to 1, this side 3 to 3 "
             "(an ftd from before host identities: upgrade it)",
             XLFT_ERR_VERSION);
    raw_peer("version 2 peer", b, old_hello(b, 2), false,
             -EPROTONOSUPPORT, "the peer speaks 2 to 2, this side 3 to 3 "
             "(an ftd whose HELLO does not say what its log counts: "
             "upgrade it)", XLFT_ERR_VERSION);
    /* A primary whose log this secondary could not replay. */
    n = hello(b, 1, 3, 3, XLFT_ROLE_PRIMARY);
    b[XLFT_HDR_SIZE + 172] = FT_COUNTER_BRANCHES;
    b[XLFT_HDR_SIZE + 173] = FT_CPU_INTEL;
    raw_peer("a log of another counter and CPU", b, n, false,
             -ECONNREFUSED, "the primary's log counts branches on Intel, "
             "the secondary's replay steps on ftvm", XLFT_ERR_CONFIG);
    n = hello(b, 1, 3, 3, XLFT_ROLE_SECONDARY);
    raw_peer("two secondaries", b, n, false, -ECONNREFUSED,
             "both ends are secondary", XLFT_ERR_CONFIG);
    n = hello(b, 1, 3, 3, XLFT_ROLE_PRIMARY);
    b[XLFT_HDR_SIZE + 12 + 4] = 'B';
    raw_peer("a peer of this host's name", b, n, false, -ECONNREFUSED,
             "the peer is host hostB, as this host is", XLFT_ERR_CONFIG);
    n = hello(b, 1, 3, 3, XLFT_ROLE_PRIMARY);
    b[8] = b[9] = b[10] = 0xff;
    raw_peer("oversize frame", b, n, false, -EMSGSIZE, "over the limit",
             XLFT_ERR_PROTOCOL);
    n = hello(b, 1, 3, 3, XLFT_ROLE_PRIMARY);
    raw_peer("half a frame", b, n / 2, true, -ECONNRESET,
             "in the middle of a frame (97 bytes of it)", 0);
    handshake_ms = 200;
    raw_peer("silent peer", NULL, 0, false, -ETIMEDOUT,
             "no handshake within 200 ms", 0);

    free(big.bytes);
    free(big.off);
    free(small.bytes);
    free(small.off);
    event_base_free(base);
    printf("chan-loopback: all passed\n");
    return 0;
}
