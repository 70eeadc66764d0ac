// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_channel.c - throughput of the logging channel against plain TCP,
 * over loopback, in one run.
 *
 *   bench-channel [--mib N] [--rounds R] [--kv FILE]
 *
 * Each of R rounds (default 7) streams N MiB (default 512) of log
 * records three ways, one after the other, each between a sending and a
 * receiving thread:
 *   tcp        blocking write() of the same LOG frame payloads on a
 *              plain TCP socket (TCP_NODELAY, as the channel sets),
 *              read() into a buffer as large as the channel's read-ahead;
 *   clear      two channel endpoints, each on its own thread and event
 *              base, encryption disabled (frames sequenced, not sealed);
 *   encrypted  the same with AES-256-GCM, as ftd runs it.
 * The channel's sender sends LOG frames of whole records up to 256 KiB
 * (as ftd's primary batches them) and the receiver ACKs each frame (as
 * ftd's secondary does), with the queue bounds ftd uses.  Time runs from
 * the first byte sent to the last byte received; the handshake is not
 * counted.  The figure of each way is the median over the rounds; the
 * ratios against tcp, the goals (>= 0.50 encrypted, >= 0.90 clear), are
 * the medians of each round's ratios: the three ways of a round run
 * within a second or two, under much the same load from the rest of the
 * machine, so that its speed cancels out.
 *
 * Last, the time from sending a LOG frame of one record to its ACK,
 * encrypted, one frame at a time, 2000 times: what the output gate of a
 * primary waits for at least, beside a bare round trip.
 *
 * The records come from hvm/core's encoder (tests/lib/records.c: every
 * kind, DMA data up to a page), a log of 32 MiB sent over and over with
 * its sequence numbers running on.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <event2/event.h>

#include "ft_log.h"
#include "records.h"
#include "xlft_channel.h"
#define TEST_NAME "bench-channel"
#include "testutil.h"

#define LOG_BYTES    (32u << 20)
#define DMA_MAX      4096u          /* a page: disk sectors, frames */
#define BATCH        (256u << 10)   /* LOG frame payload, as ftd */
#define QUEUE_MAX    (4u << 20)     /* in_max and out_max, as ftd */
#define DEADLINE_S   120
#define ROUNDS_MAX   25
#define PINGS        2000u

static const uint8_t key[XLFT_KEY_SIZE] = { 7, 7, 7, 7, 1, 2, 3, 4 };

/* The log, cut into LOG frame payloads of whole records. */
static struct {
    uint8_t *bytes;
    uint32_t *frame_off;    /* frame i: frame_off[i] .. frame_off[i + 1] */
    uint32_t *frame_nrec;
    uint32_t nframes;
    uint32_t first_len;     /* bytes of the first record */
} lg;

static void make_log(void)
{
    static uint8_t dma[DMA_MAX];
    struct ft_point pt = { 0, 0, 0 };
    struct ft_codec c;
    uint64_t seed = 0xbe4c;
    size_t len = 0, start = 0;
    uint32_t ncap = 1024, nrec = 0;

    lg.bytes = malloc(LOG_BYTES + FT_LOG_REC_MAX);
    lg.frame_off = malloc(ncap * sizeof(*lg.frame_off));
    lg.frame_nrec = malloc(ncap * sizeof(*lg.frame_nrec));
    CHECK(lg.bytes && lg.frame_off && lg.frame_nrec);
    ft_codec_init(&c);
    lg.frame_off[0] = 0;
    while (len < LOG_BYTES) {
        struct ft_log_rec r;
        size_t rlen;
        int k;

        random_record(&seed, &pt, &r, dma, DMA_MAX);
        k = ft_log_encode(&c, &r, lg.bytes + len);
        CHECK(k > 0);
        rlen = (size_t)k + (r.kind == FT_K_DMA ? r.u.dma.len : 0);
        if (r.kind == FT_K_DMA)
            memcpy(lg.bytes + len + k, r.u.dma.data, r.u.dma.len);
        ft_codec_advance(&c, &r);
        if (!len)
            lg.first_len = (uint32_t)rlen;
        /* This record would overflow the frame: close the frame first. */
        if (len + rlen - start > BATCH) {
            if (lg.nframes + 2 >= ncap) {
                ncap *= 2;
                lg.frame_off = realloc(lg.frame_off,
                                       ncap * sizeof(*lg.frame_off));
                lg.frame_nrec = realloc(lg.frame_nrec,
                                        ncap * sizeof(*lg.frame_nrec));
                CHECK(lg.frame_off && lg.frame_nrec);
            }
            lg.frame_nrec[lg.nframes] = nrec;
            lg.frame_off[++lg.nframes] = (uint32_t)len;
            start = len;
            nrec = 0;
        }
        len += rlen;
        nrec++;
    }
    lg.frame_nrec[lg.nframes] = nrec;
    lg.frame_off[++lg.nframes] = (uint32_t)len;
}

static uint32_t frame_len(uint32_t i)
{
    return lg.frame_off[i + 1] - lg.frame_off[i];
}

/* A connected pair of TCP sockets on 127.0.0.1: [0] connects. */
static void tcp_pair(int fds[2])
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t alen = sizeof(a);
    int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;

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
    for (int i = 0; i < 2; i++)
        CHECK(setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one,
                         sizeof(one)) == 0);
}

/* ---- plain TCP ------------------------------------------------------ */

struct tcp_run {
    int fd;
    uint64_t total;         /* bytes to move */
    uint64_t t0, t1;        /* first byte written, last byte read */
};

static void *tcp_send(void *arg)
{
    struct tcp_run *r = arg;
    uint64_t sent = 0;
    uint32_t f = 0;

    r->t0 = now_ns();
    while (sent < r->total) {
        const uint8_t *p = lg.bytes + lg.frame_off[f];
        size_t left = frame_len(f);

        while (left) {
            ssize_t n = write(r->fd, p, left);

            CHECK(n > 0);
            p += n;
            left -= (size_t)n;
        }
        sent += frame_len(f);
        f = (f + 1) % lg.nframes;
    }
    return NULL;
}

static void *tcp_recv(void *arg)
{
    struct tcp_run *r = arg;
    uint8_t *buf = malloc(QUEUE_MAX);
    uint64_t got = 0;

    CHECK(buf);
    while (got < r->total) {
        ssize_t n = read(r->fd, buf, QUEUE_MAX);

        CHECK(n > 0);
        got += (uint64_t)n;
    }
    r->t1 = now_ns();
    free(buf);
    return NULL;
}

/* Bytes a frame sequence of at least 'want' bytes carries. */
static uint64_t stream_bytes(uint64_t want)
{
    uint64_t total = 0;

    for (uint32_t f = 0; total < want; f = (f + 1) % lg.nframes)
        total += frame_len(f);
    return total;
}

static double run_tcp(uint64_t total)
{
    struct tcp_run snd, rcv;
    pthread_t ts, tr;
    int fds[2];

    tcp_pair(fds);
    snd = (struct tcp_run){ .fd = fds[0], .total = total };
    rcv = (struct tcp_run){ .fd = fds[1], .total = total };
    CHECK(pthread_create(&tr, NULL, tcp_recv, &rcv) == 0);
    CHECK(pthread_create(&ts, NULL, tcp_send, &snd) == 0);
    CHECK(pthread_join(ts, NULL) == 0);
    CHECK(pthread_join(tr, NULL) == 0);
    close(fds[0]);
    close(fds[1]);
    return (double)total * 1e3 / (double)(rcv.t1 - snd.t0);
}

/* ---- the channel ---------------------------------------------------- */

struct end {
    struct event_base *base;
    struct xlft_chan *c;
    struct xlft_chan_cfg cfg;
    uint64_t total;         /* payload bytes to move */
    uint64_t moved;         /* sent (primary) or received (secondary) */
    uint64_t seq;           /* records sent or held */
    uint32_t frame;         /* next frame of the log (primary) */
    uint64_t acked;         /* primary: ACKed; secondary: ACK sent */
    uint64_t echo;          /* secondary: sent_ns of the last frame */
    bool shutdown_sent;
    uint64_t t0, t1;
    int err;
    char why[256];
    /* Ping-pong: one LOG frame of one record in flight, then its ACK. */
    uint32_t npings, pings;
    uint64_t *rtt;          /* ns from sending each frame to its ACK */
};

static void ch_pump(struct end *e)
{
    while (e->moved < e->total && (!e->npings || e->acked == e->seq)) {
        struct xlft_msg m = { .type = XLFT_T_LOG };
        uint32_t f = e->frame;
        int rc;

        m.u.log = (struct xlft_log){
            .first_seq = e->seq + 1, .sent_ns = now_ns(),
            .count = lg.frame_nrec[f], .len = frame_len(f),
            .recs = lg.bytes + lg.frame_off[f],
        };
        if (e->npings) {
            m.u.log.count = 1;
            m.u.log.len = lg.first_len;
        }
        rc = xlft_chan_send(e->c, &m);
        if (rc == -EAGAIN)
            return;             /* on_writable resumes */
        CHECK(rc == 0);
        e->moved += m.u.log.len;
        e->seq += m.u.log.count;
        if (!e->npings)
            e->frame = (f + 1) % lg.nframes;
    }
    /* Closing with ACKs unread would reset the connection: wait. */
    if (e->acked == e->seq && !e->shutdown_sent) {
        struct xlft_msg m = { .type = XLFT_T_SHUTDOWN };
        int rc;

        m.u.shutdown_seq = e->seq;
        rc = xlft_chan_send(e->c, &m);
        if (rc == -EAGAIN)
            return;
        CHECK(rc == 0);
        e->shutdown_sent = true;
        xlft_chan_close(e->c);
    }
}

/* Secondary: ACK what is held; a full queue sends it later. */
static void ch_ack(struct end *e)
{
    struct xlft_msg a = { .type = XLFT_T_ACK };
    int rc;

    if (e->acked == e->seq)
        return;
    a.u.ack = (struct xlft_ack){ e->seq, e->seq, e->echo, now_ns() };
    rc = xlft_chan_send(e->c, &a);
    if (rc == -EAGAIN)
        return;
    CHECK(rc == 0);
    e->acked = e->seq;
}

static void ch_up(struct xlft_chan *c, void *arg)
{
    struct end *e = arg;

    (void)c;
    if (e->cfg.session.initiator) {
        e->t0 = now_ns();
        ch_pump(e);
    }
}

static void ch_writable(struct xlft_chan *c, void *arg)
{
    struct end *e = arg;

    (void)c;
    if (e->cfg.session.initiator)
        ch_pump(e);
    else
        ch_ack(e);
}

static void ch_msg(struct xlft_chan *c, const struct xlft_msg *m, void *arg)
{
    struct end *e = arg;

    (void)c;
    if (e->cfg.session.initiator) {
        CHECK(m->type == XLFT_T_ACK && m->u.ack.acked <= e->seq &&
              m->u.ack.acked >= e->acked);
        e->acked = m->u.ack.acked;
        if (e->npings && e->acked == e->seq) {
            CHECK(e->pings < e->npings);
            e->rtt[e->pings++] = now_ns() - m->u.ack.echo_ns;
        }
        if (e->npings || e->moved == e->total)
            ch_pump(e);
        return;
    }
    if (m->type == XLFT_T_SHUTDOWN) {
        CHECK(m->u.shutdown_seq == e->seq && e->moved == e->total);
        return;
    }
    CHECK(m->type == XLFT_T_LOG && m->u.log.first_seq == e->seq + 1);
    e->moved += m->u.log.len;
    e->seq += m->u.log.count;
    e->echo = m->u.log.sent_ns;
    if (e->moved == e->total)
        e->t1 = now_ns();
    ch_ack(e);
}

static void ch_down(struct xlft_chan *c, int err, const char *why,
                    void *arg)
{
    struct end *e = arg;

    e->err = err;
    snprintf(e->why, sizeof(e->why), "%s", why);
    xlft_chan_free(c);
    e->c = NULL;
    event_base_loopbreak(e->base);
}

static void deadline_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    die("a channel stream did not end within %d s", DEADLINE_S);
}

static void *ch_thread(void *arg)
{
    struct end *e = arg;
    struct timeval tv = { DEADLINE_S, 0 };
    struct event *dl;
    char msg[256];

    e->base = event_base_new();
    CHECK(e->base);
    e->cfg.base = e->base;
    dl = evtimer_new(e->base, deadline_cb, NULL);
    CHECK(dl && evtimer_add(dl, &tv) == 0);
    if (xlft_chan_new(&e->c, &e->cfg, msg, sizeof(msg)))
        die("channel: %s", msg);
    CHECK(event_base_dispatch(e->base) >= 0);
    event_free(dl);
    event_base_free(e->base);
    return NULL;
}

/*
 * Stream 'total' bytes through two channel endpoints; MB/s.  With
 * 'npings', 'total' is ignored: that many frames of one record each go
 * one at a time, each round trip into rtt[].
 */
static double run_channel(uint64_t total, uint8_t enc, uint32_t npings,
                          uint64_t *rtt)
{
    struct end p, s;
    pthread_t tp, ts;
    int fds[2];

    if (npings)
        total = (uint64_t)npings * lg.first_len;
    p = (struct end){ .total = total, .npings = npings, .rtt = rtt };
    s = (struct end){ .total = total };
    tcp_pair(fds);
    for (int i = 0; i < 2; i++) {
        struct end *e = i ? &s : &p;
        bool pri = !i;

        e->cfg = (struct xlft_chan_cfg){
            .fd = fds[i], .peer = pri ? "secondary" : "primary",
            .session = {
                .key = key, .initiator = pri,
                .role = pri ? XLFT_ROLE_PRIMARY : XLFT_ROLE_SECONDARY,
                .enc = enc, .domid = pri ? 1 : 2,
                .host = pri ? "hostA" : "hostB", .pair = "bench",
            },
            .in_max = QUEUE_MAX, .out_max = QUEUE_MAX,
            .on_up = ch_up, .on_msg = ch_msg, .on_writable = ch_writable,
            .on_down = ch_down, .arg = e,
        };
    }
    CHECK(pthread_create(&ts, NULL, ch_thread, &s) == 0);
    CHECK(pthread_create(&tp, NULL, ch_thread, &p) == 0);
    CHECK(pthread_join(tp, NULL) == 0);
    CHECK(pthread_join(ts, NULL) == 0);
    if (p.err || s.err)
        die("channel ended with an error: sender: %s; receiver: %s",
            p.why, s.why);
    CHECK(s.moved == total && s.t1 > p.t0 && p.pings == npings);
    return (double)total * 1e3 / (double)(s.t1 - p.t0);
}

/* ---- main ----------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* Microseconds at fraction q of the sorted v[n], nearest rank. */
static double pct_us(const uint64_t *v, uint32_t n, double q)
{
    uint32_t i = (uint32_t)(q * n + 0.999999);

    return (double)v[i ? i - 1 : 0] / 1e3;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static long arg_num(const char *opt, const char *s, long lo, long hi)
{
    char *end;
    long v = strtol(s, &end, 10);

    if (*end || v < lo || v > hi)
        die("%s wants a number from %ld to %ld, not '%s'", opt, lo, hi, s);
    return v;
}

int main(int argc, char **argv)
{
    static const char *const names[3] = { "tcp", "clear", "encrypted" };
    double mb[3][ROUNDS_MAX], ratio[2][ROUNDS_MAX], med[3], enc, clr;
    static uint64_t rtt[PINGS];
    double ack50, ack99;
    const char *kv = NULL;
    long mib = 512, rounds = 7;
    uint64_t total;
    FILE *f;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mib") && i + 1 < argc)
            mib = arg_num("--mib", argv[++i], 1, 65536);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = arg_num("--rounds", argv[++i], 1, ROUNDS_MAX);
        else if (!strcmp(argv[i], "--kv") && i + 1 < argc)
            kv = argv[++i];
        else
            die("usage: bench-channel [--mib N] [--rounds R] [--kv FILE]");
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    make_log();
    total = stream_bytes((uint64_t)mib << 20);
    printf("channel: %.0f MB of log records (%u LOG frames of up to "
           "%u KiB a cycle) each way, %ld rounds, over loopback\n",
           (double)total / 1e6, lg.nframes, BATCH >> 10, rounds);
    printf("   %6s %9s %9s %9s %11s %11s\n", "MB/s", names[0], names[1],
           names[2], "clear/tcp", "enc/tcp");
    for (long r = 0; r < rounds; r++) {
        mb[0][r] = run_tcp(total);
        mb[1][r] = run_channel(total, XLFT_ENC_DISABLED, 0, NULL);
        mb[2][r] = run_channel(total, XLFT_ENC_REQUIRED, 0, NULL);
        ratio[0][r] = mb[2][r] / mb[0][r];
        ratio[1][r] = mb[1][r] / mb[0][r];
        printf("   %6ld %9.0f %9.0f %9.0f %11.3f %11.3f\n", r + 1,
               mb[0][r], mb[1][r], mb[2][r], ratio[1][r], ratio[0][r]);
    }
    for (int w = 0; w < 3; w++)
        med[w] = median(mb[w], (int)rounds);
    enc = median(ratio[0], (int)rounds);
    clr = median(ratio[1], (int)rounds);
    printf("   %6s %9.0f %9.0f %9.0f %11.3f %11.3f\n", "median", med[0],
           med[1], med[2], clr, enc);
    printf("   encrypted / tcp: %.3f (goal >= 0.50: %s)\n", enc,
           enc >= 0.50 ? "met" : "MISSED");
    printf("   clear / tcp:     %.3f (goal >= 0.90: %s)\n", clr,
           clr >= 0.90 ? "met" : "MISSED");
    run_channel(0, XLFT_ENC_REQUIRED, PINGS, rtt);
    qsort(rtt, PINGS, sizeof(*rtt), cmp_u64);
    ack50 = pct_us(rtt, PINGS, 0.50);
    ack99 = pct_us(rtt, PINGS, 0.99);
    printf("   a LOG frame of one record to its ACK, encrypted, one at a "
           "time:\n   p50 %.1f us, p99 %.1f us (%u round trips)\n", ack50,
           ack99, PINGS);
    if (kv) {
        f = fopen(kv, "w");
        if (!f)
            die("%s: %s", kv, strerror(errno));
        fprintf(f, "channel_tcp_mb_s %.0f\nchannel_clear_mb_s %.0f\n"
                "channel_encrypted_mb_s %.0f\n"
                "channel_encrypted_vs_tcp %.3f\nchannel_clear_vs_tcp %.3f\n",
                med[0], med[1], med[2], enc, clr);
        fprintf(f, "channel_ack_rtt_p50_us %.1f\nchannel_ack_rtt_p99_us "
                "%.1f\n", ack50, ack99);
        if (fclose(f))
            die("%s: %s", kv, strerror(errno));
    }
    free(lg.bytes);
    free(lg.frame_off);
    free(lg.frame_nrec);
    return 0;
}
