// SPDX-License-Identifier: GPL-2.0-only
/*
 * progress.c - after ft-enable, the copy of the guest as it streams to
 * the other host: bytes sent of the total, the rate, the time left.  On
 * a terminal one line rewritten in place; otherwise a plain line at
 * every tenth of the copy or every second, whichever comes first, and a
 * last one at the end.  Read from ftd's JSON status ten times a second.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "status.h"
#include "xlft_json.h"

#define POLL_MS     100
#define STALL_S     60          /* no byte sent this long: stop looking */
/* A Xen guest is saved by a live migration, its memory sent until it
 * settles: longer than any stall of bytes, but not for ever. */
#define SAVE_S      600
#define PAIRS_MAX   256

struct look {
    bool found, ended, have_total;
    char state[32], why[300];
    int64_t sent, total;
};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int64_t get_int(const char *doc, const char *path, bool *have)
{
    struct xlft_json v;
    int64_t n = 0;

    *have = xlft_json_get(doc, strlen(doc), path, &v) == 1 &&
            v.type == XLFT_JSON_NUMBER && !xlft_json_int(&v, &n);
    return n;
}

static void get_str(const char *doc, const char *path, char *out,
                    size_t len)
{
    struct xlft_json v;

    out[0] = '\0';
    if (xlft_json_get(doc, strlen(doc), path, &v) == 1 &&
        v.type == XLFT_JSON_STRING)
        xlft_json_str(&v, out, len);
}

/* The guest's primary here: the pair not ended, else the last one. */
static void look_up(const char *doc, const char *guest, struct look *l)
{
    memset(l, 0, sizeof(*l));
    for (int i = 0; i < PAIRS_MAX; i++) {
        struct xlft_json v;
        char p[64], name[80], role[16];
        bool ended, have;

        snprintf(p, sizeof(p), "pairs.%d", i);
        if (xlft_json_get(doc, strlen(doc), p, &v) != 1)
            break;
        snprintf(p, sizeof(p), "pairs.%d.name", i);
        get_str(doc, p, name, sizeof(name));
        snprintf(p, sizeof(p), "pairs.%d.role", i);
        get_str(doc, p, role, sizeof(role));
        if (strcmp(name, guest) || strcmp(role, "primary"))
            continue;
        snprintf(p, sizeof(p), "pairs.%d.ended", i);
        ended = xlft_json_get(doc, strlen(doc), p, &v) == 1 &&
                v.type == XLFT_JSON_TRUE;
        if (l->found && !l->ended && ended)
            continue;
        l->found = true;
        l->ended = ended;
        snprintf(p, sizeof(p), "pairs.%d.state", i);
        get_str(doc, p, l->state, sizeof(l->state));
        snprintf(p, sizeof(p), "pairs.%d.end_reason", i);
        get_str(doc, p, l->why, sizeof(l->why));
        snprintf(p, sizeof(p), "pairs.%d.copy.bytes_sent", i);
        l->sent = get_int(doc, p, &have);
        snprintf(p, sizeof(p), "pairs.%d.copy.bytes_total", i);
        l->total = get_int(doc, p, &l->have_total);
    }
}

static void line(bool tty, const struct look *l, double rate, double t)
{
    double mib = 1024.0 * 1024.0;
    int pct = l->total ? (int)(l->sent * 100 / l->total) : 0;
    char left[32] = "";

    if (rate > 0 && l->sent < l->total)
        snprintf(left, sizeof(left), ", %.0f s left",
                 (double)(l->total - l->sent) / rate + 0.5);
    else if (l->sent >= l->total)
        snprintf(left, sizeof(left), ", done in %.1f s", t);
    printf("%scopy: %.1f MiB of %.1f MiB (%d%%), %.1f MiB/s%s%s",
           tty ? "\r" : "", (double)l->sent / mib, (double)l->total / mib,
           pct, rate / mib, left, tty ? "\033[K" : "\n");
    fflush(stdout);
}

void progress_run(const char *socket, const char *guest)
{
    bool tty = isatty(STDOUT_FILENO), saving_said = false, shown = false;
    struct timespec tick = { 0, POLL_MS * 1000000L };
    double start = 0, last_line = 0, moved = now_s(), rate = 0;
    struct look l, prev = { 0 };
    int64_t start_bytes = 0;
    int tenth = -1;

    for (;;) {
        char why[300], *doc;
        double t = now_s();

        if (status_fetch(socket, guest, &doc, why, sizeof(why))) {
            printf("%scopy: cannot follow it: %s\n", shown && tty ? "\n"
                                                                  : "", why);
            return;
        }
        look_up(doc, guest, &l);
        free(doc);
        if (!l.found || l.ended || (strcmp(l.state, "sync") &&
                                    strcmp(l.state, "handshake")))
            break;
        if (!l.have_total) {
            if (!saving_said)
                printf("copy: saving the guest's state\n");
            saving_said = true;
        } else {
            if (!start) {
                start = t;
                start_bytes = l.sent;
            }
            if (t > start)
                rate = (double)(l.sent - start_bytes) / (t - start);
            if (tty || l.sent * 10 / l.total > tenth || t - last_line >= 1) {
                line(tty, &l, rate, t - start);
                last_line = t;
                tenth = (int)(l.sent * 10 / l.total);
                shown = true;
            }
        }
        if (l.sent != prev.sent || l.have_total != prev.have_total ||
            strcmp(l.state, prev.state))
            moved = t;
        if (t - moved > (l.have_total ? STALL_S : SAVE_S)) {
            printf("%scopy: no progress for %d s; see ft-status\n",
                   shown && tty ? "\n" : "",
                   l.have_total ? STALL_S : SAVE_S);
            return;
        }
        prev = l;
        nanosleep(&tick, NULL);
    }
    if (l.found && !l.ended && prev.have_total) {
        /* Every byte went: the last look saw the copy whole. */
        prev.sent = prev.total;
        line(tty, &prev, rate, now_s() - start);
        if (tty)
            putchar('\n');
    } else if (shown && tty) {
        putchar('\n');
    }
    if (!l.found)
        printf("copy: the pair is gone (see ft-status)\n");
    else if (l.ended)
        printf("copy: not made: %s\n", l.why);
    else
        printf("copy: done, %s is %s\n", guest, l.state);
}
