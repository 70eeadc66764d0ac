// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_channel.c - throughput of the logging channel against plain TCP,
 * over loopback, in one run.
 *
 *   bench-channel [--mib N] [--rounds R] [--kv FILE] [--rounds-out FILE]
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
 * Where the time goes: each thread of each way adds up, from the first
 * frame to its end, the CPU time it spends sealing (EVP_EncryptUpdate),
 * opening (EVP_DecryptUpdate) and copying (memcpy, memmove, evbuffer_add
 * and evbuffer_remove) in calls on at least 4 KiB from the channel's
 * code, whose symbols this program is linked to wrap (-Wl,--wrap,
 * Makefile); its system time (the kernel: system calls, TCP over
 * loopback, the copies to and from the socket); the rest of its CPU
 * time (the event loop, framing: other), all per MB moved; and the
 * share of its wall time it did not run (idle: waiting for the other
 * side, or for a core).  The median over the rounds.  The thread whose
 * CPU time per MB is the highest is the one that sets the pace.
 * Beside it, AES-256-GCM alone on one thread, as OpenSSL runs it in this
 * process (AES-NI or not), once a round, and what it leaves the
 * encrypted channel at most ("enc max"): each byte costs each thread of
 * tcp c us of CPU per MB (their mean), and the channel's sender seals
 * it, its receiver opens it, g = 1e6 / gcm us per MB at least; whether
 * each thread has a core or the two share one, the channel then goes at
 * c / (c + g) of tcp at best.
 *
 * Last, the time from sending a LOG frame of one record to its ACK,
 * encrypted, one frame at a time, 2000 times: what the output gate of a
 * primary waits for at least, beside a bare round trip.
 *
 * The records come from hvm/core's encoder (tests/lib/records.c: every
 * kind, DMA data up to a page), a log of 32 MiB sent over and over with
 * its sequence numbers running on.
 *
 * --rounds-out writes each round's MB/s, "round tcp clear encrypted" a
 * line, for the plot of make bench.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <openssl/evp.h>

#include "ft_abi.h"
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
#define GCM_BYTES    (64u << 20)    /* sealed alone, once a round */

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

/* ---- where the time goes -------------------------------------------- */

enum phase { PH_SEAL, PH_OPEN, PH_COPY, PH_KERNEL, PH_OTHER, PH_CPU,
             PH_MAX };

static const char *const phase_names[PH_MAX] = {
    "seal", "open", "copy", "kernel", "other", "cpu",
};

/* One thread's CPU time per MB moved (us), and its wall time idle (%). */
struct phases {
    double us_mb[PH_MAX];
    double idle;
};

/* Calls on fewer bytes are left to "other": timing them costs more. */
#define TIMED_MIN    4096u

/* The calling thread's tally, while it counts. */
static __thread bool counting;
static __thread uint64_t spent[PH_COPY + 1];
static __thread uint64_t start_wall, start_cpu, start_sys;

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;

    CHECK(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_sys_ns(void)
{
    struct rusage ru;

    CHECK(getrusage(RUSAGE_THREAD, &ru) == 0);
    return (uint64_t)ru.ru_stime.tv_sec * 1000000000u +
           (uint64_t)ru.ru_stime.tv_usec * 1000u;
}

static void phase_start(void)
{
    memset(spent, 0, sizeof(spent));
    start_wall = now_ns();
    start_cpu = thread_cpu_ns();
    start_sys = thread_sys_ns();
    counting = true;
}

static uint64_t less(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

/* The thread's tally since phase_start, for 'bytes' moved. */
static void phase_stop(struct phases *p, uint64_t bytes)
{
    uint64_t wall = now_ns() - start_wall;
    uint64_t cpu = thread_cpu_ns() - start_cpu;
    uint64_t sys = thread_sys_ns() - start_sys;
    uint64_t ns[PH_MAX];

    counting = false;
    memcpy(ns, spent, sizeof(spent));
    /* System time is counted in ticks, CPU time exactly: keep sys <= cpu. */
    ns[PH_KERNEL] = sys < cpu ? sys : cpu;
    ns[PH_OTHER] = less(less(cpu - ns[PH_KERNEL], ns[PH_SEAL] +
                             ns[PH_OPEN]), ns[PH_COPY]);
    ns[PH_CPU] = cpu;
    for (int i = 0; i < PH_MAX; i++)
        p->us_mb[i] = (double)ns[i] / 1e3 / ((double)bytes / 1e6);
    p->idle = wall ? 100.0 * (double)less(wall, cpu) / (double)wall : 0;
}

/*
 * The wrapped call on 'n' bytes, its CPU time added to 'ph' while the
 * thread counts: wall time would count the moments another process has
 * the core, on a machine shared.
 */
#define TIMED(ph, n, type, call) \
    do { \
        uint64_t t0_; \
        type r_; \
        \
        if (!counting || (size_t)(n) < TIMED_MIN) \
            return call; \
        t0_ = thread_cpu_ns(); \
        r_ = call; \
        spent[ph] += thread_cpu_ns() - t0_; \
        return r_; \
    } while (0)

int __real_EVP_EncryptUpdate(EVP_CIPHER_CTX *ctx, unsigned char *out,
                             int *outl, const unsigned char *in, int inl);
int __real_EVP_DecryptUpdate(EVP_CIPHER_CTX *ctx, unsigned char *out,
                             int *outl, const unsigned char *in, int inl);
void *__real_memcpy(void *dst, const void *src, size_t n);
void *__real_memmove(void *dst, const void *src, size_t n);
int __real_evbuffer_add(struct evbuffer *b, const void *p, size_t n);
int __real_evbuffer_remove(struct evbuffer *b, void *p, size_t n);

int __wrap_EVP_EncryptUpdate(EVP_CIPHER_CTX *ctx, unsigned char *out,
                             int *outl, const unsigned char *in, int inl)
{
    TIMED(PH_SEAL, inl, int,
          __real_EVP_EncryptUpdate(ctx, out, outl, in, inl));
}

int __wrap_EVP_DecryptUpdate(EVP_CIPHER_CTX *ctx, unsigned char *out,
                             int *outl, const unsigned char *in, int inl)
{
    TIMED(PH_OPEN, inl, int,
          __real_EVP_DecryptUpdate(ctx, out, outl, in, inl));
}

void *__wrap_memcpy(void *dst, const void *src, size_t n)
{
    TIMED(PH_COPY, n, void *, __real_memcpy(dst, src, n));
}

void *__wrap_memmove(void *dst, const void *src, size_t n)
{
    TIMED(PH_COPY, n, void *, __real_memmove(dst, src, n));
}

int __wrap_evbuffer_add(struct evbuffer *b, const void *p, size_t n)
{
    TIMED(PH_COPY, n, int, __real_evbuffer_add(b, p, n));
}

int __wrap_evbuffer_remove(struct evbuffer *b, void *p, size_t n)
{
    TIMED(PH_COPY, n, int, __real_evbuffer_remove(b, p, n));
}

/*
 * AES-256-GCM alone over GCM_BYTES, 256 KiB at a time, in place; MB per
 * second of this thread's CPU time.
 */
static double run_gcm(void)
{
    static uint8_t buf[BATCH + 16];
    static const uint8_t iv[12];
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    uint64_t t0;
    int n;

    CHECK(ctx && EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, key,
                                    NULL) == 1);
    t0 = thread_cpu_ns();
    for (uint32_t done = 0; done < GCM_BYTES; done += BATCH) {
        CHECK(EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv) == 1);
        CHECK(EVP_EncryptUpdate(ctx, buf, &n, buf, BATCH) == 1);
        CHECK(EVP_EncryptFinal_ex(ctx, buf + BATCH, &n) == 1);
    }
    t0 = thread_cpu_ns() - t0;
    EVP_CIPHER_CTX_free(ctx);
    return (double)GCM_BYTES * 1e3 / (double)t0;
}

/* ---- plain TCP ------------------------------------------------------ */

struct tcp_run {
    int fd;
    uint64_t total;         /* bytes to move */
    uint64_t t0, t1;        /* first byte written, last byte read */
    struct phases ph;
};

static void *tcp_send(void *arg)
{
    struct tcp_run *r = arg;
    uint64_t sent = 0;
    uint32_t f = 0;

    phase_start();
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
    phase_stop(&r->ph, r->total);
    return NULL;
}

static void *tcp_recv(void *arg)
{
    struct tcp_run *r = arg;
    uint8_t *buf = malloc(QUEUE_MAX);
    uint64_t got = 0;

    CHECK(buf);
    phase_start();
    while (got < r->total) {
        ssize_t n = read(r->fd, buf, QUEUE_MAX);

        CHECK(n > 0);
        got += (uint64_t)n;
    }
    r->t1 = now_ns();
    phase_stop(&r->ph, r->total);
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

static double run_tcp(uint64_t total, struct phases ph[2])
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
    ph[0] = snd.ph;
    ph[1] = rcv.ph;
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
    struct phases ph;       /* from on_up to the end of the loop */
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
    phase_start();
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
    phase_stop(&e->ph, e->total);
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
                          uint64_t *rtt, struct phases ph[2])
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
                .counter = FT_COUNTER_STEPS, .cpu = FT_CPU_FTVM,
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
    if (ph) {
        ph[0] = p.ph;
        ph[1] = s.ph;
    }
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

/* The median of each thread's phases over the rounds, one line each. */
static void print_phases(const char *const names[3],
                         struct phases ph[][3][2], long rounds)
{
    static const char *const side[2] = { "sender", "receiver" };
    double v[ROUNDS_MAX];

    printf("   where the time goes: CPU us per MB moved, and %% of the "
           "wall time idle\n   (median of the rounds):\n   %-19s", "");
    for (int k = 0; k < PH_MAX; k++)
        printf(" %6s", phase_names[k]);
    printf(" %6s\n", "idle");
    for (int w = 0; w < 3; w++) {
        for (int t = 0; t < 2; t++) {
            printf("   %-10s %-8s", names[w], side[t]);
            for (int k = 0; k <= PH_MAX; k++) {
                for (long r = 0; r < rounds; r++)
                    v[r] = k < PH_MAX ? ph[r][w][t].us_mb[k] :
                           ph[r][w][t].idle;
                printf(" %6.1f", median(v, (int)rounds));
            }
            printf("\n");
        }
    }
}

/*
 * Whether tcp's two threads had a core each: its sender, which does the
 * loopback's receive work as well, then never waits and sets the pace,
 * as the channel's senders do.  Otherwise the cores were shared with
 * other work, and each way goes by the CPU per MB of its two threads
 * together: the ratios then move with the load of the machine.
 */
static void print_pace(struct phases ph[][3][2], long rounds)
{
    double v[ROUNDS_MAX], idle[2];

    for (int t = 0; t < 2; t++) {
        for (long r = 0; r < rounds; r++)
            v[r] = ph[r][0][t].idle;
        idle[t] = median(v, (int)rounds);
    }
    if (idle[0] < 25)
        printf("   tcp's sender idle %.0f%%: the threads had a core each, "
               "the senders set the pace\n", idle[0]);
    else
        printf("   tcp's sender idle %.0f%%, its receiver %.0f%%: the cores "
               "were shared with other\n   work, each way goes by the CPU "
               "per MB of its two threads together\n", idle[0], idle[1]);
}

int main(int argc, char **argv)
{
    static const char *const names[3] = { "tcp", "clear", "encrypted" };
    static struct phases ph[ROUNDS_MAX][3][2];
    double mb[3][ROUNDS_MAX], ratio[2][ROUNDS_MAX], med[3], enc, clr;
    double gcm[ROUNDS_MAX], cap[ROUNDS_MAX], gcm_med, cap_med, tcp_cpu;
    static uint64_t rtt[PINGS];
    double ack50, ack99;
    const char *kv = NULL, *rounds_out = NULL;
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
        else if (!strcmp(argv[i], "--rounds-out") && i + 1 < argc)
            rounds_out = argv[++i];
        else
            die("usage: bench-channel [--mib N] [--rounds R] [--kv FILE] "
                "[--rounds-out FILE]");
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    make_log();
    total = stream_bytes((uint64_t)mib << 20);
    printf("channel: %.0f MB of log records (%u LOG frames of up to "
           "%u KiB a cycle) each way, %ld rounds, over loopback\n",
           (double)total / 1e6, lg.nframes, BATCH >> 10, rounds);
    printf("   %6s %7s %7s %7s %7s %9s %7s %7s\n", "MB/s", names[0],
           names[1], "encrypt", "gcm", "clear/tcp", "enc/tcp", "enc max");
    for (long r = 0; r < rounds; r++) {
        mb[0][r] = run_tcp(total, ph[r][0]);
        mb[1][r] = run_channel(total, XLFT_ENC_DISABLED, 0, NULL,
                               ph[r][1]);
        mb[2][r] = run_channel(total, XLFT_ENC_REQUIRED, 0, NULL,
                               ph[r][2]);
        gcm[r] = run_gcm();
        tcp_cpu = (ph[r][0][0].us_mb[PH_CPU] +
                   ph[r][0][1].us_mb[PH_CPU]) / 2;
        ratio[0][r] = mb[2][r] / mb[0][r];
        ratio[1][r] = mb[1][r] / mb[0][r];
        cap[r] = tcp_cpu / (tcp_cpu + 1e6 / gcm[r]);
        printf("   %6ld %7.0f %7.0f %7.0f %7.0f %9.3f %7.3f %7.3f\n",
               r + 1, mb[0][r], mb[1][r], mb[2][r], gcm[r], ratio[1][r],
               ratio[0][r], cap[r]);
    }
    if (rounds_out) {
        f = fopen(rounds_out, "w");
        if (!f)
            die("%s: %s", rounds_out, strerror(errno));
        for (long r = 0; r < rounds; r++)
            fprintf(f, "%ld %.0f %.0f %.0f\n", r + 1, mb[0][r], mb[1][r],
                    mb[2][r]);
        if (fclose(f))
            die("%s: %s", rounds_out, strerror(errno));
    }
    for (int w = 0; w < 3; w++)
        med[w] = median(mb[w], (int)rounds);
    enc = median(ratio[0], (int)rounds);
    clr = median(ratio[1], (int)rounds);
    gcm_med = median(gcm, (int)rounds);
    cap_med = median(cap, (int)rounds);
    printf("   %6s %7.0f %7.0f %7.0f %7.0f %9.3f %7.3f %7.3f\n", "median",
           med[0], med[1], med[2], gcm_med, clr, enc, cap_med);
    printf("   encrypted / tcp: %.3f (goal >= 0.50: %s; at most %.3f)\n",
           enc, enc >= 0.50 ? "met" : "MISSED", cap_med);
    printf("   clear / tcp:     %.3f (goal >= 0.90: %s)\n", clr,
           clr >= 0.90 ? "met" : "MISSED");
    printf("   gcm: AES-256-GCM alone, OpenSSL EVP, %u KiB at a time, per "
           "second of CPU\n", BATCH >> 10);
    print_phases(names, ph, rounds);
    print_pace(ph, rounds);
    run_channel(0, XLFT_ENC_REQUIRED, PINGS, rtt, NULL);
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
        fprintf(f, "channel_gcm_mb_s %.0f\nchannel_encrypted_max_vs_tcp "
                "%.3f\n", gcm_med, cap_med);
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
