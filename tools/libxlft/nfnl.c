// SPDX-License-Identifier: GPL-2.0-only
/*
 * nfnl.c - netfilter netlink messages of the network gate (xlft_nfnl.h).
 * Plain netlink, written and read by hand: a few fixed messages do not
 * need a library, and every byte read is checked here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nf_tables_compat.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/netfilter/xt_NFQUEUE.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_physdev.h>
#include <linux/netlink.h>

#include "xlft_nfnl.h"

/* Where the gate's chain sits: before the bridge's own filter chains. */
#define GATE_PRIORITY (-300)
#define GATE_CHAIN "tx"
/* The NFQUEUE target revision with flags (bypass left clear). */
#define NFQUEUE_REV 3

/* --- building ----------------------------------------------------- */

struct nlb {
    unsigned char *buf;
    size_t len;
    bool overflow;
};

static void *nlb_room(struct nlb *b, size_t len)
{
    size_t alen = NLMSG_ALIGN(len);
    void *p;

    if (b->overflow || b->len + alen > XLFT_NFNL_BUF) {
        b->overflow = true;
        return NULL;
    }
    p = b->buf + b->len;
    memset(p, 0, alen);
    b->len += alen;
    return p;
}

/* Start a message: returns its offset, finished by msg_end. */
static size_t msg_start(struct nlb *b, uint16_t type, uint16_t flags,
                        uint32_t seq, uint8_t family, uint16_t res_id)
{
    size_t off = b->len;
    struct nlmsghdr *nlh = nlb_room(b, sizeof(*nlh));
    struct nfgenmsg *nfg = nlb_room(b, sizeof(*nfg));

    if (!nlh || !nfg)
        return off;
    nlh->nlmsg_type = type;
    nlh->nlmsg_flags = NLM_F_REQUEST | flags;
    nlh->nlmsg_seq = seq;
    nfg->nfgen_family = family;
    nfg->version = NFNETLINK_V0;
    nfg->res_id = htons(res_id);
    return off;
}

static void msg_end(struct nlb *b, size_t off)
{
    if (!b->overflow)
        ((struct nlmsghdr *)(b->buf + off))->nlmsg_len = b->len - off;
}

static void attr_put(struct nlb *b, uint16_t type, const void *data,
                     size_t len)
{
    struct nlattr *a = nlb_room(b, NLA_HDRLEN + len);

    if (!a)
        return;
    a->nla_type = type;
    a->nla_len = NLA_HDRLEN + len;
    if (len)
        memcpy((unsigned char *)a + NLA_HDRLEN, data, len);
}

static void attr_be32(struct nlb *b, uint16_t type, uint32_t v)
{
    v = htonl(v);
    attr_put(b, type, &v, sizeof(v));
}

static void attr_str(struct nlb *b, uint16_t type, const char *s)
{
    attr_put(b, type, s, strlen(s) + 1);
}

static size_t nest_start(struct nlb *b, uint16_t type)
{
    size_t off = b->len;

    attr_put(b, type | NLA_F_NESTED, NULL, 0);
    return off;
}

static void nest_end(struct nlb *b, size_t off)
{
    if (!b->overflow)
        ((struct nlattr *)(b->buf + off))->nla_len = b->len - off;
}

static size_t nlb_done(const struct nlb *b)
{
    return b->overflow ? 0 : b->len;
}

#define QUEUE_MSG(m) ((NFNL_SUBSYS_QUEUE << 8) | (m))
#define NFT_MSG(m) ((NFNL_SUBSYS_NFTABLES << 8) | (m))

size_t xlft_nfnl_queue_config(void *buf, uint16_t queue, uint32_t maxlen,
                              uint32_t seq, unsigned *nmsg)
{
    struct nlb b = { buf, 0, false };
    struct nfqnl_msg_config_cmd cmd = { .command = NFQNL_CFG_CMD_BIND };
    struct nfqnl_msg_config_params params = {
        .copy_range = htonl(0),
        .copy_mode = NFQNL_COPY_META,
    };
    size_t m;

    /* Bound first: the parameters apply to an existing instance. */
    m = msg_start(&b, QUEUE_MSG(NFQNL_MSG_CONFIG), NLM_F_ACK, seq,
                  AF_UNSPEC, queue);
    attr_put(&b, NFQA_CFG_CMD, &cmd, sizeof(cmd));
    msg_end(&b, m);
    m = msg_start(&b, QUEUE_MSG(NFQNL_MSG_CONFIG), NLM_F_ACK, seq + 1,
                  AF_UNSPEC, queue);
    attr_put(&b, NFQA_CFG_PARAMS, &params, sizeof(params));
    attr_be32(&b, NFQA_CFG_QUEUE_MAXLEN, maxlen);
    /*
     * Fail-open cleared: a full queue drops rather than lets an output
     * out before its record is acknowledged.  GSO: packets are queued
     * whole; we never read their bytes.
     */
    attr_be32(&b, NFQA_CFG_MASK, NFQA_CFG_F_FAIL_OPEN | NFQA_CFG_F_GSO);
    attr_be32(&b, NFQA_CFG_FLAGS, NFQA_CFG_F_GSO);
    msg_end(&b, m);
    *nmsg = 2;
    return nlb_done(&b);
}

static size_t verdict(void *buf, uint16_t type, uint16_t queue,
                      uint32_t verdict, uint32_t id, uint32_t seq)
{
    struct nlb b = { buf, 0, false };
    struct nfqnl_msg_verdict_hdr vh = {
        .verdict = htonl(verdict),
        .id = htonl(id),
    };
    size_t m = msg_start(&b, QUEUE_MSG(type), 0, seq, AF_UNSPEC, queue);

    attr_put(&b, NFQA_VERDICT_HDR, &vh, sizeof(vh));
    msg_end(&b, m);
    return nlb_done(&b);
}

size_t xlft_nfnl_verdict_batch(void *buf, uint16_t queue, uint32_t last,
                               uint32_t seq)
{
    return verdict(buf, NFQNL_MSG_VERDICT_BATCH, queue, NF_ACCEPT, last,
                   seq);
}

size_t xlft_nfnl_verdict_drop(void *buf, uint16_t queue, uint32_t id,
                              uint32_t seq)
{
    return verdict(buf, NFQNL_MSG_VERDICT, queue, NF_DROP, id, seq);
}

static void batch_edge(struct nlb *b, uint16_t type, uint32_t seq)
{
    size_t m = msg_start(b, type, 0, seq, AF_UNSPEC, NFNL_SUBSYS_NFTABLES);

    msg_end(b, m);
}

/* Table 'name' exists, then does not: removes it whether it was there. */
static void table_delete(struct nlb *b, uint8_t family, const char *name,
                         uint32_t *seq)
{
    size_t m = msg_start(b, NFT_MSG(NFT_MSG_NEWTABLE),
                         NLM_F_CREATE | NLM_F_ACK, (*seq)++, family, 0);

    attr_str(b, NFTA_TABLE_NAME, name);
    msg_end(b, m);
    m = msg_start(b, NFT_MSG(NFT_MSG_DELTABLE), NLM_F_ACK, (*seq)++,
                  family, 0);
    attr_str(b, NFTA_TABLE_NAME, name);
    msg_end(b, m);
}

static void expr_start(struct nlb *b, const char *name, size_t *elem,
                       size_t *data)
{
    *elem = nest_start(b, NFTA_LIST_ELEM);
    attr_str(b, NFTA_EXPR_NAME, name);
    *data = nest_start(b, NFTA_EXPR_DATA);
}

static void expr_end(struct nlb *b, size_t elem, size_t data)
{
    nest_end(b, data);
    nest_end(b, elem);
}

/* One family's table, chain and rule. */
static void gate_table(struct nlb *b, uint8_t family, const char *table,
                       const char *ifname, bool bridged,
                       const unsigned char *info_buf, size_t info_len,
                       uint32_t *seq)
{
    size_t m, n, e, d, v;

    table_delete(b, family, table, seq);
    m = msg_start(b, NFT_MSG(NFT_MSG_NEWTABLE), NLM_F_CREATE | NLM_F_ACK,
                  (*seq)++, family, 0);
    attr_str(b, NFTA_TABLE_NAME, table);
    msg_end(b, m);

    m = msg_start(b, NFT_MSG(NFT_MSG_NEWCHAIN), NLM_F_CREATE | NLM_F_ACK,
                  (*seq)++, family, 0);
    attr_str(b, NFTA_CHAIN_TABLE, table);
    attr_str(b, NFTA_CHAIN_NAME, GATE_CHAIN);
    n = nest_start(b, NFTA_CHAIN_HOOK);
    attr_be32(b, NFTA_HOOK_HOOKNUM, NF_INET_PRE_ROUTING);
    attr_be32(b, NFTA_HOOK_PRIORITY, (uint32_t)GATE_PRIORITY);
    nest_end(b, n);
    attr_be32(b, NFTA_CHAIN_POLICY, NF_ACCEPT);
    attr_str(b, NFTA_CHAIN_TYPE, "filter");
    msg_end(b, m);

    m = msg_start(b, NFT_MSG(NFT_MSG_NEWRULE),
                  NLM_F_CREATE | NLM_F_APPEND | NLM_F_ACK, (*seq)++,
                  family, 0);
    attr_str(b, NFTA_RULE_TABLE, table);
    attr_str(b, NFTA_RULE_CHAIN, GATE_CHAIN);
    n = nest_start(b, NFTA_RULE_EXPRESSIONS);
    if (bridged) {
        /*
         * br_netfilter: the input device is the bridge, the port is the
         * vif.  xtables' physdev match, as Xen's vif-bridge uses.
         */
        struct xt_physdev_info pi = { .bitmask = XT_PHYSDEV_OP_IN };
        unsigned char pi_buf[XT_ALIGN(sizeof(pi))] = { 0 };

        strcpy(pi.physindev, ifname);
        memset(pi.in_mask, 0xff, strlen(ifname) + 1);
        memcpy(pi_buf, &pi, sizeof(pi));
        expr_start(b, "match", &e, &d);
        attr_str(b, NFTA_MATCH_NAME, "physdev");
        attr_be32(b, NFTA_MATCH_REV, 0);
        attr_put(b, NFTA_MATCH_INFO, pi_buf, sizeof(pi_buf));
        expr_end(b, e, d);
    } else {
        expr_start(b, "meta", &e, &d);
        attr_be32(b, NFTA_META_DREG, NFT_REG_1);
        attr_be32(b, NFTA_META_KEY, NFT_META_IIFNAME);
        expr_end(b, e, d);
        expr_start(b, "cmp", &e, &d);
        attr_be32(b, NFTA_CMP_SREG, NFT_REG_1);
        attr_be32(b, NFTA_CMP_OP, NFT_CMP_EQ);
        v = nest_start(b, NFTA_CMP_DATA);
        attr_put(b, NFTA_DATA_VALUE, ifname, IFNAMSIZ);
        nest_end(b, v);
        expr_end(b, e, d);
    }
    /*
     * The xtables target through nft_compat rather than nft's own queue
     * expression: kernels built without nft_queue still have it.
     */
    expr_start(b, "target", &e, &d);
    attr_str(b, NFTA_TARGET_NAME, "NFQUEUE");
    attr_be32(b, NFTA_TARGET_REV, NFQUEUE_REV);
    attr_put(b, NFTA_TARGET_INFO, info_buf, info_len);
    expr_end(b, e, d);
    nest_end(b, n);
    msg_end(b, m);
}

size_t xlft_nfnl_table_install(void *buf, const char *vif, uint16_t queue,
                               bool bridged, uint32_t seq, unsigned *nmsg)
{
    struct nlb b = { buf, 0, false };
    char table[32], ifname[IFNAMSIZ] = { 0 };
    struct xt_NFQ_info_v3 info = { .queuenum = queue, .queues_total = 1 };
    unsigned char info_buf[XT_ALIGN(sizeof(info))] = { 0 };
    uint32_t first = seq;

    if (!vif || !*vif || strlen(vif) >= IFNAMSIZ)
        return 0;
    strcpy(ifname, vif);
    memcpy(info_buf, &info, sizeof(info));
    snprintf(table, sizeof(table), XLFT_NFNL_TABLE_PREFIX "%u", queue);

    /*
     * Families ip and ip6 rather than inet: nft_compat offers physdev
     * to neither inet nor bridge.
     */
    batch_edge(&b, NFNL_MSG_BATCH_BEGIN, seq++);
    gate_table(&b, NFPROTO_IPV4, table, ifname, bridged, info_buf,
               sizeof(info_buf), &seq);
    gate_table(&b, NFPROTO_IPV6, table, ifname, bridged, info_buf,
               sizeof(info_buf), &seq);
    batch_edge(&b, NFNL_MSG_BATCH_END, seq++);
    *nmsg = seq - first - 2;
    return nlb_done(&b);
}

size_t xlft_nfnl_table_remove(void *buf, uint8_t family, const char *name,
                              uint32_t seq, unsigned *nmsg)
{
    struct nlb b = { buf, 0, false };

    if (!name || !*name || strlen(name) >= NFT_TABLE_MAXNAMELEN)
        return 0;
    batch_edge(&b, NFNL_MSG_BATCH_BEGIN, seq++);
    table_delete(&b, family, name, &seq);
    batch_edge(&b, NFNL_MSG_BATCH_END, seq);
    *nmsg = 2;
    return nlb_done(&b);
}

size_t xlft_nfnl_table_dump(void *buf, uint32_t seq)
{
    struct nlb b = { buf, 0, false };
    size_t m = msg_start(&b, NFT_MSG(NFT_MSG_GETTABLE), NLM_F_DUMP, seq,
                         NFPROTO_UNSPEC, 0);

    msg_end(&b, m);
    return nlb_done(&b);
}

/* --- decoding ----------------------------------------------------- */

/*
 * The next message of a buffer: NULL at the end, *bad if what is left
 * is not a whole message.
 */
static const struct nlmsghdr *next_msg(const unsigned char *buf, size_t len,
                                       size_t *off, bool *bad)
{
    const struct nlmsghdr *nlh;
    size_t left = len - *off;

    if (left == 0)
        return NULL;
    nlh = (const void *)(buf + *off);
    if (left < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN ||
        nlh->nlmsg_len > left) {
        *bad = true;
        return NULL;
    }
    /* The last message of a datagram may lack its padding. */
    *off += NLMSG_ALIGN(nlh->nlmsg_len) <= left ?
            NLMSG_ALIGN(nlh->nlmsg_len) : left;
    return nlh;
}

/* An error message's code: 0 for an acknowledgement, -EBADMSG if short. */
static int error_code(const struct nlmsghdr *nlh)
{
    const struct nlmsgerr *e = NLMSG_DATA(nlh);

    if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(int)))
        return -EBADMSG;
    /* A kernel error is negative; anything else cannot be trusted. */
    if (e->error > 0 || e->error < -4095)
        return -EBADMSG;
    return e->error;
}

/*
 * Split the attributes after an nfgenmsg into tb[0..max] (unknown types
 * are skipped, as netlink allows new ones); -EBADMSG if they do not
 * tile the message exactly.
 */
static int parse_attrs(const struct nlmsghdr *nlh, const struct nlattr **tb,
                       unsigned max)
{
    const unsigned char *p, *end = (const unsigned char *)nlh +
                                   nlh->nlmsg_len;

    if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct nfgenmsg)))
        return -EBADMSG;
    memset(tb, 0, (max + 1) * sizeof(*tb));
    p = (const unsigned char *)NLMSG_DATA(nlh) +
        NLMSG_ALIGN(sizeof(struct nfgenmsg));
    while (p < end) {
        const struct nlattr *a = (const void *)p;
        size_t left = (size_t)(end - p);
        unsigned type;

        if (left < NLA_HDRLEN || a->nla_len < NLA_HDRLEN ||
            a->nla_len > left)
            return -EBADMSG;
        type = a->nla_type & NLA_TYPE_MASK;
        if (type <= max)
            tb[type] = a;
        p += (size_t)NLA_ALIGN(a->nla_len) <= left ?
             (size_t)NLA_ALIGN(a->nla_len) : left;
    }
    return 0;
}

static size_t attr_len(const struct nlattr *a)
{
    return a->nla_len - NLA_HDRLEN;
}

static const void *attr_data(const struct nlattr *a)
{
    return (const unsigned char *)a + NLA_HDRLEN;
}

static const struct nfgenmsg *nfgen(const struct nlmsghdr *nlh)
{
    return NLMSG_DATA(nlh);
}

int xlft_nfnl_decode_packets(const void *buf, size_t len, uint16_t queue,
                             xlft_nfnl_pkt_fn pkt, void *opaque, int *err)
{
    const struct nlmsghdr *nlh;
    size_t off = 0;
    bool bad = false;

    while ((nlh = next_msg(buf, len, &off, &bad))) {
        const struct nlattr *tb[NFQA_MAX + 1];
        const struct nfqnl_msg_packet_hdr *ph;
        int rc;

        if (nlh->nlmsg_type == NLMSG_NOOP)
            continue;
        if (nlh->nlmsg_type == NLMSG_ERROR) {
            rc = error_code(nlh);
            if (rc == -EBADMSG)
                return rc;
            if (rc && !*err)
                *err = rc;
            continue;
        }
        if (nlh->nlmsg_type != QUEUE_MSG(NFQNL_MSG_PACKET))
            return -EBADMSG;
        rc = parse_attrs(nlh, tb, NFQA_MAX);
        if (rc)
            return rc;
        if (ntohs(nfgen(nlh)->res_id) != queue || !tb[NFQA_PACKET_HDR] ||
            attr_len(tb[NFQA_PACKET_HDR]) < sizeof(*ph))
            return -EBADMSG;
        ph = attr_data(tb[NFQA_PACKET_HDR]);
        pkt(opaque, ntohl(ph->packet_id));
    }
    return bad ? -EBADMSG : 0;
}

int xlft_nfnl_decode_acks(const void *buf, size_t len, int *err)
{
    const struct nlmsghdr *nlh;
    size_t off = 0;
    bool bad = false;
    int n = 0;

    while ((nlh = next_msg(buf, len, &off, &bad))) {
        int rc;

        if (nlh->nlmsg_type != NLMSG_ERROR)
            return -EBADMSG;
        rc = error_code(nlh);
        if (rc == -EBADMSG)
            return rc;
        if (rc && !*err)
            *err = rc;
        n++;
    }
    return bad ? -EBADMSG : n;
}

int xlft_nfnl_decode_tables(const void *buf, size_t len,
                            xlft_nfnl_table_fn table, void *opaque)
{
    static const size_t plen = sizeof(XLFT_NFNL_TABLE_PREFIX) - 1;
    const struct nlmsghdr *nlh;
    size_t off = 0;
    bool bad = false;

    while ((nlh = next_msg(buf, len, &off, &bad))) {
        const struct nlattr *tb[NFTA_TABLE_MAX + 1];
        char name[NFT_TABLE_MAXNAMELEN];
        size_t nlen;
        int rc;

        if (nlh->nlmsg_type == NLMSG_DONE)
            return 1;
        if (nlh->nlmsg_type == NLMSG_ERROR) {
            rc = error_code(nlh);
            return rc ? rc : -EBADMSG;
        }
        if (nlh->nlmsg_type != NFT_MSG(NFT_MSG_NEWTABLE))
            return -EBADMSG;
        rc = parse_attrs(nlh, tb, NFTA_TABLE_MAX);
        if (rc)
            return rc;
        if (!tb[NFTA_TABLE_NAME])
            return -EBADMSG;
        /* A NUL-terminated name, NUL within the attribute. */
        nlen = strnlen(attr_data(tb[NFTA_TABLE_NAME]),
                       attr_len(tb[NFTA_TABLE_NAME]));
        if (nlen == attr_len(tb[NFTA_TABLE_NAME]) || nlen == 0 ||
            nlen >= sizeof(name))
            return -EBADMSG;
        memcpy(name, attr_data(tb[NFTA_TABLE_NAME]), nlen + 1);
        if (nlen <= plen || strncmp(name, XLFT_NFNL_TABLE_PREFIX, plen))
            continue;
        rc = table(opaque, nfgen(nlh)->nfgen_family, name);
        if (rc)
            return rc;
    }
    return bad ? -EBADMSG : 0;
}
