// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_frame.c - logging channel frames (WIRE.md): every type survives a
 * round trip byte for byte, and every kind of bad frame is refused with
 * its own error and a message that names what is wrong.
 */
#include <errno.h>
#include <string.h>

#include "ft_abi.h"
#include "xlft_frame.h"
#include "unit.h"

#define V XLFT_WIRE_VERSION_MAX

static uint8_t buf[XLFT_FRAME_MAX];
static uint8_t buf2[XLFT_FRAME_MAX];
static char msg[256];

/* One valid message of each type, with 'recs'/'data' for LOG/STATE. */
static void sample(unsigned int type, struct xlft_msg *m,
                   const uint8_t *bytes, uint32_t len)
{
    memset(m, 0, sizeof(*m));
    m->type = (uint8_t)type;
    switch (type) {
    case XLFT_T_HELLO:
        m->u.hello = (struct xlft_hello){
            .ver_min = 1, .ver_max = 3, .role = XLFT_ROLE_PRIMARY,
            .enc = XLFT_ENC_REQUIRED, .log_version = 1, .domid = 7,
            .host = "hostA", .pair = "vm-1.x_y",
            .counter = FT_COUNTER_BRANCHES, .cpu = FT_CPU_INTEL,
        };
        memset(m->u.hello.nonce, 0xa5, XLFT_NONCE_SIZE);
        break;
    case XLFT_T_HELLO_ACK:
        m->u.hello_ack = (struct xlft_hello_ack){
            .version = 2, .role = XLFT_ROLE_SECONDARY,
            .enc = XLFT_ENC_DISABLED, .log_version = 1, .domid = 0xfffe,
            .counter = FT_COUNTER_STEPS, .cpu = FT_CPU_AMD,
            .host = "hostB", .pair = "vm-1.x_y",
        };
        memset(m->u.hello_ack.nonce, 0x3c, XLFT_NONCE_SIZE);
        memset(m->u.hello_ack.mac, 0xc3, XLFT_MAC_SIZE);
        break;
    case XLFT_T_LOG:
        m->u.log = (struct xlft_log){
            .first_seq = 1000, .sent_ns = 123456789, .count = 1,
            .len = len, .recs = bytes,
        };
        break;
    case XLFT_T_ACK:
        m->u.ack = (struct xlft_ack){ 99, 90, 123456789, 987654321 };
        break;
    case XLFT_T_HEARTBEAT:
        m->u.heartbeat = (struct xlft_heartbeat){ 5, 4 };
        break;
    case XLFT_T_STATE:
        m->u.state = (struct xlft_state){
            .offset = 4096, .total = 1ull << 33, .base_seq = 17,
            .len = len, .data = bytes,
        };
        break;
    case XLFT_T_GOLIVE:
        m->u.golive_seq = 5000;
        break;
    case XLFT_T_SHUTDOWN:
        m->u.shutdown_seq = UINT64_MAX;
        break;
    case XLFT_T_ERROR:
        xlft_msg_error(m, XLFT_ERR_CONFIG, "both ends are primary");
        break;
    }
}

static void test_round_trip(void)
{
    static const uint8_t bytes[] = { 0x13, 0x01, 0x03, 0x7f, 0x00 };

    for (unsigned int t = 1; t <= XLFT_T_MAX; t++) {
        struct xlft_msg m, d;
        struct xlft_hdr h;
        int n, k;

        sample(t, &m, bytes, sizeof(bytes));
        n = xlft_frame_put(&m, V, 77 + t, buf, sizeof(buf), msg,
                           sizeof(msg));
        CU_ASSERT_FATAL(n > 0);
        CU_ASSERT_EQUAL(n, (int)(XLFT_HDR_SIZE + xlft_payload_size(&m)));
        k = xlft_frame_get(buf, (size_t)n, &h, &d, msg, sizeof(msg));
        CU_ASSERT_EQUAL(k, n);
        CU_ASSERT_EQUAL(h.type, t);
        CU_ASSERT_EQUAL(h.seq, 77 + t);
        CU_ASSERT_EQUAL(h.flags, 0);
        CU_ASSERT_EQUAL(h.version, V);
        CU_ASSERT_EQUAL(h.len, (uint32_t)n - XLFT_HDR_SIZE);

        /* The same bytes again from what was decoded. */
        k = xlft_frame_put(&d, V, 77 + t, buf2, sizeof(buf2), msg,
                           sizeof(msg));
        CU_ASSERT_EQUAL(k, n);
        CU_ASSERT(memcmp(buf, buf2, (size_t)n) == 0);
    }
}

static void test_fields(void)
{
    struct xlft_msg m, d;
    struct xlft_hdr h;
    int n;

    /* Offsets as WIRE.md gives them. */
    sample(XLFT_T_HELLO, &m, NULL, 0);
    n = xlft_frame_put(&m, V, 0x0102030405060708ull, buf, sizeof(buf),
                       msg, sizeof(msg));
    CU_ASSERT_EQUAL(n, XLFT_HDR_SIZE + XLFT_HELLO_SIZE);
    CU_ASSERT(memcmp(buf, "XFTC", 4) == 0);
    CU_ASSERT_EQUAL(buf[4], V);
    CU_ASSERT_EQUAL(buf[5], XLFT_T_HELLO);
    CU_ASSERT_EQUAL(buf[8], XLFT_HELLO_SIZE);
    CU_ASSERT_EQUAL(buf[12], 0x08);
    CU_ASSERT_EQUAL(buf[19], 0x01);
    CU_ASSERT_EQUAL(buf[20 + 2], 3);
    CU_ASSERT(memcmp(buf + 20 + 12, "hostA\0", 6) == 0);
    CU_ASSERT_EQUAL(buf[20 + 75], 0);
    CU_ASSERT(memcmp(buf + 20 + 76, "vm-1.x_y\0", 9) == 0);
    CU_ASSERT_EQUAL(buf[20 + 139], 0);
    CU_ASSERT_EQUAL(buf[20 + 140], 0xa5);
    CU_ASSERT_EQUAL(buf[20 + 171], 0xa5);
    CU_ASSERT_EQUAL(buf[20 + 172], FT_COUNTER_BRANCHES);
    CU_ASSERT_EQUAL(buf[20 + 173], FT_CPU_INTEL);

    sample(XLFT_T_HELLO_ACK, &m, NULL, 0);
    n = xlft_frame_put(&m, V, 0, buf, sizeof(buf), msg, sizeof(msg));
    CU_ASSERT_EQUAL(n, XLFT_HDR_SIZE + XLFT_HELLO_ACK_SIZE);
    CU_ASSERT_EQUAL(xlft_frame_get(buf, (size_t)n, &h, &d, msg,
                                   sizeof(msg)), n);
    CU_ASSERT_EQUAL(d.u.hello_ack.domid, 0xfffe);
    CU_ASSERT_STRING_EQUAL(d.u.hello_ack.host, "hostB");
    CU_ASSERT_STRING_EQUAL(d.u.hello_ack.pair, "vm-1.x_y");
    CU_ASSERT_EQUAL(d.u.hello_ack.mac[31], 0xc3);
    CU_ASSERT(memcmp(buf + 20 + 10, "hostB\0", 6) == 0);
    CU_ASSERT(memcmp(buf + 20 + 74, "vm-1.x_y\0", 9) == 0);
    CU_ASSERT_EQUAL(d.u.hello_ack.counter, FT_COUNTER_STEPS);
    CU_ASSERT_EQUAL(d.u.hello_ack.cpu, FT_CPU_AMD);
    CU_ASSERT_EQUAL(buf[20 + 172], 0xc3);
    CU_ASSERT_EQUAL(buf[20 + 171], FT_CPU_AMD);
    CU_ASSERT_EQUAL(buf[20 + 170], FT_COUNTER_STEPS);
    CU_ASSERT_EQUAL(buf[20 + 169], 0x3c);

    sample(XLFT_T_ERROR, &m, NULL, 0);
    n = xlft_frame_put(&m, V, 0, buf, sizeof(buf), msg, sizeof(msg));
    CU_ASSERT_EQUAL(xlft_frame_get(buf, (size_t)n, &h, &d, msg,
                                   sizeof(msg)), n);
    CU_ASSERT_STRING_EQUAL(d.u.error.reason, "both ends are primary");
    CU_ASSERT_EQUAL(d.u.error.code, XLFT_ERR_CONFIG);

    /* An empty state stream is the one empty chunk. */
    sample(XLFT_T_STATE, &m, NULL, 0);
    m.u.state.offset = m.u.state.total = 0;
    n = xlft_frame_put(&m, V, 0, buf, sizeof(buf), msg, sizeof(msg));
    CU_ASSERT_EQUAL(n, XLFT_HDR_SIZE + XLFT_STATE_HDR_SIZE);
    CU_ASSERT_EQUAL(xlft_frame_get(buf, (size_t)n, &h, &d, msg,
                                   sizeof(msg)), n);
}

/* A LOG frame carries the records of hvm/core's encoder unchanged. */
static void test_log_records(void)
{
    static uint8_t recs[XLFT_PLAIN_MAX];
    static uint8_t dma[FT_DMA_MAX];
    uint64_t seed = 0x5eed;
    struct ft_point pt = { 0, 0, 0 };
    struct ft_codec c;
    struct xlft_msg m, d;
    struct xlft_hdr h;
    uint32_t len = 0, nrec = 0, scanned;
    int n;

    ft_codec_init(&c);
    while (len + FT_LOG_REC_MAX <= XLFT_PLAIN_MAX - XLFT_LOG_HDR_SIZE) {
        struct ft_log_rec r;
        int k;

        random_record(&seed, &pt, &r, dma, 4000);
        k = ft_log_encode(&c, &r, recs + len);
        CU_ASSERT_FATAL(k > 0);
        len += (uint32_t)k;
        if (r.kind == FT_K_DMA) {
            memcpy(recs + len, r.u.dma.data, r.u.dma.len);
            len += r.u.dma.len;
        }
        ft_codec_advance(&c, &r);
        nrec++;
    }
    m.type = XLFT_T_LOG;
    m.u.log = (struct xlft_log){
        .first_seq = 1, .sent_ns = 1, .count = nrec, .len = len,
        .recs = recs,
    };
    n = xlft_frame_put(&m, V, 3, buf, sizeof(buf), msg, sizeof(msg));
    CU_ASSERT_FATAL(n > 0);
    CU_ASSERT_EQUAL(xlft_frame_get(buf, (size_t)n, &h, &d, msg,
                                   sizeof(msg)), n);
    CU_ASSERT_EQUAL(d.u.log.count, nrec);
    CU_ASSERT_EQUAL(d.u.log.len, len);
    CU_ASSERT(memcmp(d.u.log.recs, recs, len) == 0);
    ft_codec_init(&c);
    CU_ASSERT_EQUAL(ft_log_check(&c, d.u.log.recs, d.u.log.len, &scanned),
                    (int)len);
    CU_ASSERT_EQUAL(scanned, nrec);

    /* The largest LOG payload fits, one byte more does not. */
    m.u.log.len = XLFT_PLAIN_MAX - XLFT_LOG_HDR_SIZE;
    CU_ASSERT_EQUAL(xlft_frame_put(&m, V, 3, buf, sizeof(buf), msg,
                                   sizeof(msg)), (int)XLFT_FRAME_MAX -
                                                 (int)XLFT_TAG_SIZE);
    m.u.log.len++;
    ASSERT_RC(xlft_frame_put(&m, V, 3, buf, sizeof(buf), msg, sizeof(msg)),
              -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "over the limit"));
}

static void test_header_errors(void)
{
    struct xlft_msg m, d;
    struct xlft_hdr h;
    int n;

    sample(XLFT_T_ACK, &m, NULL, 0);
    n = xlft_frame_put(&m, V, 5, buf, sizeof(buf), msg, sizeof(msg));
    CU_ASSERT_FATAL(n > 0);

    memcpy(buf2, buf, (size_t)n);
    buf2[0] ^= 1;
    ASSERT_RC(xlft_hdr_get(buf2, (size_t)n, &h, msg, sizeof(msg)),
              -EBADMSG);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "magic"));

    /* Versions 0, 1 (before host identities), 2 (before counters), 4. */
    for (int v = 0; v <= 4; v += v == 2 ? 2 : 1) {
        memcpy(buf2, buf, (size_t)n);
        buf2[4] = (uint8_t)v;
        ASSERT_RC(xlft_frame_get(buf2, (size_t)n, &h, &d, msg, sizeof(msg)),
                  -EPROTONOSUPPORT);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, "speaks versions 3 to 3"));
    }
    /* A HELLO, and an ERROR refusing one, are read in version 1 too. */
    for (unsigned int t = XLFT_T_HELLO; t <= XLFT_T_ERROR;
         t += XLFT_T_ERROR - XLFT_T_HELLO) {
        struct xlft_msg e;
        int k;

        sample(t, &e, NULL, 0);
        k = xlft_frame_put(&e, XLFT_WIRE_VERSION_HELLO, 0, buf2,
                           sizeof(buf2), msg, sizeof(msg));
        ASSERT_RC(xlft_frame_get(buf2, (size_t)k, &h, &d, msg, sizeof(msg)),
                  k);
        CU_ASSERT_EQUAL(h.version, 1);
        buf2[4] = 0;
        ASSERT_RC(xlft_frame_get(buf2, (size_t)k, &h, &d, msg, sizeof(msg)),
                  -EPROTONOSUPPORT);
    }

    for (int t = 0; t <= 255; t += 255) {
        memcpy(buf2, buf, (size_t)n);
        buf2[5] = (uint8_t)t;
        ASSERT_RC(xlft_frame_get(buf2, (size_t)n, &h, &d, msg, sizeof(msg)),
                  -ENOMSG);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, "unknown type"));
    }
    memcpy(buf2, buf, (size_t)n);
    buf2[5] = XLFT_T_MAX + 1;
    ASSERT_RC(xlft_hdr_get(buf2, (size_t)n, &h, msg, sizeof(msg)), -ENOMSG);

    memcpy(buf2, buf, (size_t)n);
    buf2[7] = 0x80;
    ASSERT_RC(xlft_hdr_get(buf2, (size_t)n, &h, msg, sizeof(msg)),
              -EBADMSG);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "undefined flags 0x8000"));

    /* Oversize is refused from the header alone, before any payload. */
    memcpy(buf2, buf, XLFT_HDR_SIZE);
    buf2[8] = 0xff, buf2[9] = 0xff, buf2[10] = 0xff, buf2[11] = 0xff;
    ASSERT_RC(xlft_hdr_get(buf2, XLFT_HDR_SIZE, &h, msg, sizeof(msg)),
              -EMSGSIZE);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "over the limit"));
    h = (struct xlft_hdr){ V, XLFT_T_LOG, 0,
                           XLFT_FRAME_MAX - XLFT_HDR_SIZE + 1, 0 };
    xlft_hdr_put(buf2, &h);
    ASSERT_RC(xlft_hdr_get(buf2, XLFT_HDR_SIZE, &h, msg, sizeof(msg)),
              -EMSGSIZE);
    h.len--;
    xlft_hdr_put(buf2, &h);
    ASSERT_RC(xlft_hdr_get(buf2, XLFT_HDR_SIZE, &h, msg, sizeof(msg)), 0);

    /* An encrypted frame needs a session. */
    memcpy(buf2, buf, (size_t)n);
    buf2[6] = XLFT_F_ENCRYPTED;
    ASSERT_RC(xlft_frame_get(buf2, (size_t)n, &h, &d, msg, sizeof(msg)),
              -EBADMSG);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "encrypted"));
}

static void test_truncated(void)
{
    static const uint8_t bytes[] = { 0x13, 0x01 };

    for (unsigned int t = 1; t <= XLFT_T_MAX; t++) {
        struct xlft_msg m, d;
        struct xlft_hdr h;
        int n;

        sample(t, &m, bytes, sizeof(bytes));
        n = xlft_frame_put(&m, V, 0, buf, sizeof(buf), msg, sizeof(msg));
        CU_ASSERT_FATAL(n > 0);
        for (int cut = 0; cut < n; cut++) {
            ASSERT_RC(xlft_frame_get(buf, (size_t)cut, &h, &d, msg,
                                     sizeof(msg)), -ENODATA);
        }
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, "cut short"));
    }
}

/* Decode 'len' payload bytes of 'type'; expect -EBADMSG and 'what'. */
static void refused(unsigned int type, const uint8_t *p, size_t len,
                    const char *what)
{
    struct xlft_msg d;

    msg[0] = '\0';
    ASSERT_RC(xlft_payload_get(type, p, len, &d, msg, sizeof(msg)),
              -EBADMSG);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, what));
    if (!strstr(msg, what))
        fprintf(stderr, "\n  %s: got \"%s\", want \"%s\"\n",
                xlft_type_name(type), msg, what);
}

/* Encode sample 't', apply 'poke' at 'off', expect 'what' refused. */
static void poked(unsigned int t, size_t off, uint8_t val, const char *what)
{
    static const uint8_t bytes[] = { 1, 2, 3, 4 };
    struct xlft_msg m;
    int n;

    sample(t, &m, bytes, sizeof(bytes));
    n = xlft_payload_put(&m, buf, sizeof(buf), msg, sizeof(msg));
    CU_ASSERT_FATAL(n > 0 && off < (size_t)n);
    buf[off] = val;
    refused(t, buf, (size_t)n, what);
}

static void test_malformed(void)
{
    static const uint8_t bytes[] = { 1, 2, 3, 4 };
    struct xlft_msg m;
    int n;

    /* Sizes: each fixed-size type exactly, the others at least. */
    for (unsigned int t = 1; t <= XLFT_T_MAX; t++) {
        sample(t, &m, bytes, sizeof(bytes));
        n = xlft_payload_put(&m, buf, sizeof(buf), msg, sizeof(msg));
        CU_ASSERT_FATAL(n > 0);
        if (t != XLFT_T_LOG && t != XLFT_T_STATE && t != XLFT_T_ERROR)
            refused(t, buf, (size_t)n + 1, "it takes");
        refused(t, buf, 0, "it takes");
    }
    ASSERT_RC(xlft_payload_get(0, buf, 8, &m, msg, sizeof(msg)), -ENOMSG);
    ASSERT_RC(xlft_payload_get(XLFT_T_MAX + 1, buf, 8, &m, msg,
                               sizeof(msg)), -ENOMSG);
    refused(XLFT_T_LOG, buf, XLFT_PLAIN_MAX + 1, "over the limit");

    poked(XLFT_T_HELLO, 0, 0, "version range");         /* min 0 */
    poked(XLFT_T_HELLO, 0, 4, "version range");         /* min > max */
    poked(XLFT_T_HELLO, 4, 3, "role 3");
    poked(XLFT_T_HELLO, 5, 2, "encryption 2");
    poked(XLFT_T_HELLO, 6, 0, "log version 0");
    poked(XLFT_T_HELLO_ACK, 0, 0, "version 0");
    poked(XLFT_T_HELLO_ACK, 2, 0, "role 0");
    poked(XLFT_T_HELLO_ACK, 3, 9, "encryption 9");
    poked(XLFT_T_HELLO_ACK, 4, 0, "log version 0");
    poked(XLFT_T_HELLO, 172, FT_COUNTER_MAX + 1, "counter 3 or CPU 1");
    poked(XLFT_T_HELLO, 173, FT_CPU_UNKNOWN, "counter 1 or CPU 0");
    poked(XLFT_T_HELLO, 173, FT_CPU_MAX + 1, "counter 1 or CPU 4");
    poked(XLFT_T_HELLO_ACK, 170, FT_COUNTER_MAX + 1, "counter 3 or CPU 2");
    poked(XLFT_T_HELLO_ACK, 171, FT_CPU_UNKNOWN, "counter 2 or CPU 0");
    /* Names: the allowed bytes, at least one, NUL-padded, one spelling. */
    poked(XLFT_T_HELLO, 12, 0, "host or pair field is no name");
    poked(XLFT_T_HELLO, 12, '.', "host or pair field is no name");
    poked(XLFT_T_HELLO, 14, '/', "host or pair field is no name");
    poked(XLFT_T_HELLO, 14, 0xc3, "host or pair field is no name");
    poked(XLFT_T_HELLO, 20, 'x', "host or pair field is no name");
    poked(XLFT_T_HELLO, 76 + 63, 'x', "host or pair field is no name");
    poked(XLFT_T_HELLO_ACK, 10, 0, "host or pair field is no name");
    poked(XLFT_T_HELLO_ACK, 74 + 9, ' ', "host or pair field is no name");
    poked(XLFT_T_HELLO_ACK, 74 + 20, 'x', "host or pair field is no name");

    /* LOG: first 1000, 1 record in 4 bytes. */
    poked(XLFT_T_LOG, 16, 0, "0 records");
    poked(XLFT_T_LOG, 16, 5, "5 records in 4 bytes");
    sample(XLFT_T_LOG, &m, bytes, sizeof(bytes));
    m.u.log.first_seq = 0;
    ASSERT_RC(xlft_payload_put(&m, buf, sizeof(buf), msg, sizeof(msg)),
              -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "first record 0"));
    m.u.log.first_seq = UINT64_MAX - 1;
    m.u.log.count = 3;
    ASSERT_RC(xlft_payload_put(&m, buf, sizeof(buf), msg, sizeof(msg)),
              -EINVAL);
    m.u.log.count = 2;
    n = xlft_payload_put(&m, buf, sizeof(buf), msg, sizeof(msg));
    CU_ASSERT_EQUAL(n, XLFT_LOG_HDR_SIZE + 4);
    buf[16] = 3;
    refused(XLFT_T_LOG, buf, (size_t)n, "pass the last sequence number");

    poked(XLFT_T_ACK, 8, 100, "replayed but only 99 held");

    /* STATE: 4 bytes at 4096 of 2^33. */
    poked(XLFT_T_STATE, 5, 0x10, "at offset");          /* offset > total */
    sample(XLFT_T_STATE, &m, bytes, sizeof(bytes));
    m.u.state.total = 4098;
    ASSERT_RC(xlft_payload_put(&m, buf, sizeof(buf), msg, sizeof(msg)),
              -EINVAL);
    m.u.state.total = 4100;
    n = xlft_payload_put(&m, buf, sizeof(buf), msg, sizeof(msg));
    CU_ASSERT_EQUAL(n, XLFT_STATE_HDR_SIZE + 4);
    refused(XLFT_T_STATE, buf, XLFT_STATE_HDR_SIZE, "0 bytes at offset");
    buf[8] = 0x03;                                      /* total 4099 */
    refused(XLFT_T_STATE, buf, (size_t)n, "4099-byte");

    poked(XLFT_T_ERROR, 0, 0, "unknown code 0");
    poked(XLFT_T_ERROR, 0, XLFT_ERR_MAX + 1, "unknown code 5");
    poked(XLFT_T_ERROR, 4, 3, "reason length 3");
    poked(XLFT_T_ERROR, 5, 1, "reason length 277");
    poked(XLFT_T_ERROR, 6, '\n', "byte 0x0a at 0");
    poked(XLFT_T_ERROR, 9, 0, "byte 0x00 at 3");
    memset(buf, 'x', sizeof(buf));
    buf[0] = 1, buf[1] = buf[2] = buf[3] = 0;
    buf[4] = XLFT_ERROR_REASON_MAX + 1, buf[5] = 0;
    refused(XLFT_T_ERROR, buf, XLFT_ERROR_HDR_SIZE +
            XLFT_ERROR_REASON_MAX + 1, "reason length 201");
}

/* A name of the whole field (no NUL) is one; a HELLO before them none. */
static void test_names(void)
{
    struct xlft_msg m, d;
    int n;

    sample(XLFT_T_HELLO, &m, NULL, 0);
    memset(m.u.hello.host, 'h', XLFT_NAME_SIZE);
    m.u.hello.host[XLFT_NAME_SIZE] = '\0';
    n = xlft_payload_put(&m, buf, sizeof(buf), msg, sizeof(msg));
    CU_ASSERT_EQUAL_FATAL(n, XLFT_HELLO_SIZE);
    CU_ASSERT_EQUAL(buf[12 + 63], 'h');
    CU_ASSERT_EQUAL(buf[76], 'v');
    ASSERT_RC(xlft_payload_get(XLFT_T_HELLO, buf, (size_t)n, &d, msg,
                               sizeof(msg)), 0);
    CU_ASSERT_EQUAL(strlen(d.u.hello.host), XLFT_NAME_SIZE);
    CU_ASSERT(xlft_name_ok("a") && xlft_name_ok("host-B_2.lan"));
    CU_ASSERT(!xlft_name_ok("") && !xlft_name_ok(".x") &&
              !xlft_name_ok("a b") && !xlft_name_ok("a/b"));
    /* The encoder refuses what is no name. */
    sample(XLFT_T_HELLO, &m, NULL, 0);
    m.u.hello.pair[0] = '\0';
    ASSERT_RC(xlft_payload_put(&m, buf, sizeof(buf), msg, sizeof(msg)),
              -EINVAL);

    /*
     * Version 1's HELLO (52 bytes: versions 1 to 1, role, encryption,
     * log version, domid, an 8-byte pair id, nonce) is told it has no
     * version in common, not that it is malformed.
     */
    memset(buf, 0, 52);
    buf[0] = 1, buf[2] = 1, buf[4] = XLFT_ROLE_PRIMARY;
    buf[5] = XLFT_ENC_REQUIRED, buf[6] = 1;
    ASSERT_RC(xlft_payload_get(XLFT_T_HELLO, buf, 52, &d, msg, sizeof(msg)),
              -EPROTONOSUPPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "no channel version in common: the "
                                       "peer speaks 1 to 1, this side 3 to "
                                       "3 (an ftd from before host "
                                       "identities: upgrade it)"));
    /* Version 2's (172 bytes, no counter) is told what it lacks... */
    memset(buf, 0, 172);
    buf[0] = 2, buf[2] = 2, buf[4] = XLFT_ROLE_PRIMARY;
    buf[5] = XLFT_ENC_REQUIRED, buf[6] = FT_LOG_VERSION;
    ASSERT_RC(xlft_payload_get(XLFT_T_HELLO, buf, 172, &d, msg, sizeof(msg)),
              -EPROTONOSUPPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "no channel version in common: the "
                                       "peer speaks 2 to 2, this side 3 to "
                                       "3 (an ftd whose HELLO does not say "
                                       "what its log counts: upgrade it)"));
    /* ...and a later one that speaks only 4 and up is refused too. */
    buf[0] = 4, buf[2] = 5;
    ASSERT_RC(xlft_payload_get(XLFT_T_HELLO, buf, 300, &d, msg, sizeof(msg)),
              -EPROTONOSUPPORT);
    CU_ASSERT_PTR_NULL(strstr(msg, "upgrade"));
}

static void test_encoder_refuses(void)
{
    static const uint8_t bytes[] = { 1, 2, 3, 4 };
    struct xlft_msg m;
    char reason[400];

    sample(XLFT_T_HELLO, &m, NULL, 0);
    m.u.hello.ver_min = 0;
    ASSERT_RC(xlft_frame_put(&m, V, 0, buf, sizeof(buf), msg, sizeof(msg)),
              -EINVAL);
    CU_ASSERT_EQUAL(xlft_payload_size(&m), 0);

    sample(XLFT_T_LOG, &m, bytes, sizeof(bytes));
    ASSERT_RC(xlft_frame_put(&m, V, 0, buf, XLFT_HDR_SIZE + 23, msg,
                             sizeof(msg)), -ENOBUFS);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "does not fit"));
    ASSERT_RC(xlft_frame_put(&m, V, 0, buf, 3, msg, sizeof(msg)), -ENOBUFS);
    CU_ASSERT_EQUAL(xlft_frame_put(&m, V, 0, buf, XLFT_HDR_SIZE + 24, msg,
                                   sizeof(msg)), XLFT_HDR_SIZE + 24);

    m.type = 0;
    ASSERT_RC(xlft_payload_put(&m, buf, sizeof(buf), msg, sizeof(msg)),
              -EINVAL);
    CU_ASSERT_EQUAL(xlft_payload_size(&m), 0);

    /* Reasons are cut to the limit and made printable. */
    memset(reason, 'r', sizeof(reason) - 1);
    reason[sizeof(reason) - 1] = '\0';
    reason[3] = '\t';
    xlft_msg_error(&m, XLFT_ERR_PROTOCOL, reason);
    CU_ASSERT_EQUAL(m.u.error.len, XLFT_ERROR_REASON_MAX);
    CU_ASSERT_EQUAL(m.u.error.reason[3], '?');
    CU_ASSERT_EQUAL(xlft_payload_size(&m),
                    XLFT_ERROR_HDR_SIZE + XLFT_ERROR_REASON_MAX);
    CU_ASSERT_STRING_EQUAL(xlft_type_name(XLFT_T_GOLIVE), "GOLIVE");
    CU_ASSERT_STRING_EQUAL(xlft_type_name(0), "unknown");
}

/*
 * The head of a payload leaves LOG records and a STATE chunk where they
 * lie, to be placed after it; the rest of each payload it writes whole.
 */
static void test_payload_head(void)
{
    static const uint8_t bytes[] = { 1, 2, 3, 4, 5 };
    static uint8_t whole[256];
    struct xlft_data d;
    struct xlft_msg m;
    int n, k;

    for (unsigned int t = 1; t <= XLFT_T_MAX; t++) {
        bool data = t == XLFT_T_LOG || t == XLFT_T_STATE;

        sample(t, &m, bytes, sizeof(bytes));
        k = xlft_payload_put(&m, whole, sizeof(whole), msg, sizeof(msg));
        n = xlft_payload_put_head(&m, buf, sizeof(buf), &d, msg,
                                  sizeof(msg));
        CU_ASSERT_FATAL(k > 0 && n > 0);
        CU_ASSERT_EQUAL((size_t)n + d.len, (size_t)k);
        CU_ASSERT(memcmp(buf, whole, (size_t)n) == 0);
        CU_ASSERT_EQUAL(d.len, data ? sizeof(bytes) : 0);
        CU_ASSERT(d.bytes == (data ? bytes : NULL));
        /* Room is asked for the whole payload, data included. */
        ASSERT_RC(xlft_payload_put_head(&m, buf, (size_t)k - 1, &d, msg,
                                        sizeof(msg)), -ENOBUFS);
    }
}

void register_frame_tests(void)
{
    CU_pSuite s = CU_add_suite("channel frames", NULL, NULL);

    CU_add_test(s, "every frame type round-trips byte for byte",
                test_round_trip);
    CU_add_test(s, "fields sit at the documented offsets", test_fields);
    CU_add_test(s, "LOG carries encoded records unchanged",
                test_log_records);
    CU_add_test(s, "bad magic, version, type, flags, size refused",
                test_header_errors);
    CU_add_test(s, "every truncation is reported", test_truncated);
    CU_add_test(s, "malformed payloads of each type refused",
                test_malformed);
    CU_add_test(s, "names in hellos; a version 1 HELLO has none in common",
                test_names);
    CU_add_test(s, "the encoder refuses what would not decode",
                test_encoder_refuses);
    CU_add_test(s, "a payload's head leaves LOG and STATE data in place",
                test_payload_head);
}
