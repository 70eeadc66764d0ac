/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ctl.h - one command to this host's ftd over its control socket, one
 * answer back (tools/ftd/ftd.8, the control socket).
 */
#ifndef XLFT_CLI_CTL_H
#define XLFT_CLI_CTL_H

#include <stddef.h>

/* The status schema this xl-ft reads (tools/xl-ft/STATUS.md). */
#define STATUS_VERSION 2

/*
 * Send 'req' (a line, its newline included) to ftd at 'path' and read
 * the answer to its end into *ans (malloc'd, NUL-terminated).  0, or
 * -errno with 'why' saying what failed.
 */
int ctl_ask(const char *path, const char *req, char **ans, char *why,
            size_t len);

/* The answer is ftd's refusal ("error: ..."). */
int ctl_refused(const char *ans);

#endif /* XLFT_CLI_CTL_H */
