/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * status.h - ft-status: once, as JSON, or watched (status.c); the copy's
 * progress after ft-enable (progress.c).
 */
#ifndef XLFT_CLI_STATUS_H
#define XLFT_CLI_STATUS_H

#include <stdbool.h>
#include <stddef.h>

struct status_opts {
    const char *socket;
    const char *guest;          /* NULL: every pair */
    bool json;
    bool watch;
    long count;                 /* watch: refreshes (0: until a signal) */
};

/*
 * ftd's status as a checked JSON document of this xl-ft's schema
 * version (*doc malloc'd): 0, or -errno and 'why' (ftd's refusal
 * included).
 */
int status_fetch(const char *socket, const char *guest, char **doc,
                 char *why, size_t len);

/* ft-status: the exit status. */
int status_run(const struct status_opts *o);

/* After ft-enable of 'guest': the copy's progress until it is done. */
void progress_run(const char *socket, const char *guest);

#endif /* XLFT_CLI_STATUS_H */
