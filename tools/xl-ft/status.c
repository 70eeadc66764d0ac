// SPDX-License-Identifier: GPL-2.0-only
/*
 * status.c - ft-status: ftd's text view, or its JSON document
 * (STATUS.md), once or refreshed every second (--watch) until SIGINT or
 * SIGTERM, or --count refreshes.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "status.h"
#include "xlft_json.h"

int status_fetch(const char *socket, const char *guest, char **doc,
                 char *why, size_t len)
{
    struct xlft_json v;
    char req[256], *ans;
    int64_t ver;
    int rc;

    *doc = NULL;
    snprintf(req, sizeof(req), "status-json %d%s%s\n", STATUS_VERSION,
             guest ? " " : "", guest ? guest : "");
    rc = ctl_ask(socket, req, &ans, why, len);
    if (rc)
        return rc;
    if (!strncmp(ans, "error: commands are", 19)) {
        snprintf(why, len, "this ftd has no JSON status (older than this "
                 "xl-ft?)");
        rc = -EPROTONOSUPPORT;
    } else if (ctl_refused(ans)) {
        snprintf(why, len, "%.*s", (int)strcspn(ans + 7, "\n"), ans + 7);
        rc = -ENOENT;
    } else if (xlft_json_check(ans, strlen(ans)) ||
               xlft_json_get(ans, strlen(ans), "version", &v) != 1 ||
               xlft_json_int(&v, &ver)) {
        snprintf(why, len, "ftd's status is not a JSON document of this "
                 "schema");
        rc = -EBADMSG;
    } else if (ver != STATUS_VERSION) {
        snprintf(why, len, "ftd answered status schema version %lld; this "
                 "xl-ft reads version %d", (long long)ver, STATUS_VERSION);
        rc = -EPROTONOSUPPORT;
    }
    if (rc)
        free(ans);
    else
        *doc = ans;
    return rc;
}

/* One look: 0, or 1 with what went wrong said on stderr. */
static int show(const struct status_opts *o)
{
    char req[256], why[300], *ans;
    int rc;

    if (o->json) {
        rc = status_fetch(o->socket, o->guest, &ans, why, sizeof(why));
        if (rc) {
            fprintf(stderr, "xl-ft: %s\n", why);
            return 1;
        }
        fputs(ans, stdout);
        free(ans);
        return 0;
    }
    snprintf(req, sizeof(req), "status%s%s\n", o->guest ? " " : "",
             o->guest ? o->guest : "");
    rc = ctl_ask(o->socket, req, &ans, why, sizeof(why));
    if (rc) {
        fprintf(stderr, "xl-ft: %s\n", why);
        return 1;
    }
    fputs(ans, stdout);
    rc = ctl_refused(ans);
    free(ans);
    return rc;
}

int status_run(const struct status_opts *o)
{
    bool tty = isatty(STDOUT_FILENO);
    struct timespec second = { 1, 0 };
    sigset_t sigs;
    long shown = 0;
    int rc;

    if (!o->watch)
        return show(o);
    /* Taken as they come, between two refreshes: the watch ends. */
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigprocmask(SIG_BLOCK, &sigs, NULL);
    for (;;) {
        if (!o->json) {
            char at[16];
            time_t now = time(NULL);

            strftime(at, sizeof(at), "%H:%M:%S", localtime(&now));
            if (tty)
                fputs("\033[H\033[2J", stdout);
            printf("%sft-status at %s, every second (^C ends)%s\n",
                   tty ? "" : "--- ", at, tty ? "" : " ---");
        }
        rc = show(o);
        fflush(stdout);
        if (o->count && ++shown >= o->count)
            return rc;
        if (sigtimedwait(&sigs, NULL, &second) >= 0)
            return 0;
        if (errno != EAGAIN && errno != EINTR) {
            fprintf(stderr, "xl-ft: waiting: %s\n", strerror(errno));
            return 1;
        }
    }
}
