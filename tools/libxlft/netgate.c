// SPDX-License-Identifier: GPL-2.0-only
/*
 * netgate.c - the output rule for a vif through NFQUEUE (xlft_netgate.h).
 * Frames are taken from the queue socket, tagged and remembered by id;
 * acknowledgements turn into batch verdicts, which accept every frame
 * of the queue up to an id: in order, in one message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "xlft_netgate.h"
#include "xlft_nfnl.h"
#include "xlft_nlsock.h"
#include "xlft_pktq.h"

/* Datagrams read by one xlft_netgate_receive at most. */
#define RECV_BATCH 16
/* Socket buffer per frame the kernel may queue for us (metadata only). */
#define RCVBUF_PER_FRAME 512

struct xlft_netgate {
    int fd;
    uint16_t queue;
    uint32_t seq;
    bool open;
    bool rules;
    uint64_t acked;
    xlft_netgate_pos_fn position;
    void *opaque;
    struct xlft_pktq q;
    struct xlft_netgate_stats st;
    uint64_t tag;               /* for the frames being taken now */
    unsigned char *buf;
};

static int send_msg(struct xlft_netgate *g, const void *msg, size_t len)
{
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

    if (sendto(g->fd, msg, len, 0, (struct sockaddr *)&kernel,
               sizeof(kernel)) != (ssize_t)len)
        return -errno;
    return 0;
}

static int bind_queue(struct xlft_netgate *g, uint32_t maxlen)
{
    unsigned char buf[XLFT_NFNL_BUF];
    unsigned nmsg;
    size_t len = xlft_nfnl_queue_config(buf, g->queue, maxlen, g->seq,
                                        &nmsg);
    int size = (int)(maxlen * RCVBUF_PER_FRAME);

    g->seq += nmsg;
    /* Room for every frame the queue may hold: no overrun in normal use. */
    if (setsockopt(g->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size,
                   sizeof(size)) < 0)
        setsockopt(g->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    return xlft_nlsock_transact(g->fd, buf, len, nmsg);
}

/* Bridged frames reach the inet hooks only if br_netfilter says so. */
static bool bridge_calls_inet_hooks(void)
{
    static const char *const knobs[] = {
        "/proc/sys/net/bridge/bridge-nf-call-iptables",
        "/proc/sys/net/bridge/bridge-nf-call-ip6tables",
    };

    for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
        FILE *f = fopen(knobs[i], "re");
        int on = 0;

        if (!f)
            return false;
        if (fscanf(f, "%d", &on) != 1)
            on = 0;
        fclose(f);
        if (on != 1)
            return false;
    }
    return true;
}

int xlft_netgate_new(struct xlft_netgate **gp,
                     const struct xlft_netgate_config *cfg)
{
    uint32_t max = cfg->max_held ? cfg->max_held : 1024;
    struct xlft_netgate *g;
    int rc;

    *gp = NULL;
    if (!cfg->position || !cfg->vif)
        return -EINVAL;
    if (cfg->bridged && !bridge_calls_inet_hooks())
        return -ENOPROTOOPT;
    g = calloc(1, sizeof(*g));
    if (!g)
        return -ENOMEM;
    g->fd = -1;
    g->queue = cfg->queue;
    g->seq = 1;
    g->position = cfg->position;
    g->opaque = cfg->opaque;
    g->buf = malloc(XLFT_NFNL_RCVBUF);
    rc = g->buf ? xlft_pktq_init(&g->q, max) : -ENOMEM;
    if (rc)
        goto out;
    rc = xlft_nlsock_open();
    if (rc < 0)
        goto out;
    g->fd = rc;
    rc = bind_queue(g, max);
    if (rc)
        goto out;
    /* Bound first: a busy queue is someone else's, rules and all. */
    rc = xlft_netgate_rules_install(cfg->vif, g->queue, cfg->bridged);
    if (rc)
        goto out;
    g->rules = true;
    *gp = g;
    g = NULL;
out:
    xlft_netgate_free(g);
    return rc;
}

void xlft_netgate_free(struct xlft_netgate *g)
{
    if (!g)
        return;
    /* The rule first: with no queue behind it, it would drop frames. */
    if (g->rules)
        xlft_netgate_rules_remove(g->queue);
    /* Closing the socket releases the queue; the kernel drops the rest. */
    if (g->fd >= 0)
        close(g->fd);
    xlft_pktq_fini(&g->q);
    free(g->buf);
    free(g);
}

int xlft_netgate_fd(const struct xlft_netgate *g)
{
    return g->fd;
}

static int verdict_upto(struct xlft_netgate *g, uint64_t acked)
{
    unsigned char msg[XLFT_NFNL_BUF];
    uint32_t last = 0;
    size_t n = xlft_pktq_upto(&g->q, acked, &last);
    int rc;

    if (!n)
        return 0;
    rc = send_msg(g, msg, xlft_nfnl_verdict_batch(msg, g->queue, last,
                                                  g->seq++));
    if (rc)
        return rc;
    xlft_pktq_pop(&g->q, n);
    g->st.released += n;
    return (int)n;
}

static void take(void *opaque, uint32_t id)
{
    struct xlft_netgate *g = opaque;
    unsigned char msg[XLFT_NFNL_BUF];
    int rc;

    g->st.received++;
    if (xlft_pktq_push(&g->q, id, g->tag) == 0)
        return;
    /*
     * The kernel queued more than its maxlen, or ids went back: not a
     * packet the gate can order, so it is dropped.  Were even the drop
     * not sent, a later batch verdict could let it out: last_error.
     */
    g->st.dropped++;
    rc = send_msg(g, msg, xlft_nfnl_verdict_drop(msg, g->queue, id,
                                                 g->seq++));
    if (rc)
        g->st.last_error = rc;
}

int xlft_netgate_receive(struct xlft_netgate *g)
{
    uint64_t before = g->st.received;
    int rc = 0;

    for (int i = 0; i < RECV_BATCH; i++) {
        ssize_t n = recv(g->fd, g->buf, XLFT_NFNL_RCVBUF, MSG_DONTWAIT);
        int err = 0;

        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == ENOBUFS) {
                /* The kernel dropped frames it could not hand us. */
                g->st.overruns++;
                continue;
            }
            if (errno != EAGAIN)
                rc = -errno;
            break;
        }
        /* Read after the frames arrived: at least their records' seq. */
        g->tag = g->position(g->opaque);
        rc = xlft_nfnl_decode_packets(g->buf, (size_t)n, g->queue, take, g,
                                      &err);
        if (err)
            g->st.last_error = err;
        if (rc)
            break;
    }
    if (g->open) {
        int v = verdict_upto(g, UINT64_MAX);

        if (v < 0 && !rc)
            rc = v;
    }
    return rc ? rc : (int)(g->st.received - before);
}

int xlft_netgate_release(struct xlft_netgate *g, uint64_t acked)
{
    if (acked > g->acked)
        g->acked = acked;
    return verdict_upto(g, g->open ? UINT64_MAX : g->acked);
}

int xlft_netgate_open(struct xlft_netgate *g)
{
    g->open = true;
    return verdict_upto(g, UINT64_MAX);
}

void xlft_netgate_close(struct xlft_netgate *g)
{
    g->open = false;
}

bool xlft_netgate_is_open(const struct xlft_netgate *g)
{
    return g->open;
}

void xlft_netgate_get_stats(const struct xlft_netgate *g,
                            struct xlft_netgate_stats *st)
{
    *st = g->st;
    st->held = xlft_pktq_count(&g->q);
}
