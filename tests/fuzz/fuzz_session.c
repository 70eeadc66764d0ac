/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_session.c - libFuzzer target: the input is what reaches a
 * logging channel session before it trusts its peer.
 *
 * The input is cut into frames as the channel cuts its byte stream (by
 * the length in each header) and fed to a responder serving any pair,
 * which expects a HELLO and asks its configuration who may pair with
 * it, and to an initiator that has sent its HELLO and expects a
 * HELLO_ACK.  Without the key no input can complete a handshake, so
 * neither may ever hand a frame to its owner; every refusal must be a
 * documented error with a message; what a session sends back must be a
 * frame its peer can decode; and an error must be final.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ft_abi.h"
#include "xlft_crypto.h"
#define TEST_NAME "fuzz_session"
#include "testutil.h"

#define MSG_POISON 0x5a

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t key[XLFT_KEY_SIZE] = { 0x6b, 0x65, 0x79 };
static uint8_t frame[XLFT_FRAME_MAX];

static bool documented(int rc)
{
    return rc == -EACCES || rc == -EPROTONOSUPPORT || rc == -ECONNREFUSED ||
           rc == -ECONNABORTED || rc == -EBADMSG || rc == -EPROTO ||
           rc == -ENODATA || rc == -ENOMSG || rc == -EMSGSIZE;
}

/* A reply is one whole frame in clear: HELLO_ACK or ERROR. */
static void check_reply(const uint8_t *reply, size_t len)
{
    struct xlft_hdr h;
    struct xlft_msg m;
    char msg[200];

    if (!len)
        return;
    CHECK(len <= XLFT_REPLY_MAX);
    CHECK(xlft_frame_get(reply, len, &h, &m, msg, sizeof(msg)) == (int)len);
    CHECK(m.type == XLFT_T_HELLO_ACK || m.type == XLFT_T_ERROR);
}

static void feed(struct xlft_session *s, const uint8_t *data, size_t size)
{
    uint8_t reply[XLFT_REPLY_MAX];
    char msg[256];
    size_t off = 0, i;
    int err = 0;

    for (i = 0; i <= size / XLFT_HDR_SIZE && off < size; i++) {
        struct xlft_hdr h;
        struct xlft_msg m;
        size_t len = size - off, rlen = 0;
        int rc;

        if (!xlft_hdr_get(data + off, len, &h, NULL, 0) &&
            XLFT_HDR_SIZE + h.len < len)
            len = XLFT_HDR_SIZE + h.len;
        memcpy(frame, data + off, len);
        memset(msg, MSG_POISON, sizeof(msg));
        rc = xlft_session_recv(s, frame, len, &m, reply, &rlen, msg,
                               sizeof(msg));
        CHECK(rc <= 0);
        check_reply(reply, rlen);
        if (rc < 0) {
            CHECK(memchr(msg, '\0', sizeof(msg)) != NULL);
            CHECK(documented(rc) && msg[0] != '\0');
            CHECK(!xlft_session_established(s));
            if (err)
                CHECK(rc == err && rlen == 0);
            err = rc;
        }
        off += len;
    }
    CHECK(!xlft_session_established(s));
}

/* A host's configuration: pair vm1 with hostA, and no other. */
static int accept(void *arg, const char *pair, const char *peer_host,
                  uint8_t *k, char *why, size_t whylen)
{
    (void)arg;
    CHECK(xlft_name_ok(pair) && xlft_name_ok(peer_host));
    if (strcmp(pair, "vm1") || strcmp(peer_host, "hostA")) {
        snprintf(why, whylen, "pair %s with host %s: not configured", pair,
                 peer_host);
        return -ECONNREFUSED;
    }
    if (k)
        memcpy(k, key, XLFT_KEY_SIZE);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct xlft_session_cfg cfg = {
        .initiator = false, .role = XLFT_ROLE_SECONDARY,
        .enc = XLFT_ENC_REQUIRED, .domid = 9, .host = "hostB",
        .counter = FT_COUNTER_STEPS, .cpu = FT_CPU_FTVM, .accept = accept,
    };
    uint8_t hello[XLFT_REPLY_MAX];
    struct xlft_session *s;

    CHECK(xlft_session_new(&s, &cfg, NULL, 0) == 0);
    feed(s, data, size);
    xlft_session_free(s);

    cfg.initiator = true;
    cfg.role = XLFT_ROLE_PRIMARY;
    cfg.key = key;
    cfg.host = "hostA";
    cfg.pair = "vm1";
    CHECK(xlft_session_new(&s, &cfg, NULL, 0) == 0);
    CHECK(xlft_session_start(s, hello, sizeof(hello), NULL, 0) > 0);
    feed(s, data, size);
    xlft_session_free(s);
    return 0;
}
