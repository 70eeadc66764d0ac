// SPDX-License-Identifier: GPL-2.0-only
/*
 * disk.c - ftdm's disk backend (disk.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk.h"

int ftdm_disk_open(struct ftdm_disk *d, uint32_t domid, const char *path,
                   char *err, size_t errlen)
{
    struct stat st;
    uint64_t bytes;
    int rc;

    d->fd = open(path, O_RDWR | O_DSYNC | O_CLOEXEC);
    if (d->fd < 0 || fstat(d->fd, &st)) {
        rc = -errno;
        goto out;
    }
    if (S_ISBLK(st.st_mode)) {
        if (ioctl(d->fd, BLKGETSIZE64, &bytes)) {
            rc = -errno;
            goto out;
        }
    } else if (S_ISREG(st.st_mode)) {
        bytes = (uint64_t)st.st_size;
    } else {
        rc = -EINVAL;
        goto out;
    }
    d->sectors = bytes / VIO_BLK_SECTOR;
    if (!d->sectors) {
        rc = -ENOSPC;
        goto out;
    }
    return 0;
out:
    snprintf(err, errlen, "domain %u: disk %s: %s", domid, path,
             rc == -EINVAL ? "neither a file nor a block device" :
             rc == -ENOSPC ? "smaller than one sector" : strerror(-rc));
    ftdm_disk_close(d);
    return rc;
}

void ftdm_disk_close(struct ftdm_disk *d)
{
    if (d->fd >= 0)
        close(d->fd);
    d->fd = -1;
}

void ftdm_disk_forget(struct ftdm_disk *d)
{
    if (d->fd >= 0)
        posix_fadvise(d->fd, 0, 0, POSIX_FADV_DONTNEED);
}

uint32_t ftdm_disk_do(struct ftdm_disk *d, const struct vio_blk_req *req,
                      void *buf, uint32_t domid)
{
    off_t at = (off_t)(req->sector * VIO_BLK_SECTOR);
    ssize_t n;

    if (req->status != VIO_BLK_S_OK)
        return req->status;
    if (req->type != VIO_BLK_T_IN && req->type != VIO_BLK_T_OUT)
        return VIO_BLK_S_OK;            /* a flush: O_DSYNC did it */
    if (d->fd < 0 || req->sector > d->sectors ||
        req->len / VIO_BLK_SECTOR > d->sectors - req->sector)
        return VIO_BLK_S_IOERR;         /* beyond the disk, or none */
    if (!req->len)
        return VIO_BLK_S_OK;
    n = req->type == VIO_BLK_T_IN ? pread(d->fd, buf, req->len, at)
                                  : pwrite(d->fd, req->data, req->len, at);
    if (n == (ssize_t)req->len)
        return VIO_BLK_S_OK;
    if (n >= 0)
        errno = EIO;                    /* short: the file shrank */
    if (errno != d->said)
        fprintf(stderr, "ftdm: domain %u: disk %s of %u bytes at sector "
                "%llu: %s; the guest gets an I/O error\n", domid,
                req->type == VIO_BLK_T_IN ? "read" : "write", req->len,
                (unsigned long long)req->sector, strerror(errno));
    d->said = errno;
    return VIO_BLK_S_IOERR;
}
