// SPDX-License-Identifier: GPL-2.0-only
/*
 * blk.c - the disk behind the virtio-blk function: a host file.
 *
 * The device core takes a request at the guest's notify, on both sides
 * alike; a write is an output there.  The primary's request goes
 * through the output gate (reads too, so that a read never overtakes a
 * write it follows) and is done with the host file when it leaves; what
 * comes back waits here and enters guest memory only at a later point
 * where the interrupt can be taken, as DMA records (devices.c): the
 * copy, which never touches the file, gets exactly those bytes at
 * exactly that point.
 *
 * The file is opened O_DSYNC: a write is on the disk when pwrite
 * returns, before its completion is queued, logged and seen by the
 * guest, so a copy never holds as completed a write that a power loss
 * of the primary took away.  A flush has nothing left to do.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftvm.h"

int disk_open(struct ftvm *vm, const char *path)
{
    struct disk *d = &vm->disk;
    struct stat st;

    d->fd = open(path, O_RDWR | O_DSYNC | O_CLOEXEC);
    if (d->fd < 0 || fstat(d->fd, &st)) {
        snprintf(vm->why, sizeof(vm->why), "cannot open disk %s: %s", path,
                 strerror(errno));
        return -errno;
    }
    d->sectors = (uint64_t)st.st_size / VIO_BLK_SECTOR;
    vio_blk_set_capacity(vm->pci, PCI_SLOT_BLK, d->sectors);
    return 0;
}

void disk_close(struct ftvm *vm)
{
    struct disk *d = &vm->disk;

    if (d->fd >= 0)
        close(d->fd);
    d->fd = -1;
    for (unsigned int i = 0; i < d->pending; i++)
        free(d->done[i].data);
    d->pending = 0;
}

/* A request the core took: an output, then to the gate (primary). */
void disk_submit(struct ftvm *vm, const struct vio_blk_req *req)
{
    struct vio_blk_req q = *req;
    size_t dlen = q.type == VIO_BLK_T_OUT ? q.len : 0;
    uint8_t *buf = vm->mode == FTVM_REPLAY ? NULL
                                           : malloc(sizeof(q) + dlen);

    /* The data is the core's until this returns: copied first. */
    q.data = NULL;
    if (buf) {
        memcpy(buf, &q, sizeof(q));
        if (dlen)
            memcpy(buf + sizeof(q), req->data, dlen);
    } else if (vm->mode != FTVM_REPLAY) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "disk: out of memory");
        return;
    }
    if (q.type == VIO_BLK_T_OUT && q.status == VIO_BLK_S_OK) {
        struct ft_log_rec r = { .kind = FT_K_OUTPUT };

        r.u.output.id = ++vm->output_id;
        if (!ftvm_input(vm, &r)) {
            free(buf);
            return;
        }
    }
    /* A copy's completion is in the log; one that went live in the
     * wait above has no copy of the request yet, and makes one now. */
    if (vm->mode == FTVM_REPLAY)
        return;
    if (!buf) {
        buf = malloc(sizeof(q) + dlen);
        if (!buf) {
            ftvm_fail(vm, FTVM_EXIT_ERROR, "disk: out of memory");
            return;
        }
        memcpy(buf, &q, sizeof(q));
        if (dlen)
            memcpy(buf + sizeof(q), req->data, dlen);
    }
    ftvm_output(vm, FTVM_OUT_DISK, vm->output_id, buf, sizeof(q) + dlen);
    free(buf);
}

/* Do a request with the host file as it leaves the gate. */
void disk_perform(struct ftvm *vm, const void *buf, size_t buflen)
{
    struct disk *d = &vm->disk;
    struct vio_blk_req q;
    uint32_t status;
    uint8_t *data = NULL;
    off_t at;

    memcpy(&q, buf, sizeof(q));
    status = q.status;
    at = (off_t)(q.sector * VIO_BLK_SECTOR);
    if (status == VIO_BLK_S_OK && (q.type == VIO_BLK_T_IN ||
                                   q.type == VIO_BLK_T_OUT) &&
        (d->fd < 0 || q.sector > d->sectors ||
         q.len / VIO_BLK_SECTOR > d->sectors - q.sector))
        status = VIO_BLK_S_IOERR;       /* beyond the disk, or none */
    if (status == VIO_BLK_S_OK && q.type == VIO_BLK_T_IN && q.len) {
        data = malloc(q.len);
        if (!data || pread(d->fd, data, q.len, at) != (ssize_t)q.len)
            status = VIO_BLK_S_IOERR;
    } else if (status == VIO_BLK_S_OK && q.type == VIO_BLK_T_OUT && q.len) {
        if (buflen != sizeof(q) + q.len ||
            pwrite(d->fd, (const uint8_t *)buf + sizeof(q), q.len, at) !=
            (ssize_t)q.len)
            status = VIO_BLK_S_IOERR;
    }
    if (status != VIO_BLK_S_OK) {
        free(data);
        data = NULL;
    }
    if (!vio_blk_current(vm->pci, PCI_SLOT_BLK, &q)) {
        free(data);             /* reset since: nobody waits for it */
        return;
    }
    if (d->pending == BLK_QUEUE) {
        free(data);
        ftvm_fail(vm, FTVM_EXIT_ERROR, "disk: more than %u requests "
                  "done and not yet taken in: the guest's driver moves "
                  "the used index itself, or keeps interrupts off",
                  BLK_QUEUE);
        return;
    }
    d->done[d->pending++] = (struct blk_done){ q, status, data };
    /* Stop at the next instruction: the completion is ready. */
    __atomic_store_n(&vm->kick, 1, __ATOMIC_RELAXED);
}

/* The primary, where the interrupt can be taken (devices.c). */
int disk_complete(struct ftvm *vm)
{
    struct disk *d = &vm->disk;

    for (unsigned int i = 0; i < d->pending; i++) {
        struct blk_done *c = &d->done[i];

        if (!vm->status)
            vio_blk_complete(vm->pci, PCI_SLOT_BLK, &c->req, c->status,
                             c->data);
        free(c->data);
        c->data = NULL;
    }
    d->pending = 0;
    return vm->status ? -1 : 0;
}
