// SPDX-License-Identifier: GPL-2.0-only
/*
 * metrics.c - the metrics file (metrics.h).  Written whole into a
 * temporary file beside it and renamed over it, so that a reader sees
 * the last file or the next, never half of one; the temporary's name
 * does not end in .prom, which the textfile collector skips.
 *
 * Counters (failovers, divergences) are kept per guest for the life of
 * this ftd, counted once per generation: the pairs that carry them are
 * freed a second or two after they end, and are seen here before that.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "metrics.h"
#include "pair_stats.h"
#include "views.h"

#define WRITE_EVERY 2           /* ticks (seconds) between two files */
#define GUESTS      (2 * FTD_GUESTS_MAX)
#define ROWS        (3 * FTD_GUESTS_MAX)

/* A guest's counters over the life of this ftd. */
struct tally {
    char name[FTD_NAME_MAX + 1];
    uint64_t failovers, divergences;
    uint64_t live_gen, div_gen;     /* the generations counted last */
};

/* One guest's line of figures in this file. */
struct row {
    const char *name, *peer, *role, *state;
    bool have_stats;
    struct pair_stats st;
    enum view_kind kind;
};

struct metrics {
    char path[256], tmp[264], host[FTD_NAME_MAX + 1];
    struct tally tally[GUESTS];
    struct row rows[ROWS];
    unsigned int nrows, ticks;
    bool failing;               /* the last write failed (said once) */
    bool full_said;
};

static const char *const states[] = {
    "handshake", "sync", "protected", "arbitrating", "going-live", "live",
    "halted", "ended", "connecting", "unprotected",
};

static struct tally *tally_of(struct metrics *m, const char *name)
{
    struct tally *spare = NULL;

    for (int i = 0; i < GUESTS; i++) {
        if (!strcmp(m->tally[i].name, name))
            return &m->tally[i];
        if (!m->tally[i].name[0] && !spare)
            spare = &m->tally[i];
    }
    if (!spare) {
        if (!m->full_said)
            fprintf(stderr, "ftd: metrics: more than %d guests seen; "
                    "guest %s not counted\n", GUESTS, name);
        m->full_said = true;
        return NULL;
    }
    snprintf(spare->name, sizeof(spare->name), "%s", name);
    return spare;
}

static void count(struct metrics *m, const struct pair_stats *st)
{
    struct tally *t = tally_of(m, st->name);

    if (!t)
        return;
    if (st->went_live && st->gen > t->live_gen) {
        t->failovers++;
        t->live_gen = st->gen;
    }
    if (st->diverged && st->gen > t->div_gen) {
        t->divergences++;
        t->div_gen = st->gen;
    }
}

/* A guest's row: its running pair first, then a dial, a re-protection. */
static void collect(void *arg, const struct pair_view *v)
{
    struct metrics *m = arg;
    struct row r = { .name = v->name, .peer = v->peer, .kind = v->kind,
                     .role = "primary" };
    struct row *old = NULL;

    if (!v->name[0])
        return;                 /* a peer that has not said who it is */
    if (v->kind == VIEW_PAIR && v->pair) {
        pair_stats(v->pair, &r.st);
        count(m, &r.st);
        if (v->ended)
            return;
        r.have_stats = true;
        r.role = r.st.role;
        r.state = r.st.state;
    } else if (v->kind == VIEW_PAIR) {
        return;                 /* ended and gone */
    } else {
        r.state = v->kind == VIEW_CONNECTING ? "connecting" : "unprotected";
    }
    for (unsigned int i = 0; i < m->nrows; i++)
        if (!strcmp(m->rows[i].name, r.name))
            old = &m->rows[i];
    if (old) {
        if (r.kind < old->kind)
            *old = r;
        return;
    }
    if (m->nrows < ROWS)
        m->rows[m->nrows++] = r;
}

/* A label value: backslash, quote and newline escaped. */
static void label(FILE *f, const char *k, const char *v, bool first)
{
    fprintf(f, "%s%s=\"", first ? "" : ",", k);
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            fprintf(f, "\\%c", *v);
        else if (*v == '\n')
            fputs("\\n", f);
        else
            fputc(*v, f);
    }
    fputc('"', f);
}

static void labels(FILE *f, const struct row *r)
{
    fputc('{', f);
    label(f, "guest", r->name, true);
    label(f, "peer", r->peer, false);
    label(f, "role", r->role, false);
}

static void family(FILE *f, const char *name, const char *type,
                   const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

enum fig { F_LAG, F_LOG_BPS, F_PRED_BPS, F_RTT, F_UNACKED, F_HELD_OUTPUTS,
           F_RECORDS, F_LOG_BYTES, F_GEN };

/* A figure of the row; false if it is not known. */
static bool figure(const struct row *r, enum fig which, double *v)
{
    const struct pair_stats *st = &r->st;
    bool primary = r->have_stats && !strcmp(st->role, "primary");

    if (!r->have_stats)
        return false;
    switch (which) {
    case F_LAG:
        *v = (double)st->lag_us / 1e6;
        return st->have_lag;
    case F_LOG_BPS:
        *v = st->log_mbit_s * 1e6;
        return st->have_rate;
    case F_PRED_BPS:
        *v = st->predicted_mbit_s * 1e6;
        return st->have_rate;
    case F_RTT:
        *v = (double)st->ack_rtt_us / 1e6;
        return st->have_rtt;
    case F_UNACKED:
        *v = (double)(st->sent - st->acked);
        return primary;
    case F_HELD_OUTPUTS:
        *v = (double)st->held_outputs;
        return st->have_held_outputs;
    case F_RECORDS:
        *v = (double)(primary ? st->sent : st->held);
        return true;
    case F_LOG_BYTES:
        *v = (double)st->log_bytes;
        return true;
    case F_GEN:
        *v = (double)st->gen;
        return st->gen != 0;
    }
    return false;
}

/* Counts and generations in full: %g would round them. */
static bool integral(enum fig which)
{
    return which == F_UNACKED || which == F_HELD_OUTPUTS ||
           which == F_RECORDS ||
           which == F_LOG_BYTES || which == F_GEN;
}

static void rows_of(FILE *f, const struct metrics *m, const char *name,
                    enum fig which)
{
    for (unsigned int i = 0; i < m->nrows; i++) {
        double v;

        if (!figure(&m->rows[i], which, &v))
            continue;
        fputs(name, f);
        labels(f, &m->rows[i]);
        fprintf(f, integral(which) ? "} %.0f\n" : "} %.9g\n", v);
    }
}

static void write_all(struct metrics *m, FILE *f)
{
    static const struct {
        const char *name, *type, *help;
        enum fig which;
    } figs[] = {
        { "xenft_lag_seconds", "gauge", "How long after the primary "
          "produced a record the secondary replayed it (moving average; "
          "primary only).", F_LAG },
        { "xenft_log_bits_per_second", "gauge", "Log sent (primary) or "
          "received (secondary) over the last second.", F_LOG_BPS },
        { "xenft_log_predicted_bits_per_second", "gauge", "The log the "
          "sizing rule predicts: (disk reads + network receive) x 1.2.",
          F_PRED_BPS },
        { "xenft_ack_rtt_seconds", "gauge", "A LOG frame to its ACK "
          "(moving average; primary only).", F_RTT },
        { "xenft_unacked_records", "gauge", "Records sent and not yet "
          "acknowledged: the outputs the gate holds wait on them.",
          F_UNACKED },
        { "xenft_held_outputs", "gauge", "Outputs (frames, disk writes, "
          "console writes) in the log sent and not yet acknowledged, which "
          "the guest's gate holds (primary only).", F_HELD_OUTPUTS },
        { "xenft_records_total", "counter", "Records sent (primary) or "
          "held (secondary) by this pair.", F_RECORDS },
        { "xenft_log_bytes_total", "counter", "Log bytes sent or received "
          "by this pair.", F_LOG_BYTES },
        { "xenft_generation", "gauge", "The pair's generation, as the "
          "arbiter knows it.", F_GEN },
    };
    struct timespec now;

    family(f, "xenft_pair_state", "gauge", "1 for the state the guest's "
           "pair is in on this host, 0 for the others.");
    for (unsigned int i = 0; i < m->nrows; i++)
        for (size_t k = 0; k < sizeof(states) / sizeof(states[0]); k++) {
            fputs("xenft_pair_state", f);
            labels(f, &m->rows[i]);
            label(f, "state", states[k], false);
            fprintf(f, "} %d\n", !strcmp(m->rows[i].state, states[k]));
        }
    for (size_t k = 0; k < sizeof(figs) / sizeof(figs[0]); k++) {
        family(f, figs[k].name, figs[k].type, figs[k].help);
        rows_of(f, m, figs[k].name, figs[k].which);
    }
    family(f, "xenft_failovers_total", "counter", "Copies of the guest "
           "that went live on this host since ftd started.");
    for (int i = 0; i < GUESTS; i++)
        if (m->tally[i].name[0]) {
            fputs("xenft_failovers_total{", f);
            label(f, "guest", m->tally[i].name, true);
            fprintf(f, "} %" PRIu64 "\n", m->tally[i].failovers);
        }
    family(f, "xenft_divergences_total", "counter", "Replays of the guest "
           "on this host that left the log since ftd started.");
    for (int i = 0; i < GUESTS; i++)
        if (m->tally[i].name[0]) {
            fputs("xenft_divergences_total{", f);
            label(f, "guest", m->tally[i].name, true);
            fprintf(f, "} %" PRIu64 "\n", m->tally[i].divergences);
        }
    clock_gettime(CLOCK_REALTIME, &now);
    family(f, "xenft_metrics_written_seconds", "gauge", "When ftd wrote "
           "this file (a stale one means ftd is not running).");
    fprintf(f, "xenft_metrics_written_seconds{");
    label(f, "host", m->host, true);
    fprintf(f, "} %lld.%03ld\n", (long long)now.tv_sec,
            now.tv_nsec / 1000000);
}

/* The whole file, or -errno and 'why'. */
static int write_file(struct metrics *m, char *why, size_t len)
{
    FILE *f = NULL;
    int fd, rc = 0;

    fd = open(m->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
              0644);
    if (fd < 0) {
        rc = -errno;
        snprintf(why, len, "metrics-file %s: cannot write %s: %s", m->path,
                 m->tmp, strerror(errno));
        goto out;
    }
    f = fdopen(fd, "w");
    if (!f) {
        rc = -errno;
        close(fd);
        snprintf(why, len, "metrics-file %s: %s", m->path, strerror(errno));
        goto out;
    }
    write_all(m, f);
    if (fflush(f) || ferror(f)) {
        rc = -errno;
        snprintf(why, len, "metrics-file %s: cannot write %s: %s", m->path,
                 m->tmp, strerror(errno));
        goto out;
    }
    if (rename(m->tmp, m->path)) {
        rc = -errno;
        snprintf(why, len, "metrics-file %s: cannot rename %s over it: %s",
                 m->path, m->tmp, strerror(errno));
    }
out:
    if (f)
        fclose(f);
    if (rc && fd >= 0)
        unlink(m->tmp);
    return rc;
}

int metrics_new(struct metrics **mp, const char *path, const char *host,
                char *why, size_t len)
{
    struct metrics *m = NULL;
    int rc;

    *mp = NULL;
    if (path[0] != '/') {
        snprintf(why, len, "metrics-file %s: not an absolute path", path);
        rc = -EINVAL;
        goto out;
    }
    m = calloc(1, sizeof(*m));
    if (!m) {
        snprintf(why, len, "metrics-file %s: out of memory", path);
        rc = -ENOMEM;
        goto out;
    }
    if (strlen(path) >= sizeof(m->path)) {
        snprintf(why, len, "metrics-file %.40s...: longer than %zu", path,
                 sizeof(m->path) - 1);
        rc = -ENAMETOOLONG;
        goto out;
    }
    snprintf(m->path, sizeof(m->path), "%s", path);
    snprintf(m->tmp, sizeof(m->tmp), "%s.tmp", path);
    snprintf(m->host, sizeof(m->host), "%s", host);
    rc = write_file(m, why, len);
    if (rc)
        goto out;
    *mp = m;
    m = NULL;
out:
    metrics_free(m);
    return rc;
}

void metrics_free(struct metrics *m)
{
    free(m);
}

void metrics_tick(struct metrics *m, struct service *s)
{
    char why[600];

    m->nrows = 0;
    service_views(s, NULL, collect, m);
    if (++m->ticks % WRITE_EVERY)
        return;
    if (write_file(m, why, sizeof(why))) {
        if (!m->failing)
            fprintf(stderr, "ftd: %s (trying again every %d s)\n", why,
                    WRITE_EVERY);
        m->failing = true;
    } else if (m->failing) {
        fprintf(stderr, "ftd: metrics-file %s: written again\n", m->path);
        m->failing = false;
    }
}
