// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftlog - look into a stored xenft log, or make a changed copy of one.
 *
 *   ftlog dump LOG               one line per record
 *   ftlog edit LOG OUT --seq N --flip | --later | --drop
 *   ftlog records LOG OUT --from N
 *                                the record bytes alone, from record N on
 *                                (fuzz seeds: FORMAT.md says how the
 *                                codec state then continues)
 *
 * edit re-encodes the whole log with record N changed: --flip inverts
 * the lowest bit of its value (the vector, TSC, port or MMIO value, ...;
 * of a DMA record, its last data byte: a device field's top byte),
 * --later moves it one instruction later, --drop leaves it out.  The
 * copy is a well-formed log (its checksums are right), so replaying it
 * tests what replay does with a log that is wrong, not damaged.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ft_log.h"
#include "xlft_logfile.h"

#define EXIT_USAGE  2
#define EXIT_BADLOG 4

static const char usage[] =
    "usage: ftlog dump LOG\n"
    "       ftlog edit LOG OUT --seq N (--flip | --later | --drop)\n"
    "       ftlog records LOG OUT --from N\n";

static void print(uint64_t seq, const struct ft_log_rec *r)
{
    printf("%" PRIu64 " %s count=%" PRIu64 " rip=0x%" PRIx64
           " rcx=0x%" PRIx64, seq, ft_log_kind_name(r->kind), r->pt.count,
           r->pt.rip, r->pt.rcx);
    switch (r->kind) {
    case FT_K_EXTINT:
        printf(" vector=0x%x%s", r->u.intr.vector,
               r->u.intr.timer ? " timer" : "");
        break;
    case FT_K_EVENT:
        printf(" type=%u vector=0x%x", r->u.event.type, r->u.event.vector);
        break;
    case FT_K_TSC:
        printf(" value=0x%" PRIx64, r->u.tsc.value);
        break;
    case FT_K_MSR:
        printf(" index=0x%x value=0x%" PRIx64, r->u.msr.index,
               r->u.msr.value);
        break;
    case FT_K_PIO:
        printf(" port=0x%x size=%u value=0x%x", r->u.pio.port,
               r->u.pio.size, r->u.pio.value);
        break;
    case FT_K_MMIO:
        printf(" gpa=0x%" PRIx64 " size=%u value=0x%" PRIx64,
               r->u.mmio.gpa, r->u.mmio.size, r->u.mmio.value);
        break;
    case FT_K_RAND:
        printf(" %s size=%u value=0x%" PRIx64,
               r->u.rand.seed ? "rdseed" : "rdrand", r->u.rand.size,
               r->u.rand.value);
        break;
    case FT_K_DMA:
        printf(" gpa=0x%" PRIx64 " len=%u", r->u.dma.gpa, r->u.dma.len);
        break;
    case FT_K_SYNC:
        printf(" hash=%016" PRIx64, r->u.sync.hash);
        break;
    case FT_K_OUTPUT:
        printf(" id=%" PRIu64, r->u.output.id);
        break;
    default:
        break;
    }
    putchar('\n');
}

enum edit { NONE, FLIP, LATER, DROP, RAW };

static void flip(struct ft_log_rec *r)
{
    switch (r->kind) {
    case FT_K_EXTINT: r->u.intr.vector ^= 1; break;
    case FT_K_EVENT: r->u.event.vector ^= 1; break;
    case FT_K_TSC: r->u.tsc.value ^= 1; break;
    case FT_K_MSR: r->u.msr.value ^= 1; break;
    case FT_K_PIO: r->u.pio.value ^= 1; break;
    case FT_K_MMIO: r->u.mmio.value ^= 1; break;
    case FT_K_RAND: r->u.rand.value ^= 1; break;
    case FT_K_SYNC: r->u.sync.hash ^= 1; break;
    case FT_K_OUTPUT: r->u.output.id ^= 1; break;
    case FT_K_DMA: break;               /* its data, once copied */
    default: r->pt.rcx ^= 1; break;     /* NMI, HLT_WAKE, PROGRESS */
    }
}

static int walk(const char *path, struct xlft_logw *w, FILE *raw,
                uint64_t target, enum edit how)
{
    struct xlft_logr *lr;
    struct ft_codec dec, enc;
    const uint8_t *recs;
    uint64_t first, seq = 0;
    uint32_t nrec;
    size_t len;
    char msg[256];
    int rc;

    if ((rc = xlft_logr_open(&lr, path, msg, sizeof(msg)))) {
        fprintf(stderr, "ftlog: %s\n", msg);
        return rc == -ENOENT || rc == -EACCES ? 1 : EXIT_BADLOG;
    }
    ft_codec_init(&dec);
    ft_codec_init(&enc);
    while ((rc = xlft_logr_next(lr, &recs, &len, &nrec, &first, msg,
                                sizeof(msg))) == 1) {
        for (size_t off = 0; off < len; ) {
            struct ft_log_rec r;
            uint8_t out[FT_LOG_REC_MAX];
            int n = ft_log_decode(&dec, recs + off, (uint32_t)(len - off),
                                  &r);

            ft_codec_advance(&dec, &r);
            if (raw) {
                if (seq + 1 >= target &&
                    fwrite(recs + off, 1, (size_t)n, raw) != (size_t)n) {
                    fprintf(stderr, "ftlog: write: %s\n", strerror(errno));
                    xlft_logr_close(lr);
                    return 1;
                }
                off += (size_t)n;
                seq++;
                continue;
            }
            off += (size_t)n;
            seq++;
            if (!w) {
                print(seq, &r);
                continue;
            }
            if (seq == target) {
                if (how == DROP)
                    continue;
                if (how == FLIP)
                    flip(&r);
                if (how == LATER)
                    r.pt.count++;
            }
            n = ft_log_encode(&enc, &r, out);
            if (n < 0) {
                fprintf(stderr, "ftlog: record %" PRIu64 " cannot be "
                        "re-encoded that way: %s\n", seq, ft_strerror(n));
                xlft_logr_close(lr);
                return 1;
            }
            if (r.kind == FT_K_DMA) {
                memcpy(out + n, r.u.dma.data, r.u.dma.len);
                n += (int)r.u.dma.len;
                if (seq == target && how == FLIP)
                    out[n - 1] ^= 1;
            }
            ft_codec_advance(&enc, &r);
            if (xlft_logw_append(w, out, (size_t)n, msg, sizeof(msg))) {
                fprintf(stderr, "ftlog: %s\n", msg);
                xlft_logr_close(lr);
                return 1;
            }
        }
    }
    xlft_logr_close(lr);
    if (rc < 0) {
        fprintf(stderr, "ftlog: %s\n", msg);
        return EXIT_BADLOG;
    }
    if (w && target > seq) {
        fprintf(stderr, "ftlog: %s has %" PRIu64 " records, no record %"
                PRIu64 "\n", path, seq, target);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "dump"))
        return walk(argv[2], NULL, NULL, 0, NONE);
    if (argc == 6 && !strcmp(argv[1], "records") &&
        !strcmp(argv[4], "--from")) {
        char *end;
        uint64_t from = strtoull(argv[5], &end, 10);
        FILE *out;
        int rc;

        if (*end || !from) {
            fputs(usage, stderr);
            return EXIT_USAGE;
        }
        out = fopen(argv[3], "wb");
        if (!out) {
            fprintf(stderr, "ftlog: %s: %s\n", argv[3], strerror(errno));
            return 1;
        }
        rc = walk(argv[2], NULL, out, from, RAW);
        if (fclose(out) && !rc) {
            fprintf(stderr, "ftlog: %s: %s\n", argv[3], strerror(errno));
            rc = 1;
        }
        return rc;
    }
    if (argc == 7 && !strcmp(argv[1], "edit") && !strcmp(argv[4], "--seq")) {
        enum edit how = !strcmp(argv[6], "--flip") ? FLIP :
                        !strcmp(argv[6], "--later") ? LATER :
                        !strcmp(argv[6], "--drop") ? DROP : NONE;
        char *end, msg[256];
        uint64_t seq = strtoull(argv[5], &end, 10);
        struct xlft_logr *lr;
        struct xlft_logw *w;
        uint32_t counter, cpu;
        int rc;

        if (how == NONE || *end || !seq) {
            fputs(usage, stderr);
            return EXIT_USAGE;
        }
        /* The copy's points count what the original's do. */
        if ((rc = xlft_logr_open(&lr, argv[2], msg, sizeof(msg)))) {
            fprintf(stderr, "ftlog: %s\n", msg);
            return rc == -ENOENT || rc == -EACCES ? 1 : EXIT_BADLOG;
        }
        xlft_logr_kind(lr, &counter, &cpu);
        xlft_logr_close(lr);
        if (xlft_logw_open(&w, argv[3], counter, cpu, msg, sizeof(msg))) {
            fprintf(stderr, "ftlog: %s\n", msg);
            return 1;
        }
        rc = walk(argv[2], w, NULL, seq, how);
        if (xlft_logw_close(w, msg, sizeof(msg)) && !rc) {
            fprintf(stderr, "ftlog: %s\n", msg);
            rc = 1;
        }
        return rc;
    }
    fputs(usage, stderr);
    return EXIT_USAGE;
}
