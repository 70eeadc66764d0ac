/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_logfile.h - stored logs: the records of hvm/core/ft_log.h in
 * checksummed blocks, so that a damaged or cut log is detected and never
 * replayed.  File layout: hvm/core/FORMAT.md, "Stored logs".
 *
 * Errors are negative errno values; the functions that can meet a bad
 * file also write a one-line explanation (naming the file, the offset
 * and the record sequence number) into the caller's 'msg' buffer.
 */
#ifndef XLFT_LOGFILE_H
#define XLFT_LOGFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "xlft_layout.h"

/*
 * The file header's version.  1 and 2 were the records' version alone
 * (FT_LOG_VERSION, then at offset 8), with nothing saying what their
 * points count; 3 says it.
 */
#define XLFT_LOGFILE_VERSION   3u

#define XLFT_LOG_BLOCK_TARGET  (64u << 10)  /* writer cuts blocks here */
#define XLFT_LOG_BLOCK_MAX     (4u << 20)   /* reader refuses larger */

/*
 * The file's layout (xlft_layout.h; FORMAT.md's tables are checked
 * against these lists): a header, then blocks, each a header and its
 * payload of whole records, the last an end marker.  Integers are
 * little-endian; checksums are XXH3-64 (seed 0).
 */
#define XLFT_LOGFILE_HDR_FIELDS(F) \
    F(magic,         0, 8)  /* "XENFTLOG" */ \
    F(version,       8, 4)  /* XLFT_LOGFILE_VERSION */ \
    F(hdr_size,     12, 4)  /* XLFT_LOGFILE_HDR_SIZE */ \
    F(log_version,  16, 2)  /* FT_LOG_VERSION of the records */ \
    F(counter,      18, 1)  /* FT_COUNTER_* of their points */ \
    F(cpu,          19, 1)  /* FT_CPU_* that counted them */ \
    F(reserved,     20, 4)  /* 0 */ \
    F(hdr_sum,      24, 8)  /* of the bytes before it */
XLFT_LAYOUT(logfile_hdr, XLFT_LOGFILE_HDR_FIELDS)
#define XLFT_LOGFILE_HDR_SIZE  XLFT_LAYOUT_SIZE(logfile_hdr)

#define XLFT_LOGBLOCK_HDR_FIELDS(F) \
    F(magic,         0, 4)  /* "XBLK" */ \
    F(len,           4, 4)  /* payload bytes, <= XLFT_LOG_BLOCK_MAX */ \
    F(first_seq,     8, 8)  /* sequence number of its first record */ \
    F(count,        16, 4)  /* records in the payload */ \
    F(flags,        20, 4)  /* XLFT_LOGBLOCK_F_* */ \
    F(data_sum,     24, 8)  /* of the payload */ \
    F(hdr_sum,      32, 8)  /* of the bytes before it */
XLFT_LAYOUT(logblock_hdr, XLFT_LOGBLOCK_HDR_FIELDS)
#define XLFT_LOGBLOCK_HDR_SIZE XLFT_LAYOUT_SIZE(logblock_hdr)

/* The end marker: no payload, no record. */
#define XLFT_LOGBLOCK_F_END    1u

struct xlft_logw;
struct xlft_logr;

/*
 * Create (or truncate) 'path' and write the file header, saying that
 * the points of its records count 'counter' (FT_COUNTER_*) on 'cpu'
 * (FT_CPU_*); -EINVAL if either is not defined.
 */
int xlft_logw_open(struct xlft_logw **w, const char *path,
                   uint32_t counter, uint32_t cpu, char *msg, size_t msglen);

/*
 * Append 'len' bytes holding whole records, in log order.  -EINVAL (and
 * nothing appended) if they are not whole, well-formed records.  A write
 * error is final: every later call returns it.
 */
int xlft_logw_append(struct xlft_logw *w, const uint8_t *recs, size_t len,
                     char *msg, size_t msglen);

/* Write out the current block (records appended so far are then stored). */
int xlft_logw_flush(struct xlft_logw *w, char *msg, size_t msglen);

/* Sequence number of the last record appended. */
uint64_t xlft_logw_seq(const struct xlft_logw *w);

/*
 * Flush, write the end marker, fsync and close; frees 'w' whatever
 * happens.  A log closed without it reads as truncated.
 */
int xlft_logw_close(struct xlft_logw *w, char *msg, size_t msglen);

/*
 * The writer failed or gave up: store what was appended, but leave the
 * end marker out, so that readers report the log as cut short.  Frees
 * 'w'.
 */
void xlft_logw_abandon(struct xlft_logw *w);

/*
 * Open a stored log and check its header.  'name' is used in messages.
 * xlft_logr_open_fp takes 'fp' over: it is closed by xlft_logr_close,
 * or at once if opening fails.
 */
int xlft_logr_open(struct xlft_logr **r, const char *path,
                   char *msg, size_t msglen);
int xlft_logr_open_fp(struct xlft_logr **r, FILE *fp, const char *name,
                      char *msg, size_t msglen);

/*
 * Read the next block: *recs points to its records (valid until the next
 * call), *len their bytes, *nrec their number, *first_seq the sequence
 * number of the first.  Returns 1 for a block, 0 at the end marker, or
 *   -EBADMSG    a damaged block (checksum, framing, malformed record);
 *   -ENODATA    the file ends without an end marker (a cut log);
 *   -EIO        a read error;
 *   -ENOMEM.
 * The first error is final: later calls return it again.
 */
int xlft_logr_next(struct xlft_logr *r, const uint8_t **recs, size_t *len,
                   uint32_t *nrec, uint64_t *first_seq,
                   char *msg, size_t msglen);

/* What the points of the log's records count, and on which CPU. */
void xlft_logr_kind(const struct xlft_logr *r, uint32_t *counter,
                    uint32_t *cpu);

/*
 * 0 if the log's points count 'counter' on 'cpu', as a replayer of that
 * kind needs; else -EPROTONOSUPPORT, and 'msg' says what each counts.
 */
int xlft_logr_expect(const struct xlft_logr *r, uint32_t counter,
                     uint32_t cpu, char *msg, size_t msglen);

/* Close; also closes a FILE given to xlft_logr_open_fp. */
void xlft_logr_close(struct xlft_logr *r);

#endif /* XLFT_LOGFILE_H */
