// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_live.c - libFuzzer target: what a peer that holds the key sends
 * once the session is established (fuzz_session covers the handshake).
 *
 * Two sessions shake hands in memory, with encryption disabled (the
 * frames are then in clear, so a fuzzer can write them; with encryption
 * every altered frame fails its tag before anything else is read).  The
 * input is then cut into frames as the channel cuts its byte stream and
 * fed to the responder.  With bit 0 of the first byte set, each frame's
 * header is first made right (magic, version, flags, the next sequence
 * number, its length), so that inputs get past the framing to what the
 * session decides on a live frame.  Every frame handed to the owner must
 * be one of the types that flow after the handshake; every refusal a
 * documented error with a message, and final.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "ft_abi.h"
#include "xlft_crypto.h"

#define TEST_NAME "fuzz_live"
#include "testutil.h"

static const uint8_t key[XLFT_KEY_SIZE] = { 0x6c, 0x69, 0x76, 0x65 };
static uint8_t frame[XLFT_FRAME_MAX];

static bool documented(int rc)
{
    return rc == -EPROTONOSUPPORT || rc == -ECONNABORTED ||
           rc == -EBADMSG || rc == -EPROTO || rc == -ENODATA ||
           rc == -ENOMSG || rc == -EMSGSIZE || rc == -EINVAL;
}

/* One handshake frame from 'from' to 'to'; the reply comes back. */
static void pass(struct xlft_session *to, uint8_t *buf, size_t len,
                 uint8_t *reply, size_t *rlen)
{
    struct xlft_msg m;

    memcpy(frame, buf, len);
    CHECK(xlft_session_recv(to, frame, len, &m, reply, rlen, NULL, 0) == 0);
}

static void handshake(struct xlft_session *i, struct xlft_session *r)
{
    uint8_t a[XLFT_REPLY_MAX], b[XLFT_REPLY_MAX];
    size_t alen, blen;
    int n;

    n = xlft_session_start(i, a, sizeof(a), NULL, 0);
    CHECK(n > 0);
    pass(r, a, (size_t)n, b, &blen);
    pass(i, b, blen, a, &alen);
    pass(r, a, alen, b, &blen);
    CHECK(xlft_session_established(i) && xlft_session_established(r));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct xlft_session_cfg cfg = {
        .key = key, .enc = XLFT_ENC_DISABLED, .domid = 4, .pair = "vm1",
        .counter = FT_COUNTER_STEPS, .cpu = FT_CPU_FTVM,
    };
    struct xlft_session *i, *r;
    uint64_t seq = 2;           /* after HELLO and the initiator's ACK */
    size_t off = 1;
    bool fix;
    int err = 0;

    if (size < 1)
        return 0;
    fix = data[0] & 1;
    cfg.initiator = true;
    cfg.role = XLFT_ROLE_PRIMARY;
    cfg.host = "hostA";
    CHECK(xlft_session_new(&i, &cfg, NULL, 0) == 0);
    cfg.initiator = false;
    cfg.role = XLFT_ROLE_SECONDARY;
    cfg.host = "hostB";
    CHECK(xlft_session_new(&r, &cfg, NULL, 0) == 0);
    handshake(i, r);

    for (size_t k = 0; k <= size / XLFT_HDR_SIZE && off < size; k++) {
        uint8_t reply[XLFT_REPLY_MAX];
        struct xlft_msg m;
        struct xlft_hdr h;
        size_t len = size - off, rlen = 0;
        char msg[256];
        int rc;

        if (!xlft_hdr_get(data + off, len, &h, NULL, 0) &&
            XLFT_HDR_SIZE + h.len < len)
            len = XLFT_HDR_SIZE + h.len;
        if (len > XLFT_FRAME_MAX)
            len = XLFT_FRAME_MAX;
        memcpy(frame, data + off, len);
        if (fix && len >= XLFT_HDR_SIZE) {
            memcpy(frame, "XFTC", 4);
            frame[4] = XLFT_WIRE_VERSION_MAX;
            xlft_put16(frame + 6, 0);
            xlft_put32(frame + 8, (uint32_t)(len - XLFT_HDR_SIZE));
            xlft_put64(frame + 12, seq);
        }
        msg[0] = '\0';
        rc = xlft_session_recv(r, frame, len, &m, reply, &rlen, msg,
                               sizeof(msg));
        CHECK(rc == 1 || rc < 0);
        CHECK(rlen <= XLFT_REPLY_MAX);
        if (rc == 1) {
            CHECK(!err);
            CHECK(m.type >= XLFT_T_LOG && m.type <= XLFT_T_SHUTDOWN);
            seq++;
        } else {
            CHECK(documented(rc) && msg[0]);
            if (err)
                CHECK(rc == err && rlen == 0);
            err = rc;
        }
        off += len;
    }
    xlft_session_free(i);
    xlft_session_free(r);
    return 0;
}
