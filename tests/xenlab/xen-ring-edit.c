// SPDX-License-Identifier: GPL-2.0-only
/*
 * xen-ring-edit.c - a wrong log for a replaying copy, for the lab's
 * divergence tests: one record in the copy's replay ring changed,
 * everything else as the primary logged it.
 *
 *   xen-ring-edit DOMID move|hash SKIP SECONDS
 *
 * The copy must be paused.  Past the first SKIP records not yet replayed
 * (the replayer may have read the next one already):
 *   move  the first external interrupt whose point can be moved in place
 *         is moved one step later: its count delta grows by one and the
 *         next record's shrinks by one, so that no other record changes
 *         its point.  A count delta is a varint: a delta whose encoding
 *         would change its length is passed over, as is an interrupt
 *         followed by a record at its very point.
 *   hash  the first state hash (SYNC) has its lowest bit flipped.
 * If the ring has no such record yet, it looks again every 100 ms, at
 * most SECONDS.
 *
 * Prints "moved record SEQ: external interrupt, count delta D to D+1"
 * or "flipped record SEQ: state hash". Exit status 0, 1 with a message
 * naming what failed, 2 on bad usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ft_log.h"
#include "xlft_xen.h"

static int bad_usage(void)
{
    fprintf(stderr, "usage: xen-ring-edit DOMID move|hash SKIP SECONDS\n");
    return 2;
}

static int parse(const char *s, unsigned long max, unsigned long *v)
{
    char *end;

    errno = 0;
    *v = strtoul(s, &end, 10);
    return errno || !*s || *end || *s == '-' || *v > max ? -1 : 0;
}

/* Bytes of the varint at 'p' (at most 'len'), 0 if it does not end. */
static uint32_t varint_len(const uint8_t *p, uint32_t len)
{
    uint32_t i;

    for (i = 0; i < len && i < 10; i++)
        if (!(p[i] & 0x80))
            return i + 1;
    return 0;
}

static uint32_t varint_put(uint64_t v, uint8_t *out)
{
    uint32_t n = 0;

    do {
        out[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            out[n] |= 0x80;
        n++;
    } while (v);
    return n;
}

/*
 * The record at 'p' with its count delta (byte 1 on) set to 'delta', if
 * that takes as many bytes as the delta it has.
 */
static bool set_delta(uint8_t *p, uint32_t len, uint64_t delta)
{
    uint8_t enc[10];
    uint32_t have = varint_len(p + 1, len - 1);

    if (!have || varint_put(delta, enc) != have)
        return false;
    memcpy(p + 1, enc, have);
    return true;
}

/* 'len' bytes of 'src' into the ring, 'off' bytes past its consumer. */
static void ring_poke(const struct ft_ring *r, uint32_t off,
                      const uint8_t *src, uint32_t len)
{
    const uint8_t *p1, *p2;
    uint32_t len1, len2;

    ft_ring_span(r, off, len, &p1, &len1, &p2, &len2);
    memcpy((uint8_t *)p1, src, len1);
    if (len2)
        memcpy((uint8_t *)p2, src + len1, len2);
}

enum edit { MOVE, HASH };

/*
 * The record at 'off' in 'buf' ('n' bytes, 'a' decoded), then the one
 * after it, changed as 'how' says: true if it was.
 */
static bool edit_rec(enum edit how, uint8_t *buf, uint32_t off,
                     uint32_t len, int n, const struct ft_log_rec *a)
{
    struct ft_log_rec b;
    int m;

    if (how == HASH) {
        if (a->kind != FT_K_SYNC)
            return false;
        buf[off + (uint32_t)n - 8] ^= 1;    /* LE8 hash, the payload */
        return true;
    }
    if (a->kind != FT_K_EXTINT)
        return false;
    m = ft_log_decode(NULL, buf + off + n, len - off - (uint32_t)n, &b);
    if (m < 0 || !b.pt.count)
        return false;
    return set_delta(buf + off, (uint32_t)n, a->pt.count + 1) &&
           set_delta(buf + off + n, (uint32_t)m, b.pt.count - 1);
}

/*
 * Look once: 1 and the record changed (its sequence number in *seq, its
 * count delta in *delta), 0 if there is none to change yet, or -1 with
 * 'err' set.
 */
static int edit_once(struct ft_ring *r, enum edit how, uint32_t skip,
                     uint8_t *buf, uint64_t *seq, uint64_t *delta,
                     char *err, size_t errlen)
{
    int unread = ft_ring_unread(r);
    uint32_t off = 0, i, len, whole;
    struct ft_log_rec a;
    int n;

    if (unread < 0) {
        snprintf(err, errlen, "the ring's indexes are impossible: %s",
                 ft_strerror(unread));
        return -1;
    }
    len = (uint32_t)unread;
    ft_ring_peek(r, 0, buf, len);
    for (i = 0; off < len; i++, off += (uint32_t)n) {
        n = ft_log_decode(NULL, buf + off, len - off, &a);
        if (n == FT_EMORE)
            return 0;
        if (n < 0) {
            snprintf(err, errlen, "a malformed record %u past the "
                     "consumer: %s", i + 1, ft_strerror(n));
            return -1;
        }
        /* A moved interrupt changes the record after it too. */
        if (i < skip || off + (uint32_t)n >= len)
            continue;
        if (!edit_rec(how, buf, off, len, n, &a)) {
            ft_ring_peek(r, off, buf + off, len - off);
            continue;
        }
        whole = how == MOVE ? len - off : (uint32_t)n;
        ring_poke(r, off, buf + off, whole);
        *seq = ft_ring_cons_seq(r) + i + 1;
        *delta = a.pt.count;
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const struct timespec tick = { .tv_nsec = 100 * 1000 * 1000 };
    unsigned long domid, skip, seconds, tries;
    struct xlft_xen_ft_status st;
    struct xlft_xen_ring ring = { .res = NULL };
    struct xlft_xen *x = NULL;
    uint64_t seq = 0, delta = 0;
    uint8_t *buf = NULL;
    char err[512] = "";
    enum edit how;
    int rc = -1;

    if (argc != 5 || parse(argv[1], 0x7fef, &domid) ||
        (strcmp(argv[2], "move") && strcmp(argv[2], "hash")) ||
        parse(argv[3], 1000000, &skip) || parse(argv[4], 600, &seconds))
        return bad_usage();
    how = strcmp(argv[2], "move") ? HASH : MOVE;
    if (xlft_xen_open(&x, err, sizeof(err)))
        goto out;
    if (xlft_xen_ft_status(x, (uint32_t)domid, &st, err, sizeof(err)))
        goto out;
    if (st.state != XLFT_XEN_FT_REPLAY) {
        snprintf(err, sizeof(err), "domain %lu does not replay", domid);
        goto out;
    }
    if (xlft_xen_ring_map(x, (uint32_t)domid, &st, FT_RING_REPLAY, &ring,
                          err, sizeof(err)))
        goto out;
    buf = malloc(ring.ring.size);
    if (!buf) {
        snprintf(err, sizeof(err), "domain %lu: no memory for a copy of "
                 "its ring", domid);
        goto out;
    }
    for (tries = 0; tries <= seconds * 10; tries++) {
        rc = edit_once(&ring.ring, how, (uint32_t)skip, buf, &seq, &delta,
                       err, sizeof(err));
        if (rc < 0)
            snprintf(err + strlen(err), sizeof(err) - strlen(err),
                     " (domain %lu)", domid);
        if (rc)
            break;
        nanosleep(&tick, NULL);
    }
    if (!rc)
        snprintf(err, sizeof(err), "domain %lu: no %s past the first %lu "
                 "records in %lu s", domid, how == MOVE ? "interrupt to "
                 "move" : "state hash", skip, seconds);
    else if (rc > 0 && how == MOVE)
        printf("moved record %" PRIu64 ": external interrupt, count delta "
               "%" PRIu64 " to %" PRIu64 "\n", seq, delta, delta + 1);
    else if (rc > 0)
        printf("flipped record %" PRIu64 ": state hash\n", seq);
out:
    free(buf);
    if (ring.res)
        xlft_xen_ring_unmap(x, &ring);
    xlft_xen_close(x);
    if (rc > 0)
        return 0;
    fprintf(stderr, "xen-ring-edit: %s\n", err);
    return 1;
}
