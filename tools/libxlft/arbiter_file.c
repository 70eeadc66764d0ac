// SPDX-License-Identifier: GPL-2.0-only
/*
 * arbiter_file.c - the file:DIR arbiter.
 *
 * A claim is the file DIR/<pair>.<gen> holding the winner's name.  It is
 * written whole under a private name, flushed, then link(2)ed to the
 * claim name: the link either creates the claim with its full contents
 * or fails with EEXIST, on a local file system and on NFS alike (where
 * O_EXCL was not always atomic).  A link whose reply was lost on NFS is
 * recognised by the private name's link count.  Claims never lapse.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xlft_arbiter.h"
#include "xlft_path.h"
#include "arbiter_impl.h"

struct file_arb {
    char dir[4096];
    char pair[XLFT_ARB_NAME_MAX + 1];
};

/*
 * Whoever may write in the directory may win every claim (a claim file
 * put there first is a claim won), so one that others may change is
 * refused.  Its owner is not checked: a file server may map it.  Storage
 * out of reach is not a refusal here: claims say it is unreachable.
 */
static int dir_distrusted(const char *dir, char *err, size_t errlen)
{
    int rc = xlft_dir_trusted("arbiter directory", dir, 0, err, errlen);

    return rc == -EPERM || rc == -ELOOP || rc == -ENOTDIR ? rc : 0;
}

static int file_open(void **priv, const char *arg, const char *pair,
                     char *err, size_t errlen)
{
    struct file_arb *a;
    int rc;

    if (strlen(arg) >= sizeof(a->dir) - XLFT_ARB_NAME_MAX - 64) {
        snprintf(err, errlen, "arbiter directory name too long");
        return -EINVAL;
    }
    rc = dir_distrusted(arg, err, errlen);
    if (rc)
        return rc;
    a = calloc(1, sizeof(*a));
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    strcpy(a->dir, arg);
    strcpy(a->pair, pair);
    *priv = a;
    return 0;
}

static void file_close(void *priv)
{
    free(priv);
}

/* The holder's name from a claim file: 0, or -errno. */
static int read_claim(const char *path, char *holder, size_t len,
                      char *err, size_t errlen)
{
    char buf[XLFT_ARB_NAME_MAX + 2];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0) {
        int rc = -errno;

        snprintf(err, errlen, "cannot read claim %s: %s", path,
                 strerror(errno));
        return rc;
    }
    n = read(fd, buf, sizeof(buf));
    close(fd);
    if (n < 0) {
        snprintf(err, errlen, "cannot read claim %s: %s", path,
                 strerror(errno));
        return -EIO;
    }
    if (n < 2 || buf[n - 1] != '\n') {
        snprintf(err, errlen, "claim %s is damaged (%zd bytes, no "
                 "holder's name): remove it by hand once you know which "
                 "copy is live", path, n);
        return -EBADMSG;
    }
    buf[n - 1] = '\0';
    if (!xlft_arb_good_name(buf)) {
        snprintf(err, errlen, "claim %s names no valid host", path);
        return -EBADMSG;
    }
    snprintf(holder, len, "%s", buf);
    return 0;
}

static int write_private(const char *tmp, const char *me)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    size_t n = strlen(me);
    int rc = 0;

    if (fd < 0)
        return -errno;
    if (write(fd, me, n) != (ssize_t)n || write(fd, "\n", 1) != 1 ||
        fsync(fd))
        rc = errno ? -errno : -EIO;
    if (close(fd) && !rc)
        rc = -errno;
    return rc;
}

static int file_claim(void *priv, uint64_t gen, const char *me,
                      char *holder, size_t holderlen, char *err,
                      size_t errlen)
{
    struct file_arb *a = priv;
    char path[sizeof(a->dir) + 128], tmp[sizeof(path) + 128];
    struct stat st;
    int rc;

    snprintf(path, sizeof(path), "%s/%s.%" PRIu64, a->dir, a->pair, gen);
    snprintf(tmp, sizeof(tmp), "%s/.%s.%" PRIu64 ".%s.%ld", a->dir, a->pair,
             gen, me, (long)getpid());

    rc = dir_distrusted(a->dir, err, errlen);
    if (rc)
        return rc;
    rc = write_private(tmp, me);
    if (rc) {
        snprintf(err, errlen, "arbiter %s unreachable: cannot write %s: %s",
                 a->dir, tmp, strerror(-rc));
        unlink(tmp);
        return rc;
    }
    if (link(tmp, path) == 0 ||
        (errno != EEXIST && !stat(tmp, &st) && st.st_nlink == 2)) {
        int dfd = open(a->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        unlink(tmp);
        /* The claim must outlive a crash of this host. */
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
        snprintf(holder, holderlen, "%s", me);
        return 1;
    }
    rc = -errno;
    unlink(tmp);
    if (rc != -EEXIST) {
        snprintf(err, errlen, "arbiter %s unreachable: cannot link %s: %s",
                 a->dir, path, strerror(-rc));
        return rc;
    }
    rc = read_claim(path, holder, holderlen, err, errlen);
    if (rc)
        return rc;
    return !strcmp(holder, me);
}

const struct xlft_arb_backend xlft_arb_file = {
    .prefix = "file:",
    .usage = "DIR",
    .open = file_open,
    .close = file_close,
    .claim = file_claim,
};
