/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * disk.h - the disk behind ftdm's virtio-blk: a file or block device
 * in dom0, shared storage that only the live copy of the guest writes.
 *
 * Opened O_DSYNC: a write is on the disk when it returns, before its
 * completion is logged and seen by the guest, so no copy ever holds as
 * done a write that a power loss of the primary took away; a flush has
 * nothing left to do.
 */
#ifndef FTDM_DISK_H
#define FTDM_DISK_H

#include <stddef.h>
#include <stdint.h>

#include "vio.h"

struct ftdm_disk {
    int fd;                     /* -1: none */
    uint64_t sectors;
    int said;                   /* the last errno said */
};

/* 0, or -errno with 'err' naming the domain and the path. */
int ftdm_disk_open(struct ftdm_disk *d, uint32_t domid, const char *path,
                   char *err, size_t errlen);
void ftdm_disk_close(struct ftdm_disk *d);

/*
 * Forget what this host has cached of the disk: a copy going live
 * reads what the primary's host wrote to the shared storage, not what
 * this dom0 read of it before.
 */
void ftdm_disk_forget(struct ftdm_disk *d);

/*
 * Do 'req' (its data, for a write, in req->data): the status the guest
 * gets (VIO_BLK_S_*); a read's bytes in 'buf' (req->len bytes).  A
 * failure of the file is said on stderr, naming 'domid', once per
 * errno.
 */
uint32_t ftdm_disk_do(struct ftdm_disk *d, const struct vio_blk_req *req,
                      void *buf, uint32_t domid);

#endif /* FTDM_DISK_H */
