/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_frame.c - libFuzzer target: the input is what a peer sent on the
 * logging channel, in clear.
 *
 * It is decoded frame by frame as a receiver would.  Every frame that
 * decodes must encode again to exactly the bytes it came from (so the
 * decoder accepts one spelling of each frame and the encoder can write
 * anything the decoder reads), and every refusal must be one of the
 * documented errors, with a message.  The input is also read as one
 * payload of the type its first byte names, which reaches the payload
 * checks without a valid header in front.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xlft_frame.h"
#define TEST_NAME "fuzz_frame"
#include "testutil.h"

#define MSG_POISON 0x5a

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[XLFT_FRAME_MAX];

static void check_msg(const char *msg, size_t len)
{
    CHECK(memchr(msg, '\0', len) != NULL);
    CHECK(msg[0] != '\0');
}

static void check_decoded(const struct xlft_msg *m)
{
    switch (m->type) {
    case XLFT_T_LOG:
        CHECK(m->u.log.count >= 1 && m->u.log.count <= m->u.log.len);
        CHECK(m->u.log.first_seq >= 1);
        CHECK(m->u.log.first_seq - 1 + m->u.log.count >= m->u.log.count);
        break;
    case XLFT_T_ACK:
        CHECK(m->u.ack.replayed <= m->u.ack.acked);
        break;
    case XLFT_T_STATE:
        CHECK(m->u.state.offset + m->u.state.len <= m->u.state.total);
        CHECK(m->u.state.offset + m->u.state.len >= m->u.state.offset);
        break;
    case XLFT_T_ERROR:
        CHECK(strlen(m->u.error.reason) == m->u.error.len);
        break;
    }
}

static void frames(const uint8_t *data, size_t size)
{
    char msg[200];
    size_t off = 0, i;

    /* A frame takes at least its header. */
    for (i = 0; i <= size / XLFT_HDR_SIZE; i++) {
        struct xlft_hdr h;
        struct xlft_msg m;
        int n, k;

        memset(msg, MSG_POISON, sizeof(msg));
        n = xlft_frame_get(data + off, size - off, &h, &m, msg, sizeof(msg));
        if (n < 0) {
            CHECK(n == -ENODATA || n == -EBADMSG || n == -EPROTONOSUPPORT ||
                  n == -ENOMSG || n == -EMSGSIZE);
            check_msg(msg, sizeof(msg));
            return;
        }
        CHECK(n >= (int)XLFT_HDR_SIZE && (size_t)n <= size - off);
        CHECK((size_t)n == XLFT_HDR_SIZE + h.len && h.type == m.type);
        CHECK(h.len <= XLFT_PLAIN_MAX);
        check_decoded(&m);
        CHECK(xlft_payload_size(&m) == h.len);
        k = xlft_frame_put(&m, h.version, h.seq, out, sizeof(out), msg,
                           sizeof(msg));
        CHECK(k == n);
        CHECK(memcmp(out, data + off, (size_t)n) == 0);
        off += (size_t)n;
        if (off == size)
            return;
    }
    CHECK(!"more frames than headers fit in the input");
}

static void payload(const uint8_t *data, size_t size)
{
    char msg[200];
    struct xlft_msg m;
    int rc, k;

    if (!size)
        return;
    memset(msg, MSG_POISON, sizeof(msg));
    rc = xlft_payload_get(data[0], data + 1, size - 1, &m, msg, sizeof(msg));
    if (rc) {
        CHECK(rc == -EBADMSG || rc == -ENOMSG || rc == -EPROTONOSUPPORT);
        check_msg(msg, sizeof(msg));
        return;
    }
    check_decoded(&m);
    k = xlft_payload_put(&m, out, sizeof(out), msg, sizeof(msg));
    CHECK(k >= 0 && (size_t)k == size - 1);
    CHECK(memcmp(out, data + 1, size - 1) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    frames(data, size);
    payload(data, size);
    return 0;
}
