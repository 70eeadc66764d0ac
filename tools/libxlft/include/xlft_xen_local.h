/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_xen_local.h - this host's configuration of a Xen guest, in
 * libxl's JSON, for a secondary to check its peer's against
 * (xlft_xen_config_allow.h).  'path' is the guest's xl configuration
 * file, the one `xl create` would start it from here: its libxl form is
 * what `XL create --dryrun --quiet -f PATH` prints.  A file whose first
 * character (after white space) is '{' is taken as libxl JSON already.
 */
#ifndef XLFT_XEN_LOCAL_H
#define XLFT_XEN_LOCAL_H

#include <stddef.h>

/*
 * '*json' (malloc'd, NUL-terminated, at most XLFT_COPY_CONFIG_MAX bytes)
 * or -errno with 'err' naming 'path' and what is wrong: it cannot be
 * read, is no regular file, or is too long; XL ("xl" if NULL, looked up
 * in PATH) cannot be run, fails, writes too much or takes longer than
 * 'timeout_ms' (then it is killed: -ETIMEDOUT).
 */
int xlft_xen_local_config(const char *path, const char *xl,
                          unsigned int timeout_ms, char **json, char *err,
                          size_t errlen);

#endif /* XLFT_XEN_LOCAL_H */
