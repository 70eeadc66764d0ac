/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_nfnl.c - libFuzzer target: the input is what the kernel sent on
 * the network gate's netlink sockets.  Its first byte chooses the
 * decoder (queue packets, acknowledgements, a table dump); the rest is
 * the datagram.  Every result must be one the header documents; packet
 * ids go through the held-packet queue as the gate would use them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xlft_nfnl.h"
#include "xlft_pktq.h"
#define TEST_NAME "fuzz_nfnl"
#include "testutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
    struct xlft_pktq q;
    size_t ids, tables;
};

static void got_id(void *opaque, uint32_t id)
{
    struct seen *s = opaque;
    uint32_t last = 0;

    s->ids++;
    if (xlft_pktq_push(&s->q, id, s->ids / 3) == -ENOBUFS) {
        size_t n = xlft_pktq_upto(&s->q, s->ids / 3, &last);

        xlft_pktq_pop(&s->q, n ? n : 1);
    }
    CHECK(xlft_pktq_count(&s->q) <= s->q.cap);
}

static int got_table(void *opaque, uint8_t family, const char *name)
{
    struct seen *s = opaque;

    (void)family;
    CHECK(strncmp(name, XLFT_NFNL_TABLE_PREFIX,
                  strlen(XLFT_NFNL_TABLE_PREFIX)) == 0);
    CHECK(strlen(name) > strlen(XLFT_NFNL_TABLE_PREFIX));
    s->tables++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct seen s = { .ids = 0 };
    uint8_t *copy;
    int rc, err = 0;

    if (size < 1)
        return 0;
    /* Exactly the datagram's bytes: reads past them are caught. */
    copy = malloc(size - 1 ? size - 1 : 1);
    if (!copy || xlft_pktq_init(&s.q, 8)) {
        free(copy);
        return 0;
    }
    memcpy(copy, data + 1, size - 1);
    switch (data[0] % 3) {
    case 0:
        rc = xlft_nfnl_decode_packets(copy, size - 1, 7, got_id, &s, &err);
        CHECK(rc == 0 || rc == -EBADMSG);
        CHECK(err <= 0 && err >= -4095);
        CHECK(s.ids <= (size - 1) / 16);
        break;
    case 1:
        rc = xlft_nfnl_decode_acks(copy, size - 1, &err);
        CHECK(rc == -EBADMSG || (rc >= 0 && (size_t)rc <= (size - 1) / 16));
        CHECK(err <= 0 && err >= -4095);
        break;
    default:
        rc = xlft_nfnl_decode_tables(copy, size - 1, got_table, &s);
        CHECK(rc == 0 || rc == 1 || (rc < 0 && rc >= -4095));
        CHECK(s.tables <= (size - 1) / 16);
        break;
    }
    xlft_pktq_fini(&s.q);
    free(copy);
    return 0;
}
