// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_golden.c - frames, a stored log and the copy stream's header and
 * reply written out byte by byte from the documents (WIRE.md, channel
 * version 3; FORMAT.md, stored log version 3), not from the code: the
 * encoders must produce exactly these bytes and the decoders take them.
 * Integers are spelt as the little-endian bytes the documents define;
 * the only thing computed is a stored log's XXH3-64 checksums.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "ft_abi.h"
#include "xlft_copy.h"
#include "xlft_frame.h"
#include "xlft_logfile.h"
#include "unit.h"

static char msg[256];

/* Equal, or the first offset that differs is named on stderr. */
static void same(const uint8_t *got, size_t got_len, const uint8_t *want,
                 size_t want_len, const char *what)
{
    size_t n = got_len < want_len ? got_len : want_len;

    for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            fprintf(stderr, "%s: byte %zu is 0x%02x, the document's 0x%02x\n",
                    what, i, got[i], want[i]);
            CU_FAIL("bytes differ from the document's");
            return;
        }
    }
    if (got_len != want_len) {
        fprintf(stderr, "%s: %zu bytes, the document's %zu\n", what, got_len,
                want_len);
        CU_FAIL("length differs from the document's");
    }
}

/* Encode 'm' as frame 'seq' of 'version'; it must be 'want'. */
static void encodes_to(const struct xlft_msg *m, uint8_t version,
                       uint64_t seq, const uint8_t *want, size_t want_len,
                       const char *what)
{
    static uint8_t out[1024];
    int n = xlft_frame_put(m, version, seq, out, sizeof(out), msg,
                           sizeof(msg));

    CU_ASSERT_FATAL(n > 0);
    same(out, (size_t)n, want, want_len, what);
}

/* Decode 'in', which must be one whole frame of 'version' and 'seq'. */
static void decodes(const uint8_t *in, size_t len, uint8_t version,
                    uint64_t seq, struct xlft_msg *m)
{
    struct xlft_hdr h;

    CU_ASSERT_EQUAL_FATAL(xlft_frame_get(in, len, &h, m, msg, sizeof(msg)),
                          (int)len);
    CU_ASSERT_EQUAL(h.version, version);
    CU_ASSERT_EQUAL(h.type, m->type);
    CU_ASSERT_EQUAL(h.flags, 0);
    CU_ASSERT_EQUAL(h.len, len - 20);
    CU_ASSERT_EQUAL(h.seq, seq);
}

/* The initiator's HELLO: version 1 in its header, whatever it offers. */
static const uint8_t hello[20 + 174] = {
    'X', 'F', 'T', 'C',                 /*  0 magic */
    1,                                  /*  4 channel version 1 */
    1,                                  /*  5 type HELLO */
    0, 0,                               /*  6 flags */
    174, 0, 0, 0,                       /*  8 payload length */
    0, 0, 0, 0, 0, 0, 0, 0,             /* 12 frame sequence number 0 */
    3, 0,                               /* 20 +  0 lowest version 3 */
    4, 0,                               /* 20 +  2 highest version 4 */
    1,                                  /* 20 +  4 role primary */
    1,                                  /* 20 +  5 encryption required */
    1, 0,                               /* 20 +  6 log format version 1 */
    0x01, 0x02, 0x03, 0x00,             /* 20 +  8 domid 0x30201 */
    [20 + 12] = 'h', 'o', 's', 't', 'A',        /* host, NUL-padded */
    [20 + 76] = 'v', 'm', '1',                  /* pair, NUL-padded */
    [20 + 140] =                                /* nonce */
        0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
        0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
        0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
        0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
    1,                                  /* 20 + 172 counter: branches */
    1,                                  /* 20 + 173 cpu: Intel */
};

/* The responder's HELLO_ACK, its first frame. */
static const uint8_t hello_ack[20 + 204] = {
    'X', 'F', 'T', 'C',
    3,                                  /*  4 channel version 3 */
    2,                                  /*  5 type HELLO_ACK */
    0, 0,
    204, 0, 0, 0,                       /*  8 payload length */
    0, 0, 0, 0, 0, 0, 0, 0,             /* 12 frame 0 */
    3, 0,                               /* 20 +  0 chosen version 3 */
    2,                                  /* 20 +  2 role secondary */
    0,                                  /* 20 +  3 encryption disabled */
    1, 0,                               /* 20 +  4 log format version 1 */
    0xfe, 0x7f, 0x00, 0x00,             /* 20 +  6 domid 0x7ffe */
    [20 + 10] = 'h', 'o', 's', 't', '-', 'B', '.', '2',
    [20 + 74] = 'v', 'm', '1',
    [20 + 138] =                                /* nonce */
        0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27,
        0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f,
        0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37,
        0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f,
    [20 + 170] = 2,                             /* counter: steps */
    [20 + 171] = 2,                             /* cpu: AMD */
    [20 + 172] =                                /* key confirmation */
        0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,
        0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f,
        0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57,
        0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f,
};

static void test_hello(void)
{
    struct xlft_msg m = { .type = XLFT_T_HELLO }, d;

    m.u.hello = (struct xlft_hello){
        .ver_min = 3, .ver_max = 4, .role = XLFT_ROLE_PRIMARY,
        .enc = XLFT_ENC_REQUIRED, .log_version = 1, .domid = 0x30201,
        .host = "hostA", .pair = "vm1",
        .counter = FT_COUNTER_BRANCHES, .cpu = FT_CPU_INTEL,
    };
    for (unsigned int i = 0; i < XLFT_NONCE_SIZE; i++)
        m.u.hello.nonce[i] = (uint8_t)i;
    encodes_to(&m, 1, 0, hello, sizeof(hello), "HELLO");
    decodes(hello, sizeof(hello), 1, 0, &d);
    CU_ASSERT_EQUAL(d.type, XLFT_T_HELLO);
    CU_ASSERT_EQUAL(d.u.hello.ver_min, 3);
    CU_ASSERT_EQUAL(d.u.hello.ver_max, 4);
    CU_ASSERT_EQUAL(d.u.hello.counter, FT_COUNTER_BRANCHES);
    CU_ASSERT_EQUAL(d.u.hello.cpu, FT_CPU_INTEL);
    CU_ASSERT_EQUAL(d.u.hello.role, XLFT_ROLE_PRIMARY);
    CU_ASSERT_EQUAL(d.u.hello.enc, XLFT_ENC_REQUIRED);
    CU_ASSERT_EQUAL(d.u.hello.log_version, 1);
    CU_ASSERT_EQUAL(d.u.hello.domid, 0x30201);
    CU_ASSERT_STRING_EQUAL(d.u.hello.host, "hostA");
    CU_ASSERT_STRING_EQUAL(d.u.hello.pair, "vm1");
    CU_ASSERT(memcmp(d.u.hello.nonce, m.u.hello.nonce,
                     XLFT_NONCE_SIZE) == 0);

    m.type = XLFT_T_HELLO_ACK;
    m.u.hello_ack = (struct xlft_hello_ack){
        .version = 3, .role = XLFT_ROLE_SECONDARY,
        .enc = XLFT_ENC_DISABLED, .log_version = 1, .domid = 0x7ffe,
        .host = "host-B.2", .pair = "vm1",
        .counter = FT_COUNTER_STEPS, .cpu = FT_CPU_AMD,
    };
    for (unsigned int i = 0; i < XLFT_NONCE_SIZE; i++)
        m.u.hello_ack.nonce[i] = (uint8_t)(0x20 + i);
    for (unsigned int i = 0; i < XLFT_MAC_SIZE; i++)
        m.u.hello_ack.mac[i] = (uint8_t)(0x40 + i);
    encodes_to(&m, 3, 0, hello_ack, sizeof(hello_ack), "HELLO_ACK");
    decodes(hello_ack, sizeof(hello_ack), 3, 0, &d);
    CU_ASSERT_EQUAL(d.type, XLFT_T_HELLO_ACK);
    CU_ASSERT_EQUAL(d.u.hello_ack.version, 3);
    CU_ASSERT_EQUAL(d.u.hello_ack.counter, FT_COUNTER_STEPS);
    CU_ASSERT_EQUAL(d.u.hello_ack.cpu, FT_CPU_AMD);
    CU_ASSERT_EQUAL(d.u.hello_ack.role, XLFT_ROLE_SECONDARY);
    CU_ASSERT_EQUAL(d.u.hello_ack.enc, XLFT_ENC_DISABLED);
    CU_ASSERT_EQUAL(d.u.hello_ack.log_version, 1);
    CU_ASSERT_EQUAL(d.u.hello_ack.domid, 0x7ffe);
    CU_ASSERT_STRING_EQUAL(d.u.hello_ack.host, "host-B.2");
    CU_ASSERT_STRING_EQUAL(d.u.hello_ack.pair, "vm1");
    CU_ASSERT(memcmp(d.u.hello_ack.nonce, m.u.hello_ack.nonce,
                     XLFT_NONCE_SIZE) == 0);
    CU_ASSERT(memcmp(d.u.hello_ack.mac, m.u.hello_ack.mac,
                     XLFT_MAC_SIZE) == 0);
}

/* One record: PROGRESS, count +5, rip +1 (FORMAT.md). */
static const uint8_t record[] = { 0x0a, 0x05, 0x02 };

static const uint8_t log_frame[] = {
    'X', 'F', 'T', 'C', 3,
    3,                                  /*  5 type LOG */
    0, 0,
    23, 0, 0, 0,                        /*  8 payload: 20 + 3 */
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,   /* 12 frame */
    0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,   /* 20 + 0 first */
    0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21,   /* 20 + 8 clock */
    1, 0, 0, 0,                         /* 20 + 16 one record */
    0x0a, 0x05, 0x02,                   /* 20 + 20 the record */
};

static const uint8_t ack_frame[] = {
    'X', 'F', 'T', 'C', 3,
    4,                                  /* ACK */
    0, 0, 32, 0, 0, 0,
    0x05, 0, 0, 0, 0, 0, 0, 0,
    0x02, 0x01, 0, 0, 0, 0, 0, 0,       /* acked 0x102 */
    0x01, 0x01, 0, 0, 0, 0, 0, 0,       /* replayed 0x101 */
    0x38, 0x37, 0x36, 0x35, 0x34, 0x33, 0x32, 0x31,   /* echo */
    0x48, 0x47, 0x46, 0x45, 0x44, 0x43, 0x42, 0x41,   /* receiver's clock */
};

static const uint8_t heartbeat_frame[] = {
    'X', 'F', 'T', 'C', 3,
    5,                                  /* HEARTBEAT */
    0, 0, 16, 0, 0, 0,
    0x06, 0, 0, 0, 0, 0, 0, 0,
    0x58, 0x57, 0x56, 0x55, 0x54, 0x53, 0x52, 0x51,   /* sender's clock */
    0x68, 0x67, 0x66, 0x65, 0x64, 0x63, 0x62, 0x61,   /* echo */
};

static const uint8_t state_frame[] = {
    'X', 'F', 'T', 'C', 3,
    6,                                  /* STATE */
    0, 0, 28, 0, 0, 0,                  /* 24 + 4 */
    0x07, 0, 0, 0, 0, 0, 0, 0,
    0x00, 0x10, 0, 0, 0, 0, 0, 0,       /* offset 0x1000 */
    0x00, 0x20, 0, 0, 0, 0, 0, 0,       /* total 0x2000 */
    0x77, 0, 0, 0, 0, 0, 0, 0,          /* last record included */
    'a', 'b', 'c', 'd',
};

static const uint8_t golive_frame[] = {
    'X', 'F', 'T', 'C', 3,
    7,                                  /* GOLIVE */
    0, 0, 8, 0, 0, 0,
    0x08, 0, 0, 0, 0, 0, 0, 0,
    0x23, 0x01, 0, 0, 0, 0, 0, 0,       /* record 0x123 */
};

static const uint8_t shutdown_frame[] = {
    'X', 'F', 'T', 'C', 3,
    8,                                  /* SHUTDOWN */
    0, 0, 8, 0, 0, 0,
    0x09, 0, 0, 0, 0, 0, 0, 0,
    0x34, 0x12, 0, 0, 0, 0, 0, 0,       /* record 0x1234 */
};

static const uint8_t error_frame[] = {
    'X', 'F', 'T', 'C', 3,
    9,                                  /* ERROR */
    0, 0, 11, 0, 0, 0,                  /* 6 + 5 */
    0x0a, 0, 0, 0, 0, 0, 0, 0,
    3, 0, 0, 0,                         /* configuration */
    5, 0,                               /* reason length */
    'p', 'e', 'e', 'r', 's',
};

static void test_frames(void)
{
    struct xlft_msg m, d;

    memset(&m, 0, sizeof(m));
    m.type = XLFT_T_LOG;
    m.u.log = (struct xlft_log){
        .first_seq = 0x1112131415161718ull,
        .sent_ns = 0x2122232425262728ull, .count = 1,
        .len = sizeof(record), .recs = record,
    };
    encodes_to(&m, 3, 0x0807060504030201ull, log_frame, sizeof(log_frame),
               "LOG");
    decodes(log_frame, sizeof(log_frame), 3, 0x0807060504030201ull, &d);
    CU_ASSERT_EQUAL(d.u.log.first_seq, m.u.log.first_seq);
    CU_ASSERT_EQUAL(d.u.log.sent_ns, m.u.log.sent_ns);
    CU_ASSERT_EQUAL(d.u.log.count, 1);
    CU_ASSERT_EQUAL(d.u.log.len, sizeof(record));
    CU_ASSERT(memcmp(d.u.log.recs, record, sizeof(record)) == 0);

    memset(&m, 0, sizeof(m));
    m.type = XLFT_T_ACK;
    m.u.ack = (struct xlft_ack){
        .acked = 0x102, .replayed = 0x101,
        .echo_ns = 0x3132333435363738ull, .recv_ns = 0x4142434445464748ull,
    };
    encodes_to(&m, 3, 5, ack_frame, sizeof(ack_frame), "ACK");
    decodes(ack_frame, sizeof(ack_frame), 3, 5, &d);
    CU_ASSERT(memcmp(&d.u.ack, &m.u.ack, sizeof(m.u.ack)) == 0);

    memset(&m, 0, sizeof(m));
    m.type = XLFT_T_HEARTBEAT;
    m.u.heartbeat = (struct xlft_heartbeat){
        .sent_ns = 0x5152535455565758ull, .echo_ns = 0x6162636465666768ull,
    };
    encodes_to(&m, 3, 6, heartbeat_frame, sizeof(heartbeat_frame),
               "HEARTBEAT");
    decodes(heartbeat_frame, sizeof(heartbeat_frame), 3, 6, &d);
    CU_ASSERT(memcmp(&d.u.heartbeat, &m.u.heartbeat,
                     sizeof(m.u.heartbeat)) == 0);

    memset(&m, 0, sizeof(m));
    m.type = XLFT_T_STATE;
    m.u.state = (struct xlft_state){
        .offset = 0x1000, .total = 0x2000, .base_seq = 0x77,
        .len = 4, .data = (const uint8_t *)"abcd",
    };
    encodes_to(&m, 3, 7, state_frame, sizeof(state_frame), "STATE");
    decodes(state_frame, sizeof(state_frame), 3, 7, &d);
    CU_ASSERT_EQUAL(d.u.state.offset, 0x1000);
    CU_ASSERT_EQUAL(d.u.state.total, 0x2000);
    CU_ASSERT_EQUAL(d.u.state.base_seq, 0x77);
    CU_ASSERT_EQUAL(d.u.state.len, 4);
    CU_ASSERT(memcmp(d.u.state.data, "abcd", 4) == 0);

    memset(&m, 0, sizeof(m));
    m.type = XLFT_T_GOLIVE;
    m.u.golive_seq = 0x123;
    encodes_to(&m, 3, 8, golive_frame, sizeof(golive_frame), "GOLIVE");
    decodes(golive_frame, sizeof(golive_frame), 3, 8, &d);
    CU_ASSERT_EQUAL(d.u.golive_seq, 0x123);

    memset(&m, 0, sizeof(m));
    m.type = XLFT_T_SHUTDOWN;
    m.u.shutdown_seq = 0x1234;
    encodes_to(&m, 3, 9, shutdown_frame, sizeof(shutdown_frame),
               "SHUTDOWN");
    decodes(shutdown_frame, sizeof(shutdown_frame), 3, 9, &d);
    CU_ASSERT_EQUAL(d.u.shutdown_seq, 0x1234);

    xlft_msg_error(&m, XLFT_ERR_CONFIG, "peers");
    encodes_to(&m, 3, 10, error_frame, sizeof(error_frame), "ERROR");
    decodes(error_frame, sizeof(error_frame), 3, 10, &d);
    CU_ASSERT_EQUAL(d.u.error.code, XLFT_ERR_CONFIG);
    CU_ASSERT_STRING_EQUAL(d.u.error.reason, "peers");
}

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * A stored log of the one record above: the file header, a block of
 * it, the end marker; the checksums are filled in by seal().
 */
#define LOG_BLOCK 32u                   /* file offset of the block */
#define LOG_END   (LOG_BLOCK + 40u + 3u)
static uint8_t stored[LOG_END + 40] = {
    'X', 'E', 'N', 'F', 'T', 'L', 'O', 'G',   /*  0 magic */
    3, 0, 0, 0,                         /*  8 stored log version 3 */
    32, 0, 0, 0,                        /* 12 header size */
    4, 0,                               /* 16 records' format version 4 */
    2,                                  /* 18 counter: steps */
    3,                                  /* 19 cpu: ftvm */
    0, 0, 0, 0,                         /* 20 reserved */
                                        /* 24 checksum of bytes 0-23 */
    [LOG_BLOCK] =
    'X', 'B', 'L', 'K',                 /*  0 magic */
    3, 0, 0, 0,                         /*  4 payload length */
    1, 0, 0, 0, 0, 0, 0, 0,             /*  8 first record */
    1, 0, 0, 0,                         /* 16 number of records */
    0, 0, 0, 0,                         /* 20 flags */
                                        /* 24 payload checksum */
                                        /* 32 header checksum */
    [LOG_BLOCK + 40] = 0x0a, 0x05, 0x02,        /* payload */
    [LOG_END] =
    'X', 'B', 'L', 'K',
    0, 0, 0, 0,                         /* no payload */
    2, 0, 0, 0, 0, 0, 0, 0,             /* the record after the last */
    0, 0, 0, 0,                         /* no record */
    1, 0, 0, 0,                         /* end marker */
};

static void seal(void)
{
    put_le64(stored + 24, XXH3_64bits(stored, 24));
    put_le64(stored + LOG_BLOCK + 24,
             XXH3_64bits(stored + LOG_BLOCK + 40, 3));
    put_le64(stored + LOG_BLOCK + 32, XXH3_64bits(stored + LOG_BLOCK, 32));
    put_le64(stored + LOG_END + 24, XXH3_64bits(stored + LOG_END + 40, 0));
    put_le64(stored + LOG_END + 32, XXH3_64bits(stored + LOG_END, 32));
}

static void test_stored_log(void)
{
    char path[] = "/tmp/xenft-golden.XXXXXX";
    static uint8_t file[2 * sizeof(stored)];
    const uint8_t *recs;
    struct xlft_logw *w;
    struct xlft_logr *r;
    uint64_t first;
    uint32_t nrec;
    size_t len;
    FILE *fp;
    int rc, fd = mkstemp(path);

    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    seal();
    rc = xlft_logw_open(&w, path, FT_COUNTER_STEPS, FT_CPU_FTVM, msg,
                        sizeof(msg));
    if (rc)
        unlink(path);
    CU_ASSERT_FATAL(rc == 0);
    ASSERT_RC(xlft_logw_append(w, record, sizeof(record), msg, sizeof(msg)),
              0);
    ASSERT_RC(xlft_logw_close(w, msg, sizeof(msg)), 0);
    fp = fopen(path, "rb");
    CU_ASSERT_FATAL(fp != NULL);
    len = fread(file, 1, sizeof(file), fp);
    fclose(fp);
    unlink(path);
    same(file, len, stored, sizeof(stored), "stored log");

    fp = fmemopen(stored, sizeof(stored), "rb");
    CU_ASSERT_FATAL(fp != NULL);
    CU_ASSERT_FATAL(xlft_logr_open_fp(&r, fp, "golden", msg,
                                      sizeof(msg)) == 0);
    ASSERT_RC(xlft_logr_next(r, &recs, &len, &nrec, &first, msg,
                             sizeof(msg)), 1);
    CU_ASSERT_EQUAL(len, sizeof(record));
    CU_ASSERT_EQUAL(nrec, 1);
    CU_ASSERT_EQUAL(first, 1);
    CU_ASSERT(memcmp(recs, record, sizeof(record)) == 0);
    ASSERT_RC(xlft_logr_next(r, &recs, &len, &nrec, &first, msg,
                             sizeof(msg)), 0);
    xlft_logr_close(r);
}

static const uint8_t copy_hdr[24] = {
    'X', 'L', 'F', 'T', 'C', 'O', 'P', 'Y',   /*  0 magic */
    2, 0, 0, 0,                         /*  8 copy version 2 */
    0, 0, 0, 0,                         /* 12 flags */
    0x02, 0x01, 0, 0,                   /* 16 domid 0x102 */
    0x34, 0x12, 0, 0,                   /* 20 configuration length */
};

static const uint8_t copy_failed[24] = {
    'X', 'L', 'F', 'T', 'C', 'R', 'P', 'Y',   /*  0 magic */
    2, 0, 0, 0,                         /*  8 copy version 2 */
    0xfb, 0xff, 0xff, 0xff,             /* 12 status -5 */
    0, 0, 0, 0,                         /* 16 no domain */
    0, 0, 0, 0,
};

static const uint8_t copy_made[24] = {
    'X', 'L', 'F', 'T', 'C', 'R', 'P', 'Y',
    2, 0, 0, 0,
    0, 0, 0, 0,                         /* 12 status 0 */
    0x09, 0x80, 0, 0,                   /* 16 domain 0x8009 */
    0, 0, 0, 0,
};

static const uint8_t copy_dev[16] = {
    'X', 'L', 'F', 'T', 'C', 'D', 'E', 'V',   /*  0 magic */
    0x10, 0x05, 0, 0,                   /*  8 device state length */
    0, 0, 0, 0,                         /* 12 */
};

static void test_copy(void)
{
    struct xlft_copy_hdr h = { .domid = 0x102, .config_len = 0x1234 }, g;
    uint8_t b[24];
    uint32_t domid;
    int32_t status;

    xlft_copy_hdr_put(b, &h);
    same(b, sizeof(b), copy_hdr, sizeof(copy_hdr), "copy header");
    ASSERT_RC(xlft_copy_hdr_get(copy_hdr, &g, msg, sizeof(msg)), 0);
    CU_ASSERT_EQUAL(g.domid, 0x102);
    CU_ASSERT_EQUAL(g.config_len, 0x1234);

    xlft_copy_reply_put(b, -5, 0);
    same(b, sizeof(b), copy_failed, sizeof(copy_failed), "copy reply");
    ASSERT_RC(xlft_copy_reply_get(copy_failed, &status, &domid, msg,
                                  sizeof(msg)), 0);
    CU_ASSERT_EQUAL(status, -5);
    CU_ASSERT_EQUAL(domid, 0);
    xlft_copy_reply_put(b, 0, 0x8009);
    same(b, sizeof(b), copy_made, sizeof(copy_made), "copy reply");
    ASSERT_RC(xlft_copy_reply_get(copy_made, &status, &domid, msg,
                                  sizeof(msg)), 0);
    CU_ASSERT_EQUAL(status, 0);
    CU_ASSERT_EQUAL(domid, 0x8009);

    xlft_copy_dev_put(b, 0x510);
    same(b, XLFT_COPY_DEV_SIZE, copy_dev, sizeof(copy_dev),
         "copy devices");
    ASSERT_RC(xlft_copy_dev_get(copy_dev, &domid, msg, sizeof(msg)), 0);
    CU_ASSERT_EQUAL(domid, 0x510);
}

void register_golden_tests(void)
{
    CU_pSuite s = CU_add_suite("layouts: the documents' bytes", NULL, NULL);

    CU_add_test(s, "HELLO and HELLO_ACK", test_hello);
    CU_add_test(s, "LOG, ACK, HEARTBEAT, STATE, GOLIVE, SHUTDOWN, ERROR",
                test_frames);
    CU_add_test(s, "a stored log: header, block, end marker",
                test_stored_log);
    CU_add_test(s, "the copy stream's header and replies", test_copy);
}
