// SPDX-License-Identifier: GPL-2.0-only
/*
 * path.c - directories that no one but root may change (xlft_path.h).
 *
 * Whoever may write in a directory may rename what is in it and put
 * something else in its place: a run-dir under a directory that a user
 * owns is that user's, whatever the run-dir's own mode says.  So the
 * check walks up to /, as sshd's StrictModes does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xlft_path.h"

static bool owner_ok(const struct stat *st)
{
    return st->st_uid == 0 || st->st_uid == geteuid();
}

/* One directory above the checked one: 0, or -EPERM with 'why'. */
static int above_ok(const char *what, const char *dir, const char *up,
                    char *why, size_t len)
{
    struct stat st;

    if (stat(up, &st)) {
        int err = errno;

        snprintf(why, len, "%s %s: %s: %s", what, dir, up, strerror(err));
        return -err;
    }
    if (!owner_ok(&st)) {
        snprintf(why, len, "%s %s: the directory %s above it is owned by "
                 "uid %u, who could replace it; it must be root's",
                 what, dir, up, (unsigned int)st.st_uid);
        return -EPERM;
    }
    if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)) {
        snprintf(why, len, "%s %s: the directory %s above it has mode "
                 "%04o: group or others could replace it", what, dir, up,
                 (unsigned int)(st.st_mode & 07777));
        return -EPERM;
    }
    return 0;
}

int xlft_dir_trusted(const char *what, const char *dir, unsigned int flags,
                     char *why, size_t len)
{
    char *real = NULL, *slash;
    struct stat st;
    int rc;

    if (lstat(dir, &st)) {
        rc = -errno;
        snprintf(why, len, "%s %s: %s", what, dir, strerror(-rc));
        goto out;
    }
    if (S_ISLNK(st.st_mode)) {
        snprintf(why, len, "%s %s is a symbolic link; name the directory "
                 "itself", what, dir);
        rc = -ELOOP;
        goto out;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, len, "%s %s is not a directory", what, dir);
        rc = -ENOTDIR;
        goto out;
    }
    if ((flags & XLFT_DIR_OWNED) && !owner_ok(&st)) {
        snprintf(why, len, "%s %s is owned by uid %u, not by root or uid "
                 "%u that this runs as", what, dir,
                 (unsigned int)st.st_uid, (unsigned int)geteuid());
        rc = -EPERM;
        goto out;
    }
    if (st.st_mode & 022) {
        snprintf(why, len, "%s %s has mode %04o: group or others may "
                 "write in it (make it 0700, or 0755)", what, dir,
                 (unsigned int)(st.st_mode & 07777));
        rc = -EPERM;
        goto out;
    }
    real = realpath(dir, NULL);
    if (!real) {
        rc = -errno;
        snprintf(why, len, "%s %s: %s", what, dir, strerror(-rc));
        goto out;
    }
    rc = 0;
    while (!rc && (slash = strrchr(real, '/'))) {
        if (slash == real) {
            rc = above_ok(what, dir, "/", why, len);
            break;
        }
        *slash = '\0';
        rc = above_ok(what, dir, real, why, len);
    }
out:
    free(real);
    return rc;
}
