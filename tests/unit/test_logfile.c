// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_logfile.c - stored logs: what is written reads back identically;
 * any damaged or cut file is refused with a message, never replayed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "ft_ring.h"
#include "xlft_logfile.h"
#include "unit.h"

/* What the logs written here say their points count. */
#define COUNTER FT_COUNTER_BRANCHES
#define CPU     FT_CPU_INTEL

static char dir[] = "/tmp/xenft-unit.XXXXXX";

static int suite_init(void)
{
    return mkdtemp(dir) ? 0 : -1;
}

static int suite_clean(void)
{
    char cmd[64];

    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *path_of(const char *name)
{
    static char p[128];

    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return p;
}

/* Encode 'n' random records into 'out'; returns the byte count. */
static size_t make_records(uint64_t seed, int n, uint8_t *out)
{
    static uint8_t dma[FT_DMA_MAX];
    struct ft_codec c;
    struct ft_point pt = { 0, 0, 0 };
    size_t len = 0;

    ft_codec_init(&c);
    for (int i = 0; i < n; i++) {
        struct ft_log_rec r;
        int k;

        random_record(&seed, &pt, &r, dma, i % 50 == 0 ? FT_DMA_MAX : 2000);
        k = ft_log_encode(&c, &r, out + len);
        CU_ASSERT_FATAL(k > 0);
        len += (size_t)k;
        if (r.kind == FT_K_DMA) {
            memcpy(out + len, r.u.dma.data, r.u.dma.len);
            len += r.u.dma.len;
        }
        ft_codec_advance(&c, &r);
    }
    return len;
}

static int write_log(const char *path, const uint8_t *recs, size_t len)
{
    struct xlft_logw *w;
    char msg[256];
    size_t off = 0;
    int rc = xlft_logw_open(&w, path, COUNTER, CPU, msg, sizeof(msg));

    if (rc)
        return rc;
    /* Append in pieces of about 30000 bytes of whole records. */
    while (off < len && !rc) {
        struct ft_log_rec r;
        uint32_t nrec;
        size_t want = len - off < 30000 ? len - off : 30000;
        int n = ft_log_scan(recs + off, (uint32_t)want, &nrec);

        if (n == 0)     /* one record larger than a piece */
            n = ft_log_decode(NULL, recs + off, (uint32_t)(len - off), &r);
        CU_ASSERT_FATAL(n > 0);
        rc = xlft_logw_append(w, recs + off, (size_t)n, msg, sizeof(msg));
        off += (size_t)n;
    }
    CU_ASSERT_EQUAL(off, len);
    return rc ? rc : xlft_logw_close(w, msg, sizeof(msg));
}

/*
 * Read a whole log: 0 and the records in 'out' if it is intact, or the
 * error (with a non-empty message in 'msg').
 */
static int read_log(const char *path, uint8_t *out, size_t *len,
                    uint64_t *nrec, char *msg, size_t msglen)
{
    struct xlft_logr *r;
    const uint8_t *recs;
    size_t n;
    uint32_t k;
    uint64_t first;
    int rc;

    msg[0] = '\0';
    *len = 0;
    *nrec = 0;
    rc = xlft_logr_open(&r, path, msg, msglen);
    if (rc)
        return rc;
    while ((rc = xlft_logr_next(r, &recs, &n, &k, &first, msg, msglen))
           == 1) {
        CU_ASSERT_EQUAL(first, *nrec + 1);
        memcpy(out + *len, recs, n);
        *len += n;
        *nrec += k;
    }
    xlft_logr_close(r);
    return rc;
}

static void test_round_trip(void)
{
    size_t cap = 8u << 20, len, got_len;
    uint8_t *recs = malloc(cap), *got = malloc(cap);
    uint64_t nrec;
    char msg[256];

    len = make_records(3, 20000, recs);
    CU_ASSERT_FATAL(len < cap);
    ASSERT_RC(write_log(path_of("good.log"), recs, len), 0);
    ASSERT_RC(read_log(path_of("good.log"), got, &got_len, &nrec, msg,
                       sizeof(msg)), 0);
    CU_ASSERT_EQUAL(nrec, 20000);
    CU_ASSERT_EQUAL(got_len, len);
    CU_ASSERT(memcmp(recs, got, len) == 0);

    /* An empty log is a valid log. */
    ASSERT_RC(write_log(path_of("empty.log"), recs, 0), 0);
    ASSERT_RC(read_log(path_of("empty.log"), got, &got_len, &nrec, msg,
                       sizeof(msg)), 0);
    CU_ASSERT_EQUAL(nrec, 0);
    free(recs);
    free(got);
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;

    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fclose(f);
    return n;
}

static void copy_damaged(const char *from, const char *to, long cut,
                         long flip)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    long i = 0;
    int ch;

    CU_ASSERT_FATAL(in && out);
    while ((ch = fgetc(in)) != EOF && i != cut) {
        if (i == flip)
            ch ^= 0x10;
        fputc(ch, out);
        i++;
    }
    fclose(in);
    fclose(out);
}

/* Every cut and every flipped byte of a small log is detected. */
static void test_damage(void)
{
    size_t cap = 1u << 20, len, got_len;
    uint8_t *recs = malloc(cap), *got = malloc(cap);
    const char *good = strdup(path_of("small.log"));
    const char *bad = strdup(path_of("bad.log"));
    uint64_t nrec;
    char msg[256];
    long size;

    len = make_records(9, 300, recs);
    ASSERT_RC(write_log(good, recs, len), 0);
    size = file_size(good);
    CU_ASSERT_FATAL(size > 0);

    for (long cut = 0; cut < size; cut += cut < 200 ? 1 : 97) {
        int rc;

        copy_damaged(good, bad, cut, -1);
        rc = read_log(bad, got, &got_len, &nrec, msg, sizeof(msg));
        CU_ASSERT(rc == -ENODATA || rc == -EBADMSG);
        CU_ASSERT(msg[0] != '\0');
        /* Whatever was handed out before the cut was exact. */
        CU_ASSERT(got_len <= len && memcmp(recs, got, got_len) == 0);
    }
    copy_damaged(good, bad, size - 1, -1);
    ASSERT_RC(read_log(bad, got, &got_len, &nrec, msg, sizeof(msg)),
              -ENODATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "truncated"));

    for (long flip = 0; flip < size; flip += flip < 300 ? 1 : 53) {
        int rc;

        copy_damaged(good, bad, -1, flip);
        rc = read_log(bad, got, &got_len, &nrec, msg, sizeof(msg));
        CU_ASSERT(rc == -EBADMSG || rc == -EPROTONOSUPPORT);
        CU_ASSERT(msg[0] != '\0');
        CU_ASSERT(got_len <= len && memcmp(recs, got, got_len) == 0);
        if (rc != -EBADMSG && rc != -EPROTONOSUPPORT)
            fprintf(stderr, "\nflip at %ld: %d %s\n", flip, rc, msg);
    }

    /* Data after the end marker. */
    copy_damaged(good, bad, -1, -1);
    FILE *f = fopen(bad, "ab");
    fputs("junk", f);
    fclose(f);
    ASSERT_RC(read_log(bad, got, &got_len, &nrec, msg, sizeof(msg)),
              -EBADMSG);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "after the end marker"));

    /* Not a log at all; a missing file. */
    f = fopen(bad, "wb");
    fputs("this is not a xenft log, just text\n", f);
    fclose(f);
    ASSERT_RC(read_log(bad, got, &got_len, &nrec, msg, sizeof(msg)),
              -EBADMSG);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "not a xenft log"));
    ASSERT_RC(read_log(path_of("nonexistent.log"), got, &got_len, &nrec,
                       msg, sizeof(msg)), -ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "nonexistent.log"));
    free(recs);
    free(got);
    free((void *)good);
    free((void *)bad);
}

/*
 * A stored log header of version 'v' whose records are of format 'lv'
 * and whose points count 'counter' on 'cpu', checksum and all, alone
 * in a file: what reading that file gives.
 */
static int header_only(uint8_t v, uint8_t lv, uint8_t counter, uint8_t cpu,
                       char *msg, size_t msglen)
{
    uint8_t hdr[32] = { 'X', 'E', 'N', 'F', 'T', 'L', 'O', 'G', v, 0, 0, 0,
                        32, 0, 0, 0, lv, 0, counter, cpu };
    uint64_t h = XXH3_64bits(hdr, 24);
    size_t got_len;
    uint64_t nrec;
    FILE *f;

    for (int i = 0; i < 8; i++)
        hdr[24 + i] = (uint8_t)(h >> (8 * i));
    f = fopen(path_of("vx.log"), "wb");
    CU_ASSERT_FATAL(f != NULL);
    fwrite(hdr, 1, sizeof(hdr), f);
    fclose(f);
    return read_log(path_of("vx.log"), NULL, &got_len, &nrec, msg, msglen);
}

static void refused(uint8_t v, uint8_t lv, const char *want)
{
    char msg[256];

    ASSERT_RC(header_only(v, lv, COUNTER, CPU, msg, sizeof(msg)),
              -EPROTONOSUPPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
}

static void test_version(void)
{
    char msg[256];

    CU_ASSERT_EQUAL(XLFT_LOGFILE_VERSION, 3);
    CU_ASSERT_EQUAL(FT_LOG_VERSION, 4);
    /* What older builds wrote: the records' version at offset 8. */
    refused(1, 0, "stored log version 1");
    refused(2, 0, "stored log version 2");
    refused(4, FT_LOG_VERSION, "stored log version 4");
    refused(3, 1, "records of log format version 1");
    refused(3, 2, "records of log format version 2");
    refused(3, 3, "records of log format version 3");
    refused(3, 5, "records of log format version 5");
    /* The same header of this version reads (as a cut log: no blocks). */
    ASSERT_RC(header_only(3, FT_LOG_VERSION, COUNTER, CPU, msg, sizeof(msg)),
              -ENODATA);
}

/* A header that names no counter or CPU is damaged, not merely other. */
static void test_kind_undefined(void)
{
    static const uint8_t bad[][2] = {
        { FT_COUNTER_MAX + 1, FT_CPU_INTEL },
        { FT_COUNTER_STEPS, FT_CPU_UNKNOWN },
        { FT_COUNTER_STEPS, FT_CPU_MAX + 1 },
    };
    struct xlft_logw *w;
    char msg[256];

    for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ASSERT_RC(header_only(3, FT_LOG_VERSION, bad[i][0], bad[i][1], msg,
                              sizeof(msg)), -EBADMSG);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, "not a kind of log"));
        ASSERT_RC(xlft_logw_open(&w, path_of("k.log"), bad[i][0], bad[i][1],
                                 msg, sizeof(msg)), -EINVAL);
        CU_ASSERT_PTR_NULL(w);
    }
}

/* A replayer takes a log of its own counter and CPU only. */
static void test_kind_expected(void)
{
    struct xlft_logw *w;
    struct xlft_logr *r;
    uint32_t counter, cpu;
    char msg[256];

    ASSERT_RC(xlft_logw_open(&w, path_of("k.log"), FT_COUNTER_BRANCHES,
                             FT_CPU_INTEL, msg, sizeof(msg)), 0);
    ASSERT_RC(xlft_logw_close(w, msg, sizeof(msg)), 0);
    ASSERT_RC(xlft_logr_open(&r, path_of("k.log"), msg, sizeof(msg)), 0);
    xlft_logr_kind(r, &counter, &cpu);
    CU_ASSERT_EQUAL(counter, FT_COUNTER_BRANCHES);
    CU_ASSERT_EQUAL(cpu, FT_CPU_INTEL);
    ASSERT_RC(xlft_logr_expect(r, FT_COUNTER_BRANCHES, FT_CPU_INTEL, msg,
                               sizeof(msg)), 0);
    ASSERT_RC(xlft_logr_expect(r, FT_COUNTER_STEPS, FT_CPU_INTEL, msg,
                               sizeof(msg)), -EPROTONOSUPPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "count branches on Intel, but this "
                                       "replay counts steps on Intel"));
    ASSERT_RC(xlft_logr_expect(r, FT_COUNTER_BRANCHES, FT_CPU_AMD, msg,
                               sizeof(msg)), -EPROTONOSUPPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "on AMD"));
    xlft_logr_close(r);
}

/* A log file from raw parts, checksums and all (layout: FORMAT.md). */
static void write_raw_log(const char *path, const uint8_t *payload,
                          uint32_t len, uint32_t nrec)
{
    uint8_t hdr[32] = { 'X', 'E', 'N', 'F', 'T', 'L', 'O', 'G',
                        XLFT_LOGFILE_VERSION, 0, 0, 0, 32, 0, 0, 0,
                        FT_LOG_VERSION, 0, COUNTER, CPU };
    uint8_t blk[2][40];
    FILE *f = fopen(path, "wb");

    for (int i = 0; i < 8; i++)
        hdr[24 + i] = (uint8_t)(XXH3_64bits(hdr, 24) >> (8 * i));
    for (int b = 0; b < 2; b++) {
        uint32_t l = b ? 0 : len, n = b ? 0 : nrec;
        uint64_t seq = b ? nrec + 1 : 1, ph = XXH3_64bits(payload, l);

        memset(blk[b], 0, 40);
        memcpy(blk[b], "XBLK", 4);
        for (int i = 0; i < 4; i++) {
            blk[b][4 + i] = (uint8_t)(l >> (8 * i));
            blk[b][16 + i] = (uint8_t)(n >> (8 * i));
        }
        blk[b][20] = (uint8_t)b;
        for (int i = 0; i < 8; i++) {
            blk[b][8 + i] = (uint8_t)(seq >> (8 * i));
            blk[b][24 + i] = (uint8_t)(ph >> (8 * i));
        }
        uint64_t hh = XXH3_64bits(blk[b], 32);
        for (int i = 0; i < 8; i++)
            blk[b][32 + i] = (uint8_t)(hh >> (8 * i));
    }
    fwrite(hdr, 1, 32, f);
    fwrite(blk[0], 1, 40, f);
    fwrite(payload, 1, len, f);
    fwrite(blk[1], 1, 40, f);
    fclose(f);
}

/* A record that is malformed given the records before it. */
static void test_malformed_in_context(void)
{
    static const uint8_t good[] = { FT_K_PIO | 0x10, 1, 0x00, 0x07,
                                    FT_K_PIO | 0x10 | 0x80, 1, 0x08 };
    static const uint8_t bad[] = { FT_K_PIO | 0x10 | 0x80, 1, 0x08 };
    struct xlft_logw *w;
    uint8_t got[64];
    size_t got_len;
    uint64_t nrec;
    char msg[256];

    /* The raw writer is right: a good log reads back. */
    write_raw_log(path_of("raw.log"), good, sizeof(good), 2);
    ASSERT_RC(read_log(path_of("raw.log"), got, &got_len, &nrec, msg,
                       sizeof(msg)), 0);
    CU_ASSERT_EQUAL(nrec, 2);

    /* A "same port as last time" with no last time is refused... */
    write_raw_log(path_of("raw.log"), bad, sizeof(bad), 1);
    ASSERT_RC(read_log(path_of("raw.log"), got, &got_len, &nrec, msg,
                       sizeof(msg)), -EBADMSG);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "malformed record at record 1"));
    CU_ASSERT_EQUAL(nrec, 0);

    /* ...by the writer too, which appends nothing. */
    ASSERT_RC(xlft_logw_open(&w, path_of("w2.log"), COUNTER, CPU, msg,
                             sizeof(msg)), 0);
    ASSERT_RC(xlft_logw_append(w, bad, sizeof(bad), msg, sizeof(msg)),
              -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "malformed"));
    ASSERT_RC(xlft_logw_append(w, good, sizeof(good), msg, sizeof(msg)), 0);
    ASSERT_RC(xlft_logw_append(w, bad + 0, 0, msg, sizeof(msg)), 0);
    CU_ASSERT_EQUAL(xlft_logw_seq(w), 2);
    ASSERT_RC(xlft_logw_close(w, msg, sizeof(msg)), 0);

    /* An error is final: reading on does not turn it into a clean end. */
    struct xlft_logr *r;
    const uint8_t *recs;
    size_t len;
    uint32_t k;
    uint64_t first;
    write_raw_log(path_of("raw.log"), bad, sizeof(bad), 1);
    ASSERT_RC(xlft_logr_open(&r, path_of("raw.log"), msg, sizeof(msg)), 0);
    ASSERT_RC(xlft_logr_next(r, &recs, &len, &k, &first, msg, sizeof(msg)),
              -EBADMSG);
    ASSERT_RC(xlft_logr_next(r, &recs, &len, &k, &first, msg, sizeof(msg)),
              -EBADMSG);
    xlft_logr_close(r);
}

static void test_writer_errors(void)
{
    struct xlft_logw *w;
    char msg[256];
    uint8_t bad[] = { 0x0f, 0 };
    uint8_t rec[] = { FT_K_NMI | 0x10, 1 };

    ASSERT_RC(xlft_logw_open(&w, "/nonexistent-dir/x.log", COUNTER, CPU,
                             msg, sizeof(msg)), -ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "/nonexistent-dir/x.log"));

    ASSERT_RC(xlft_logw_open(&w, path_of("w.log"), COUNTER, CPU, msg,
                             sizeof(msg)), 0);
    ASSERT_RC(xlft_logw_append(w, bad, sizeof(bad), msg, sizeof(msg)),
              -EINVAL);
    ASSERT_RC(xlft_logw_append(w, rec, 1, msg, sizeof(msg)), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "incomplete"));
    CU_ASSERT_EQUAL(xlft_logw_seq(w), 0);
    ASSERT_RC(xlft_logw_append(w, rec, sizeof(rec), msg, sizeof(msg)), 0);
    CU_ASSERT_EQUAL(xlft_logw_seq(w), 1);
    ASSERT_RC(xlft_logw_close(w, msg, sizeof(msg)), 0);

    /* A full disk is an error with a message, not a silent loss. */
    CU_ASSERT_FATAL(access("/dev/full", W_OK) == 0);
    ASSERT_RC(xlft_logw_open(&w, "/dev/full", COUNTER, CPU, msg,
                             sizeof(msg)), -ENOSPC);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "No space"));
}

void register_logfile_tests(void)
{
    CU_pSuite s = CU_add_suite("stored logs", suite_init, suite_clean);

    CU_add_test(s, "written log reads back identically", test_round_trip);
    CU_add_test(s, "every cut and flipped byte is detected", test_damage);
    CU_add_test(s, "another format version is refused", test_version);
    CU_add_test(s, "a header naming no counter or CPU is refused",
                test_kind_undefined);
    CU_add_test(s, "a log of another counter or CPU is not replayed",
                test_kind_expected);
    CU_add_test(s, "records malformed in context are refused",
                test_malformed_in_context);
    CU_add_test(s, "writer errors: bad records, no dir, full disk",
                test_writer_errors);
}
