// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_netgate.c - the network gate's pure parts: the held-packet queue,
 * and the netlink messages it builds and decodes (tests/netgate runs the
 * gate on real packets).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/netlink.h>

#include "xlft_nfnl.h"
#include "xlft_pktq.h"
#include "unit.h"

static void test_pktq_order(void)
{
    struct xlft_pktq q;
    uint32_t last = 0;

    ASSERT_RC(xlft_pktq_init(&q, 0), -EINVAL);
    ASSERT_RC(xlft_pktq_init(&q, 4), 0);
    ASSERT_RC(xlft_pktq_push(&q, 10, 5), 0);
    ASSERT_RC(xlft_pktq_push(&q, 11, 5), 0);
    ASSERT_RC(xlft_pktq_push(&q, 11, 6), -EINVAL);     /* id repeated */
    ASSERT_RC(xlft_pktq_push(&q, 9, 6), -EINVAL);      /* id went back */
    ASSERT_RC(xlft_pktq_push(&q, 12, 3), 0);           /* tag raised to 5 */
    ASSERT_RC(xlft_pktq_push(&q, 13, 8), 0);
    ASSERT_RC(xlft_pktq_push(&q, 14, 9), -ENOBUFS);
    CU_ASSERT_EQUAL(xlft_pktq_upto(&q, 4, &last), 0);
    CU_ASSERT_EQUAL(last, 0);
    CU_ASSERT_EQUAL(xlft_pktq_upto(&q, 5, &last), 3);
    CU_ASSERT_EQUAL(last, 12);
    CU_ASSERT_EQUAL(xlft_pktq_count(&q), 4);            /* only counted */
    xlft_pktq_pop(&q, 3);
    CU_ASSERT_EQUAL(xlft_pktq_count(&q), 1);
    /* Around the end of the ring. */
    ASSERT_RC(xlft_pktq_push(&q, 14, 8), 0);
    ASSERT_RC(xlft_pktq_push(&q, 15, 9), 0);
    CU_ASSERT_EQUAL(xlft_pktq_upto(&q, 8, &last), 2);
    CU_ASSERT_EQUAL(last, 14);
    xlft_pktq_pop(&q, 99);
    CU_ASSERT_EQUAL(xlft_pktq_count(&q), 0);
    /* Around the end of the kernel's 32-bit ids. */
    ASSERT_RC(xlft_pktq_push(&q, UINT32_MAX, 9), 0);
    ASSERT_RC(xlft_pktq_push(&q, 0, 9), 0);
    ASSERT_RC(xlft_pktq_push(&q, 1, 10), 0);
    CU_ASSERT_EQUAL(xlft_pktq_upto(&q, 9, &last), 2);
    CU_ASSERT_EQUAL(last, 0);
    xlft_pktq_fini(&q);
}

/* --- hand-made kernel messages --------------------------------------- */

static unsigned char buf[8192];
static size_t len;

static void *put(const void *p, size_t n)
{
    void *at = buf + len;

    memcpy(at, p, n);
    len += NLMSG_ALIGN(n);
    return at;
}

static struct nlmsghdr *msg(uint16_t type, uint8_t family, uint16_t res)
{
    struct nlmsghdr h = { .nlmsg_type = type };
    struct nfgenmsg g = { .nfgen_family = family, .res_id = htons(res) };
    struct nlmsghdr *at = put(&h, sizeof(h));

    put(&g, sizeof(g));
    return at;
}

static void attr(uint16_t type, const void *p, size_t n)
{
    struct nlattr a = { .nla_len = NLA_HDRLEN + n, .nla_type = type };
    size_t at = len;

    put(&a, sizeof(a));
    memcpy(buf + len, p, n);
    len = at + NLA_ALIGN(NLA_HDRLEN + n);
}

static void end(struct nlmsghdr *h)
{
    h->nlmsg_len = (uint32_t)(buf + len - (unsigned char *)h);
}

static void packet(uint16_t queue, uint32_t id)
{
    struct nlmsghdr *h = msg((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET,
                             AF_UNSPEC, queue);
    struct nfqnl_msg_packet_hdr ph = { .packet_id = htonl(id) };
    uint32_t mark = 7;

    attr(NFQA_MARK, &mark, sizeof(mark));
    attr(NFQA_PACKET_HDR, &ph, sizeof(ph));
    attr(200, &mark, sizeof(mark));             /* unknown: skipped */
    end(h);
}

static void error_msg(int err)
{
    struct nlmsghdr *h = put(&(struct nlmsghdr){ .nlmsg_type =
                                                 NLMSG_ERROR },
                             sizeof(struct nlmsghdr));
    struct nlmsgerr e = { .error = err };

    put(&e, sizeof(e));
    end(h);
}

struct ids {
    uint32_t id[16];
    int n;
};

static void got_id(void *opaque, uint32_t id)
{
    struct ids *ids = opaque;

    if (ids->n < 16)
        ids->id[ids->n++] = id;
}

static void test_decode_packets(void)
{
    struct ids ids = { .n = 0 };
    int err = 0;

    len = 0;
    packet(7, 100);
    error_msg(0);                           /* an acknowledgement */
    error_msg(-ENOENT);                     /* a refused verdict */
    packet(7, 101);
    ASSERT_RC(xlft_nfnl_decode_packets(buf, len, 7, got_id, &ids, &err), 0);
    CU_ASSERT_EQUAL(ids.n, 2);
    CU_ASSERT(ids.id[0] == 100 && ids.id[1] == 101);
    CU_ASSERT_EQUAL(err, -ENOENT);

    /* Another queue's packet, a cut message, a missing header. */
    ids.n = 0;
    err = 0;
    ASSERT_RC(xlft_nfnl_decode_packets(buf, len, 8, got_id, &ids, &err),
              -EBADMSG);
    CU_ASSERT_EQUAL(ids.n, 0);
    ASSERT_RC(xlft_nfnl_decode_packets(buf, len - 1, 7, got_id, &ids, &err),
              -EBADMSG);
    CU_ASSERT_EQUAL(ids.n, 1);
    len = 0;
    end(msg((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_UNSPEC, 7));
    ASSERT_RC(xlft_nfnl_decode_packets(buf, len, 7, got_id, &ids, &err),
              -EBADMSG);
    /* An attribute running past its message. */
    len = 0;
    packet(7, 5);
    ((struct nlattr *)(buf + NLMSG_HDRLEN + 4))->nla_len = 200;
    ASSERT_RC(xlft_nfnl_decode_packets(buf, len, 7, got_id, &ids, &err),
              -EBADMSG);
    /* Not a packet at all; an error code no kernel sends. */
    len = 0;
    end(msg((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_CONFIG, AF_UNSPEC, 7));
    ASSERT_RC(xlft_nfnl_decode_packets(buf, len, 7, got_id, &ids, &err),
              -EBADMSG);
    len = 0;
    error_msg(5);
    ASSERT_RC(xlft_nfnl_decode_packets(buf, len, 7, got_id, &ids, &err),
              -EBADMSG);
}

static void test_decode_acks(void)
{
    int err = 0;

    len = 0;
    error_msg(0);
    error_msg(-EPERM);
    error_msg(-ENOENT);
    ASSERT_RC(xlft_nfnl_decode_acks(buf, len, &err), 3);
    CU_ASSERT_EQUAL(err, -EPERM);
    packet(1, 1);
    ASSERT_RC(xlft_nfnl_decode_acks(buf, len, &err), -EBADMSG);
}

struct names {
    char name[4][64];
    uint8_t family[4];
    int n;
};

static int got_table(void *opaque, uint8_t family, const char *name)
{
    struct names *t = opaque;

    if (t->n < 4) {
        strcpy(t->name[t->n], name);
        t->family[t->n++] = family;
    }
    return 0;
}

static void table(uint8_t family, const char *name, size_t n)
{
    struct nlmsghdr *h = msg((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWTABLE,
                             family, 0);

    attr(NFTA_TABLE_NAME, name, n);
    end(h);
}

static void test_decode_tables(void)
{
    struct names t = { .n = 0 };

    len = 0;
    table(NFPROTO_IPV4, "xenft_q3", 9);
    table(NFPROTO_IPV4, "filter", 7);
    table(NFPROTO_IPV6, "xenft_", 7);       /* the prefix alone */
    table(NFPROTO_IPV6, "xenft_q3", 9);
    ASSERT_RC(xlft_nfnl_decode_tables(buf, len, got_table, &t), 0);
    end(put(&(struct nlmsghdr){ .nlmsg_type = NLMSG_DONE },
            sizeof(struct nlmsghdr)));
    t.n = 0;
    ASSERT_RC(xlft_nfnl_decode_tables(buf, len, got_table, &t), 1);
    CU_ASSERT_EQUAL(t.n, 2);
    CU_ASSERT(t.family[0] == NFPROTO_IPV4 && t.family[1] == NFPROTO_IPV6);
    CU_ASSERT_STRING_EQUAL(t.name[1], "xenft_q3");

    len = 0;
    table(NFPROTO_IPV4, "xenft_q3", 8);     /* no terminating NUL */
    ASSERT_RC(xlft_nfnl_decode_tables(buf, len, got_table, &t), -EBADMSG);
    len = 0;
    error_msg(-EPERM);
    ASSERT_RC(xlft_nfnl_decode_tables(buf, len, got_table, &t), -EPERM);
}

/* What the gate sends: well-formed messages, acknowledged as counted. */
static void test_build(void)
{
    unsigned char out[XLFT_NFNL_BUF];
    unsigned nmsg = 0, acks = 0, n = 0;
    size_t off = 0, sz;

    sz = xlft_nfnl_queue_config(out, 7, 64, 1, &nmsg);
    CU_ASSERT(sz > 0);
    CU_ASSERT_EQUAL(nmsg, 2);

    CU_ASSERT_EQUAL(xlft_nfnl_table_install(out, "", 7, false, 1, &nmsg),
                    0);
    CU_ASSERT_EQUAL(xlft_nfnl_table_install(out, "a-name-too-long-1", 7,
                                            false, 1, &nmsg), 0);
    sz = xlft_nfnl_table_install(out, "vif3.0", 7, true, 1, &nmsg);
    CU_ASSERT_FATAL(sz > 0);
    while (off < sz) {
        const struct nlmsghdr *h = (const void *)(out + off);

        CU_ASSERT_FATAL(h->nlmsg_len >= NLMSG_HDRLEN &&
                        h->nlmsg_len <= sz - off);
        if (h->nlmsg_flags & NLM_F_ACK)
            acks++;
        n++;
        off += NLMSG_ALIGN(h->nlmsg_len);
    }
    CU_ASSERT_EQUAL(off, sz);
    CU_ASSERT_EQUAL(acks, nmsg);
    CU_ASSERT_EQUAL(n, nmsg + 2);           /* batch begin and end */
    CU_ASSERT(xlft_nfnl_verdict_batch(out, 7, 99, 5) > 0);
    CU_ASSERT(xlft_nfnl_table_dump(out, 1) > 0);
    CU_ASSERT_EQUAL(xlft_nfnl_table_remove(out, NFPROTO_IPV4, "", 1, &nmsg),
                    0);
}

void register_netgate_tests(void)
{
    CU_pSuite s = CU_add_suite("network gate", NULL, NULL);

    CU_add_test(s, "held packets: in order, bounded, ids checked",
                test_pktq_order);
    CU_add_test(s, "packet messages decoded, bad ones refused",
                test_decode_packets);
    CU_add_test(s, "acknowledgements decoded", test_decode_acks);
    CU_add_test(s, "table dump decoded, only our tables",
                test_decode_tables);
    CU_add_test(s, "requests well-formed", test_build);
}
