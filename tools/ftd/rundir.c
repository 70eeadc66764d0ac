// SPDX-License-Identifier: GPL-2.0-only
/*
 * rundir.c - the sockets and files of ftd's run directory (rundir.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir.h"

/*
 * A symbolic link would take a connect elsewhere, and anything else is
 * not ours to remove.
 */
int ftd_run_sock_ok(const char *path, char *why, size_t len)
{
    struct stat st;
    int err;

    if (lstat(path, &st)) {
        err = errno;
        if (err == ENOENT)
            return 0;
        snprintf(why, len, "%s: %s", path, strerror(err));
        return -err;
    }
    if (S_ISSOCK(st.st_mode))
        return 0;
    snprintf(why, len, "%s is %s, not a socket: not used, not removed",
             path, S_ISLNK(st.st_mode) ? "a symbolic link" :
                   S_ISREG(st.st_mode) ? "a regular file" :
                   S_ISDIR(st.st_mode) ? "a directory" : "a special file");
    return -EEXIST;
}

/*
 * Written by ftd or the guest it starts, as root: a FIFO would block,
 * and a device or a file with another name elsewhere is not ours.
 */
int ftd_run_file_open(const char *path, int flags, char *why, size_t len)
{
    struct stat st;
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
                  O_CLOEXEC | flags, 0600);
    int err;

    if (fd < 0) {
        err = errno;
        if (err == ELOOP)
            snprintf(why, len, "%s is a symbolic link: not followed",
                     path);
        else
            snprintf(why, len, "cannot write %s: %s", path,
                     strerror(err));
        return -err;
    }
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
        snprintf(why, len, "%s is not a regular file of its own (a FIFO, a "
                 "device, or a hard link): not written", path);
        close(fd);
        return -EINVAL;
    }
    /* Only the opening was not to wait; the guest's writes may. */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}
