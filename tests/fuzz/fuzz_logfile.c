/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_logfile.c - libFuzzer target: the input is a stored log file.
 *
 * It is read block by block as ftd reads a log to replay it, and the
 * records of each block are decoded with one codec carried across
 * blocks.  The reader must never hand out a block whose framing,
 * checksum, sequence numbers or record structure are wrong, and every
 * error must come with a message, since that message is all an operator
 * gets when a log is refused.
 *
 * Each input is read twice: as it is, and with its header and block
 * checksums recomputed.  Random mutations almost never keep an XXH3
 * checksum right, so without the second pass the fuzzer would hardly
 * get past the checksum test to the framing, sequence and record checks
 * behind it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "ft_log.h"
#include "xlft_logfile.h"
#define TEST_NAME "fuzz_logfile"
#include "testutil.h"

/*
 * The stored layout (hvm/core/FORMAT.md, "Stored logs"), needed only to
 * recompute checksums: a 32-byte file header with the XXH3-64 of its
 * first 24 bytes at 24, then blocks of a 40-byte header (payload length
 * at 4, XXH3-64 of the payload at 24, of header bytes 0-31 at 32) and
 * the payload.
 */
#define FILE_HDR_SIZE   32u
#define FILE_HDR_HASHED 24u
#define BLOCK_HDR_SIZE  40u
#define BLOCK_PAY_HASH  24u
#define BLOCK_HDR_HASH  32u

/* Filled into the message buffer so that an unwritten message shows. */
#define MSG_POISON 0x5a

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An error must leave a non-empty, NUL-terminated message. */
static void check_msg(const char *msg, size_t len)
{
    CHECK(memchr(msg, '\0', len) != NULL);
    CHECK(msg[0] != '\0');
}

/*
 * The records of one block, with the codec the blocks before left.  The
 * reader decodes every value before it hands a block out (ft_log_check),
 * so every record must decode here too.
 */
static void decode_block(struct ft_codec *c, const uint8_t *recs,
                         size_t len, uint32_t nrec)
{
    uint32_t off = 0, k = 0;

    while (off < len) {
        struct ft_log_rec r, z;
        int n = ft_log_decode(c, recs + off, (uint32_t)(len - off), &r);
        int nz = ft_log_decode(NULL, recs + off, (uint32_t)(len - off), &z);

        /* Values were checked: no record is cut or malformed. */
        CHECK(nz > 0 && n == nz && r.head <= FT_LOG_HEAD_MAX);
        ft_codec_advance(c, &r);
        off += (uint32_t)n;
        k++;
    }
    CHECK(off == len && k == nrec);
}

static uint32_t get_le32(const uint8_t *p)
{
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * Give the file header and every block header in 'buf' a correct
 * checksum, and every block whose payload is all there a correct payload
 * checksum.  A header whose length runs past the end is still fixed, so
 * that the reader gets to its length checks.
 */
static void fix_checksums(uint8_t *buf, size_t size)
{
    size_t off = FILE_HDR_SIZE;

    if (size < FILE_HDR_SIZE)
        return;
    put_le64(buf + FILE_HDR_HASHED, XXH3_64bits(buf, FILE_HDR_HASHED));
    while (size - off >= BLOCK_HDR_SIZE) {
        uint8_t *h = buf + off;
        uint32_t plen = get_le32(h + 4);
        bool whole = plen <= size - off - BLOCK_HDR_SIZE;

        /* The header checksum covers the payload checksum: that first. */
        if (whole)
            put_le64(h + BLOCK_PAY_HASH,
                     XXH3_64bits(h + BLOCK_HDR_SIZE, plen));
        put_le64(h + BLOCK_HDR_HASH, XXH3_64bits(h, BLOCK_HDR_HASH));
        if (!whole)
            break;
        off += BLOCK_HDR_SIZE + plen;
    }
}

/* Read the log in 'buf' (which is handed to fmemopen) to its end. */
static void read_log(uint8_t *buf, size_t size)
{
    char msg[160];
    struct xlft_logr *r = NULL;
    struct ft_codec c;
    uint64_t want_seq = 1;
    size_t i, max_blocks;
    FILE *fp = fmemopen(buf, size, "rb");
    int rc;

    CHECK(fp != NULL);

    memset(msg, MSG_POISON, sizeof(msg));
    rc = xlft_logr_open_fp(&r, fp, "fuzz.log", msg, sizeof(msg));
    if (rc) {
        /* The reader closed fp. */
        CHECK(rc < 0 && r == NULL);
        check_msg(msg, sizeof(msg));
        return;
    }
    CHECK(r != NULL);

    /* A block takes at least its header. */
    max_blocks = size / BLOCK_HDR_SIZE + 2;
    ft_codec_init(&c);
    for (i = 0; i < max_blocks; i++) {
        const uint8_t *recs = NULL;
        size_t len = 0;
        uint32_t nrec = 0, scanned;
        uint64_t first = 0;

        memset(msg, MSG_POISON, sizeof(msg));
        rc = xlft_logr_next(r, &recs, &len, &nrec, &first, msg,
                            sizeof(msg));
        if (rc == 0) {
            /* The end marker, and nothing after it. */
            CHECK(xlft_logr_next(r, &recs, &len, &nrec, &first, msg,
                                 sizeof(msg)) == 0);
            break;
        }
        if (rc < 0) {
            CHECK(rc == -EBADMSG || rc == -ENODATA || rc == -EIO);
            check_msg(msg, sizeof(msg));
            break;
        }
        CHECK(rc == 1);

        /* A block continues the sequence and holds whole records. */
        CHECK(recs != NULL && len <= XLFT_LOG_BLOCK_MAX);
        CHECK(first == want_seq);
        CHECK(len == 0 || nrec > 0);
        want_seq += nrec;
        CHECK(ft_log_scan(recs, (uint32_t)len, &scanned) == (int)len);
        CHECK(scanned == nrec);
        decode_block(&c, recs, len, nrec);
    }
    CHECK(i < max_blocks);
    xlft_logr_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* fmemopen wants a writable buffer, even to read. */
    uint8_t *copy = malloc(size ? size : 1);

    CHECK(copy != NULL);
    if (size)
        memcpy(copy, data, size);
    read_log(copy, size);
    fix_checksums(copy, size);
    /* Skip the second pass when it would read the same bytes again. */
    if (size && memcmp(copy, data, size))
        read_log(copy, size);
    free(copy);
    return 0;
}
