// SPDX-License-Identifier: GPL-2.0-only
/*
 * logfile.c - stored logs in checksummed blocks (FORMAT.md, "Stored
 * logs").  Every block is checked (XXH3-64, framing, sequence numbers,
 * record structure) before any of its records is handed out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "ft_log.h"
#include "ft_ring.h"
#include "xlft_logfile.h"
#include "bytes.h"
#include "say.h"

#define FILE_MAGIC    "XENFTLOG"
#define BLOCK_MAGIC   0x4b4c4258u      /* "XBLK" little-endian */

_Static_assert(sizeof(FILE_MAGIC) - 1 == XLFT_SIZEOF(logfile_hdr, magic),
               "log file magic of another size than its field");

struct xlft_logw {
    FILE *fp;
    char *path;
    int error;              /* a failed write: final */
    struct ft_codec codec;  /* state after the last record appended */
    uint8_t *buf;          /* block header space, then payload */
    size_t len;            /* payload bytes buffered */
    uint32_t nrec;         /* records buffered */
    uint64_t seq;          /* last record appended */
    uint64_t block_seq;    /* first record of the buffered block */
};

struct xlft_logr {
    FILE *fp;
    char *name;
    uint8_t *buf;
    size_t cap;            /* bytes allocated at buf */
    struct ft_codec codec; /* state after the last record returned */
    uint64_t off;          /* file offset of the next block */
    uint64_t seq;          /* last record returned */
    uint32_t counter, cpu; /* from the header */
    bool ended;
    int error;             /* the first error, returned from then on */
};

/* A failed write leaves the file in an unknown state: it is final. */
static int write_all(struct xlft_logw *w, const void *p, size_t n,
                     char *msg, size_t msglen)
{
    if (fwrite(p, 1, n, w->fp) != n || fflush(w->fp)) {
        int err = errno ? errno : EIO;

        xlft_say(msg, msglen, "%s: write failed: %s", w->path, strerror(err));
        w->error = -err;
        return -err;
    }
    return 0;
}

static int write_block(struct xlft_logw *w, uint32_t flags,
                       char *msg, size_t msglen)
{
    uint8_t *h = w->buf;

    XLFT_PUT(32, h, logblock_hdr, magic, BLOCK_MAGIC);
    XLFT_PUT(32, h, logblock_hdr, len, (uint32_t)w->len);
    XLFT_PUT(64, h, logblock_hdr, first_seq, w->block_seq);
    XLFT_PUT(32, h, logblock_hdr, count, w->nrec);
    XLFT_PUT(32, h, logblock_hdr, flags, flags);
    XLFT_PUT(64, h, logblock_hdr, data_sum,
             XXH3_64bits(h + XLFT_LOGBLOCK_HDR_SIZE, w->len));
    XLFT_PUT(64, h, logblock_hdr, hdr_sum,
             XXH3_64bits(h, XLFT_OFF(logblock_hdr, hdr_sum)));
    errno = 0;
    int rc = write_all(w, h, XLFT_LOGBLOCK_HDR_SIZE + w->len, msg, msglen);
    if (rc)
        return rc;
    w->len = 0;
    w->nrec = 0;
    w->block_seq = w->seq + 1;
    return 0;
}

/* Closes the file, if open, and frees 'w'; NULL is nothing to free. */
static void logw_free(struct xlft_logw *w)
{
    if (!w)
        return;
    if (w->fp)
        fclose(w->fp);
    free(w->buf);
    free(w->path);
    free(w);
}

int xlft_logw_open(struct xlft_logw **out, const char *path,
                   uint32_t counter, uint32_t cpu, char *msg, size_t msglen)
{
    struct xlft_logw *w = NULL;
    uint8_t hdr[XLFT_LOGFILE_HDR_SIZE] = { 0 };
    int rc;

    *out = NULL;
    if (!ft_kind_defined(counter, cpu)) {
        xlft_say(msg, msglen, "%s: counter %" PRIu32 " on CPU %" PRIu32
                 " is not a kind of log", path, counter, cpu);
        rc = -EINVAL;
        goto out;
    }
    w = calloc(1, sizeof(*w));
    if (!w) {
        xlft_say(msg, msglen, "%s: out of memory", path);
        rc = -ENOMEM;
        goto out;
    }
    w->path = strdup(path);
    w->buf = malloc(XLFT_LOGBLOCK_HDR_SIZE + XLFT_LOG_BLOCK_TARGET +
                    FT_LOG_REC_MAX);
    if (!w->path || !w->buf) {
        xlft_say(msg, msglen, "%s: out of memory", path);
        rc = -ENOMEM;
        goto out;
    }
    w->fp = fopen(path, "wb");
    if (!w->fp) {
        rc = -errno;
        xlft_say(msg, msglen, "cannot create %s: %s", path, strerror(errno));
        goto out;
    }
    memcpy(XLFT_AT(hdr, logfile_hdr, magic), FILE_MAGIC,
           XLFT_SIZEOF(logfile_hdr, magic));
    XLFT_PUT(32, hdr, logfile_hdr, version, XLFT_LOGFILE_VERSION);
    XLFT_PUT(32, hdr, logfile_hdr, hdr_size, XLFT_LOGFILE_HDR_SIZE);
    XLFT_PUT(16, hdr, logfile_hdr, log_version, FT_LOG_VERSION);
    XLFT_PUT(8, hdr, logfile_hdr, counter, counter);
    XLFT_PUT(8, hdr, logfile_hdr, cpu, cpu);
    XLFT_PUT(32, hdr, logfile_hdr, reserved, 0);
    XLFT_PUT(64, hdr, logfile_hdr, hdr_sum,
             XXH3_64bits(hdr, XLFT_OFF(logfile_hdr, hdr_sum)));
    w->block_seq = 1;
    ft_codec_init(&w->codec);
    errno = 0;
    rc = write_all(w, hdr, sizeof(hdr), msg, msglen);
    if (rc)
        goto out;
    *out = w;
    w = NULL;

out:
    logw_free(w);
    return rc;
}

int xlft_logw_append(struct xlft_logw *w, const uint8_t *recs, size_t len,
                     char *msg, size_t msglen)
{
    struct ft_codec next = w->codec;
    uint32_t nrec;
    int n;

    if (w->error) {
        xlft_say(msg, msglen, "%s: log unusable after an earlier write error",
            w->path);
        return w->error;
    }
    if (len > INT32_MAX) {
        xlft_say(msg, msglen, "%s: %zu bytes in one append (at most %d)",
            w->path, len, INT32_MAX);
        return -EINVAL;
    }
    /* Check every value first, so that a bad call appends nothing. */
    n = ft_log_check(&next, recs, (uint32_t)len, &nrec);
    if (n < 0 || (size_t)n != len) {
        xlft_say(msg, msglen, "%s: record %" PRIu64 " to append is %s",
            w->path, w->seq + 1 + nrec, n < 0 ? "malformed" : "incomplete");
        return -EINVAL;
    }

    for (size_t off = 0; off < len; ) {
        struct ft_log_rec r;

        n = ft_log_decode(NULL, recs + off, (uint32_t)(len - off), &r);
        if (w->len && w->len + (size_t)n > XLFT_LOG_BLOCK_TARGET) {
            int rc = write_block(w, 0, msg, msglen);
            if (rc)
                return rc;
        }
        memcpy(w->buf + XLFT_LOGBLOCK_HDR_SIZE + w->len, recs + off,
               (size_t)n);
        w->len += (size_t)n;
        w->nrec++;
        w->seq++;
        off += (size_t)n;
    }
    w->codec = next;
    return 0;
}

int xlft_logw_flush(struct xlft_logw *w, char *msg, size_t msglen)
{
    if (w->error) {
        xlft_say(msg, msglen, "%s: log unusable after an earlier write error",
            w->path);
        return w->error;
    }
    return w->len ? write_block(w, 0, msg, msglen) : 0;
}

uint64_t xlft_logw_seq(const struct xlft_logw *w)
{
    return w->seq;
}

int xlft_logw_close(struct xlft_logw *w, char *msg, size_t msglen)
{
    int rc = xlft_logw_flush(w, msg, msglen);

    if (!rc)
        rc = write_block(w, XLFT_LOGBLOCK_F_END, msg, msglen);
    if (!rc && fsync(fileno(w->fp))) {
        rc = -errno;
        xlft_say(msg, msglen, "%s: fsync failed: %s", w->path, strerror(errno));
    }
    if (fclose(w->fp) && !rc) {
        rc = -errno;
        xlft_say(msg, msglen, "%s: close failed: %s", w->path, strerror(errno));
    }
    w->fp = NULL;
    logw_free(w);
    return rc;
}

void xlft_logw_abandon(struct xlft_logw *w)
{
    if (!w->error && w->len)
        write_block(w, 0, NULL, 0);
    logw_free(w);
}

/* Read exactly n bytes: 1 if all came, 0 if the file ended first. */
static int read_exact(struct xlft_logr *r, void *p, size_t n, size_t *got)
{
    *got = fread(p, 1, n, r->fp);
    if (*got == n)
        return 1;
    return ferror(r->fp) ? -EIO : 0;
}

int xlft_logr_open_fp(struct xlft_logr **out, FILE *fp, const char *name,
                      char *msg, size_t msglen)
{
    struct xlft_logr *r = calloc(1, sizeof(*r));
    uint8_t hdr[XLFT_LOGFILE_HDR_SIZE];
    size_t got;
    int rc, whole;

    *out = NULL;
    if (!r) {
        xlft_say(msg, msglen, "%s: out of memory", name);
        rc = -ENOMEM;
        goto out;
    }
    r->fp = fp;
    fp = NULL;
    r->name = strdup(name);
    r->cap = XLFT_LOGBLOCK_HDR_SIZE + XLFT_LOG_BLOCK_TARGET;
    r->buf = malloc(r->cap);
    if (!r->name || !r->buf) {
        xlft_say(msg, msglen, "%s: out of memory", name);
        rc = -ENOMEM;
        goto out;
    }
    ft_codec_init(&r->codec);
    whole = read_exact(r, hdr, sizeof(hdr), &got);
    if (whole <= 0) {
        xlft_say(msg, msglen, "%s: %s", name, whole < 0 ? "read error"
            : "too short for a xenft log header");
        rc = whole < 0 ? whole : -EBADMSG;
        goto out;
    }
    if (memcmp(XLFT_AT(hdr, logfile_hdr, magic), FILE_MAGIC,
               XLFT_SIZEOF(logfile_hdr, magic))) {
        xlft_say(msg, msglen, "%s: not a xenft log (bad magic)", name);
        rc = -EBADMSG;
        goto out;
    }
    /* Magic and version keep their places in every version; the rest,
     * checksum included, may change with it. */
    if (XLFT_GET(32, hdr, logfile_hdr, version) != XLFT_LOGFILE_VERSION) {
        xlft_say(msg, msglen, "%s: stored log version %" PRIu32
            ", this build reads version %u only", name,
            XLFT_GET(32, hdr, logfile_hdr, version), XLFT_LOGFILE_VERSION);
        rc = -EPROTONOSUPPORT;
        goto out;
    }
    if (XLFT_GET(64, hdr, logfile_hdr, hdr_sum) !=
        XXH3_64bits(hdr, XLFT_OFF(logfile_hdr, hdr_sum))) {
        xlft_say(msg, msglen, "%s: log header checksum mismatch", name);
        rc = -EBADMSG;
        goto out;
    }
    if (XLFT_GET(32, hdr, logfile_hdr, hdr_size) != XLFT_LOGFILE_HDR_SIZE ||
        XLFT_GET(32, hdr, logfile_hdr, reserved)) {
        xlft_say(msg, msglen, "%s: bad log header size %" PRIu32, name,
            XLFT_GET(32, hdr, logfile_hdr, hdr_size));
        rc = -EBADMSG;
        goto out;
    }
    if (XLFT_GET(16, hdr, logfile_hdr, log_version) != FT_LOG_VERSION) {
        xlft_say(msg, msglen, "%s: records of log format version %u, this "
            "build reads version %u only", name,
            XLFT_GET(16, hdr, logfile_hdr, log_version), FT_LOG_VERSION);
        rc = -EPROTONOSUPPORT;
        goto out;
    }
    r->counter = XLFT_GET(8, hdr, logfile_hdr, counter);
    r->cpu = XLFT_GET(8, hdr, logfile_hdr, cpu);
    if (!ft_kind_defined(r->counter, r->cpu)) {
        xlft_say(msg, msglen, "%s: the header names counter %" PRIu32
            " on CPU %" PRIu32 ", not a kind of log", name, r->counter,
            r->cpu);
        rc = -EBADMSG;
        goto out;
    }
    r->off = XLFT_LOGFILE_HDR_SIZE;
    *out = r;
    r = NULL;
    rc = 0;

out:
    if (fp)
        fclose(fp);
    xlft_logr_close(r);
    return rc;
}

void xlft_logr_kind(const struct xlft_logr *r, uint32_t *counter,
                    uint32_t *cpu)
{
    *counter = r->counter;
    *cpu = r->cpu;
}

int xlft_logr_expect(const struct xlft_logr *r, uint32_t counter,
                     uint32_t cpu, char *msg, size_t msglen)
{
    if (r->counter == counter && r->cpu == cpu)
        return 0;
    xlft_say(msg, msglen, "%s: its points count %s on %s, but this replay "
             "counts %s on %s", r->name, ft_counter_name(r->counter),
             ft_cpu_name(r->cpu), ft_counter_name(counter),
             ft_cpu_name(cpu));
    return -EPROTONOSUPPORT;
}

int xlft_logr_open(struct xlft_logr **out, const char *path,
                   char *msg, size_t msglen)
{
    FILE *fp = fopen(path, "rb");

    *out = NULL;
    if (!fp) {
        int err = errno;

        xlft_say(msg, msglen, "cannot open %s: %s", path, strerror(err));
        return -err;
    }
    return xlft_logr_open_fp(out, fp, path, msg, msglen);
}

/* Read and check the next block; the first error is final. */
static int next_block(struct xlft_logr *r, const uint8_t **recs, size_t *len,
                      uint32_t *nrec, uint64_t *first_seq,
                      char *msg, size_t msglen)
{
    uint8_t *h = r->buf;
    struct ft_codec next = r->codec;
    uint32_t plen, count, flags, scanned;
    uint64_t seq;
    size_t got;
    int rc, n;

    if (r->ended)
        return 0;
    rc = read_exact(r, h, XLFT_LOGBLOCK_HDR_SIZE, &got);
    if (rc < 0) {
        xlft_say(msg, msglen, "%s: read error at offset %" PRIu64, r->name, r->off);
        return rc;
    }
    if (rc == 0) {
        xlft_say(msg, msglen, "%s: log ends after record %" PRIu64
            " without an end marker (truncated)", r->name, r->seq);
        return -ENODATA;
    }
    /* The header has its own checksum so that a damaged length is
     * reported as damage, not as a cut file. */
    if (XLFT_GET(64, h, logblock_hdr, hdr_sum) !=
        XXH3_64bits(h, XLFT_OFF(logblock_hdr, hdr_sum))) {
        xlft_say(msg, msglen, "%s: block header at offset %" PRIu64
            " (after record %" PRIu64 ") is damaged", r->name, r->off,
            r->seq);
        return -EBADMSG;
    }
    plen = XLFT_GET(32, h, logblock_hdr, len);
    seq = XLFT_GET(64, h, logblock_hdr, first_seq);
    count = XLFT_GET(32, h, logblock_hdr, count);
    flags = XLFT_GET(32, h, logblock_hdr, flags);
    if (XLFT_GET(32, h, logblock_hdr, magic) != BLOCK_MAGIC) {
        xlft_say(msg, msglen, "%s: no block at offset %" PRIu64
            " (after record %" PRIu64 "): bad magic", r->name, r->off, r->seq);
        return -EBADMSG;
    }
    if (plen > XLFT_LOG_BLOCK_MAX) {
        xlft_say(msg, msglen, "%s: block at offset %" PRIu64 " claims %" PRIu32
            " bytes, more than the %u allowed", r->name, r->off, plen,
            XLFT_LOG_BLOCK_MAX);
        return -EBADMSG;
    }
    if (XLFT_LOGBLOCK_HDR_SIZE + (size_t)plen > r->cap) {
        uint8_t *bigger = realloc(r->buf,
                                  XLFT_LOGBLOCK_HDR_SIZE + (size_t)plen);

        if (!bigger) {
            xlft_say(msg, msglen, "%s: out of memory for a block of %" PRIu32
                " bytes", r->name, plen);
            return -ENOMEM;
        }
        r->buf = h = bigger;
        r->cap = XLFT_LOGBLOCK_HDR_SIZE + (size_t)plen;
    }
    rc = read_exact(r, h + XLFT_LOGBLOCK_HDR_SIZE, plen, &got);
    if (rc < 0) {
        xlft_say(msg, msglen, "%s: read error in the block at offset %" PRIu64,
            r->name, r->off);
        return rc;
    }
    if (rc == 0) {
        xlft_say(msg, msglen, "%s: block at offset %" PRIu64 " (records from %"
            PRIu64 ") is cut after %zu of %" PRIu32 " bytes (truncated)",
            r->name, r->off, r->seq + 1, got, plen);
        return -ENODATA;
    }
    if (XLFT_GET(64, h, logblock_hdr, data_sum) !=
        XXH3_64bits(h + XLFT_LOGBLOCK_HDR_SIZE, plen)) {
        xlft_say(msg, msglen, "%s: block at offset %" PRIu64 " (records from %"
            PRIu64 "): checksum mismatch", r->name, r->off, r->seq + 1);
        return -EBADMSG;
    }
    if (flags & ~XLFT_LOGBLOCK_F_END) {
        xlft_say(msg, msglen, "%s: block at offset %" PRIu64 " has unknown "
            "flags 0x%" PRIx32, r->name, r->off, flags);
        return -EBADMSG;
    }
    if (seq != r->seq + 1) {
        xlft_say(msg, msglen, "%s: block at offset %" PRIu64 " starts at record %"
            PRIu64 ", expected %" PRIu64, r->name, r->off, seq, r->seq + 1);
        return -EBADMSG;
    }
    n = ft_log_check(&next, h + XLFT_LOGBLOCK_HDR_SIZE, plen, &scanned);
    if (n < 0 || (uint32_t)n != plen || scanned != count ||
        ((flags & XLFT_LOGBLOCK_F_END) ? count != 0 : count == 0)) {
        xlft_say(msg, msglen, "%s: block at offset %" PRIu64 ": %s at record %"
            PRIu64, r->name, r->off,
            n < 0 ? "malformed record" : "record count or length mismatch",
            seq + scanned);
        return -EBADMSG;
    }
    r->off += XLFT_LOGBLOCK_HDR_SIZE + plen;
    if (flags & XLFT_LOGBLOCK_F_END) {
        r->ended = true;
        if (fgetc(r->fp) != EOF) {
            xlft_say(msg, msglen, "%s: data after the end marker at offset %"
                PRIu64, r->name, r->off);
            return -EBADMSG;
        }
        if (ferror(r->fp)) {
            xlft_say(msg, msglen, "%s: read error after the end marker",
                r->name);
            return -EIO;
        }
        return 0;
    }
    r->seq += count;
    r->codec = next;
    *recs = h + XLFT_LOGBLOCK_HDR_SIZE;
    *len = plen;
    *nrec = count;
    *first_seq = seq;
    return 1;
}

int xlft_logr_next(struct xlft_logr *r, const uint8_t **recs, size_t *len,
                   uint32_t *nrec, uint64_t *first_seq,
                   char *msg, size_t msglen)
{
    if (r->error) {
        xlft_say(msg, msglen, "%s: reading stopped at an earlier error",
            r->name);
        return r->error;
    }
    r->error = next_block(r, recs, len, nrec, first_seq, msg, msglen);
    if (r->error > 0)
        r->error = 0;
    return r->error ? r->error : (r->ended ? 0 : 1);
}

void xlft_logr_close(struct xlft_logr *r)
{
    if (!r)
        return;
    if (r->fp)
        fclose(r->fp);
    free(r->buf);
    free(r->name);
    free(r);
}
