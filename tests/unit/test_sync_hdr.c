// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_sync_hdr.c - the header of the state a primary streams to its
 * secondary (tools/ftd/sync_hdr.h): a round trip, and each kind of bad
 * one refused with a message.
 */
#include <errno.h>
#include <string.h>

#include "sync_hdr.h"
#include "unit.h"

static char msg[256];

static int get(const uint8_t *b, uint64_t total, struct sync_hdr *h)
{
    msg[0] = '\0';
    return sync_hdr_get(b, total, h, msg, sizeof(msg));
}

static void test_sync_hdr(void)
{
    struct sync_hdr h = { .gen = 77, .size = 1000 }, g;
    uint8_t b[SYNC_HDR], c[SYNC_HDR];

    strcpy(h.name, "kv-1.a_b");
    sync_hdr_put(b, &h);
    /* Little-endian, where WIRE.md's table puts each field. */
    CU_ASSERT_EQUAL(memcmp(b, "XFTDSYNC\x02\0\0\0\0\0\0\0M\0\0\0\0\0\0\0"
                           "\xe8\x03\0\0\0\0\0\0kv-1.a_b", 40), 0);
    CU_ASSERT_EQUAL(get(b, SYNC_HDR + 1000, &g), 0);
    CU_ASSERT_EQUAL(g.gen, 77);
    CU_ASSERT_EQUAL(g.size, 1000);
    CU_ASSERT_STRING_EQUAL(g.name, "kv-1.a_b");

    CU_ASSERT_EQUAL(get(b, SYNC_HDR + 999, &g), -EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "1000 bytes"));
    CU_ASSERT_EQUAL(get(b, 10, &g), -EPROTO);
    memcpy(c, b, sizeof(c));
    c[0] = 'Y';
    CU_ASSERT_EQUAL(get(c, SYNC_HDR + 1000, &g), -EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "sync header"));
    memcpy(c, b, sizeof(c));
    c[8] = 3;
    CU_ASSERT_EQUAL(get(c, SYNC_HDR + 1000, &g), -EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "version 3"));
    memcpy(c, b, sizeof(c));
    c[13] = 1;
    CU_ASSERT_EQUAL(get(c, SYNC_HDR + 1000, &g), -EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "unknown bits"));
    /* A name: not empty, NUL-padded, a pair's characters, printable. */
    memcpy(c, b, sizeof(c));
    memset(c + 32, 0, SYNC_NAME);
    CU_ASSERT_EQUAL(get(c, SYNC_HDR + 1000, &g), -EPROTO);
    memcpy(c, b, sizeof(c));
    c[SYNC_HDR - 1] = 'x';
    CU_ASSERT_EQUAL(get(c, SYNC_HDR + 1000, &g), -EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "after its name"));
    memcpy(c, b, sizeof(c));
    c[34] = '\n';
    CU_ASSERT_EQUAL(get(c, SYNC_HDR + 1000, &g), -EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "characters"));
    memcpy(c, b, sizeof(c));
    memset(c + 32, 'a', 65);
    CU_ASSERT_EQUAL(get(c, SYNC_HDR + 1000, &g), -EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "65 bytes"));
}

void register_sync_hdr_tests(void)
{
    CU_pSuite s = CU_add_suite("state stream header", NULL, NULL);

    CU_add_test(s, "round trip; magic, version, size, name refused",
                test_sync_hdr);
}
