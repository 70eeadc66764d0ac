// SPDX-License-Identifier: GPL-2.0-only
/*
 * disk.c - a block device with a request ring in guest memory, behind a
 * host file (layout: DEVICES.md).
 *
 * A request is taken when the guest kicks: its sector, length and buffer
 * are read from guest memory at that point on both sides alike, and a
 * write is an output there.  The primary then does the I/O with the host
 * file at once, but what comes back (read data, status, the ring's used
 * index) is held and enters guest memory only at a later point where the
 * completion interrupt can be taken, as DMA records: the secondary, which
 * never touches the file, gets exactly those bytes at exactly that point.
 * So the device keeps no state that depends on the host: ring address,
 * size, control and how far the guest's requests have been taken.
 *
 * The file is opened O_DSYNC: a write is on the disk when pwrite
 * returns, before its completion is queued, logged and seen by the
 * guest, so a secondary never holds as completed a write that a power
 * loss of the primary took away.  Each request has its own completion
 * and our guests keep one in flight, so a batched fdatasync before
 * disk_complete would cost the same flush per write, with the state and
 * the error mapping onto earlier writes it needs besides.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftvm.h"

#define SECTOR      512u
#define SLOT_SIZE   32u
#define RING_HDR    8u          /* avail, used */
#define MAX_COUNT   128u        /* sectors per request: one DMA record */

#define ST_OK       0u
#define ST_BAD      1u          /* malformed request */
#define ST_RANGE    2u          /* beyond the disk */
#define ST_IO       3u          /* the host's I/O failed */

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
    d->sectors = (uint64_t)st.st_size / SECTOR;
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

uint32_t disk_read(struct ftvm *vm, uint32_t reg)
{
    struct disk *d = &vm->disk;

    switch (reg) {
    case DISK_ID:
        return DISK_ID_VALUE;
    case DISK_SECTORS:
        return d->sectors > UINT32_MAX ? UINT32_MAX : (uint32_t)d->sectors;
    case DISK_RING:
        return d->ring;
    case DISK_SIZE:
        return d->size;
    case DISK_CTRL:
        return d->ctrl;
    default:
        return 0;
    }
}

/* A request on its way to the host file, and a write's data after it. */
struct disk_req {
    uint32_t op, slot, sector, count, addr, status;
};

/* Do the I/O of a request with the host file; its completion waits. */
void disk_perform(struct ftvm *vm, const void *buf, size_t buflen)
{
    struct disk *d = &vm->disk;
    struct disk_req q;
    uint32_t len, status;
    struct disk_done *c;
    uint8_t *data = NULL;

    memcpy(&q, buf, sizeof(q));
    len = q.count * SECTOR;
    status = q.status;
    if (status == ST_OK && (uint64_t)q.sector + q.count > d->sectors)
        status = ST_RANGE;
    if (status == ST_OK && q.op == DISK_OP_READ) {
        data = malloc(len);
        if (!data || pread(d->fd, data, len, (off_t)q.sector * SECTOR) !=
                     (ssize_t)len)
            status = ST_IO;
    } else if (status == ST_OK) {
        if (buflen != sizeof(q) + len ||
            pwrite(d->fd, (const uint8_t *)buf + sizeof(q), len,
                   (off_t)q.sector * SECTOR) != (ssize_t)len)
            status = ST_IO;
    }
    if (status != ST_OK) {
        free(data);
        data = NULL;
    }
    if (d->pending == DISK_QUEUE) {
        free(data);
        ftvm_fail(vm, FTVM_EXIT_ERROR, "disk: more than %u requests "
                  "outstanding", DISK_QUEUE);
        return;
    }
    c = &d->done[d->pending++];
    *c = (struct disk_done){ q.slot, status, q.addr, data ? len : 0, data };
    /* Stop at the next instruction: the completion is ready. */
    __atomic_store_n(&vm->kick, 1, __ATOMIC_RELAXED);
}

/* Read a request from its slot in guest memory. */
static struct disk_req request(struct ftvm *vm, uint32_t slot)
{
    struct disk_req q = { .op = ftvm_mem32(vm, slot), .slot = slot,
                          .sector = ftvm_mem32(vm, slot + 4),
                          .count = ftvm_mem32(vm, slot + 8),
                          .addr = ftvm_mem32(vm, slot + 12),
                          .status = ST_OK };
    uint32_t len = q.count * SECTOR;

    if ((q.op != DISK_OP_READ && q.op != DISK_OP_WRITE) || !q.count ||
        q.count > MAX_COUNT ||
        q.addr > vm->ram_size || len > vm->ram_size - q.addr)
        q.status = ST_BAD;
    return q;
}

/* To the host file: through the output gate when there is one. */
static void submit(struct ftvm *vm, const struct disk_req *q)
{
    uint32_t len = q->op == DISK_OP_WRITE && q->status == ST_OK ?
                   q->count * SECTOR : 0;
    uint8_t *buf = malloc(sizeof(*q) + len);

    if (!buf) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "disk: out of memory");
        return;
    }
    memcpy(buf, q, sizeof(*q));
    if (len)
        memcpy(buf + sizeof(*q), vm->ram + q->addr, len);
    ftvm_output(vm, FTVM_OUT_DISK, vm->output_id, buf, sizeof(*q) + len);
    free(buf);
}

/* Take one request: the I/O on the primary, the output on both sides. */
static void take(struct ftvm *vm, uint32_t slot)
{
    struct disk_req q = request(vm, slot);

    if (q.op == DISK_OP_WRITE && q.status == ST_OK) {
        struct ft_log_rec r = { .kind = FT_K_OUTPUT };

        r.u.output.id = ++vm->output_id;
        if (!ftvm_input(vm, &r))
            return;
    }
    if (vm->mode == FTVM_REPLAY)
        return;                 /* its completion is in the log */
    submit(vm, &q);
}

/*
 * A secondary going live: the requests the guest has seen taken but not
 * completed may never have reached the file on the primary (their
 * completion, like all that follows it, is not in the log).  They are
 * done again here, in order; doing a write twice is harmless.
 */
void disk_reissue(struct ftvm *vm)
{
    struct disk *d = &vm->disk;
    uint32_t used;

    if (!(d->ctrl & 1) || !d->size || d->fd < 0 ||
        d->ring > vm->ram_size - RING_HDR - d->size * SLOT_SIZE)
        return;
    used = ftvm_mem32(vm, d->ring + 4);
    for (uint32_t n = 0; used != d->next && n < d->size; n++, used++) {
        struct disk_req q = request(vm, d->ring + RING_HDR +
                                        (used & (d->size - 1)) * SLOT_SIZE);

        submit(vm, &q);
    }
}

void disk_write(struct ftvm *vm, uint32_t reg, uint32_t val)
{
    struct disk *d = &vm->disk;

    switch (reg) {
    case DISK_RING:
        d->ring = val;
        break;
    case DISK_SIZE:
        d->size = val && val <= 256 && !(val & (val - 1)) ? val : 0;
        break;
    case DISK_CTRL:
        d->ctrl = val & 1;
        break;
    case DISK_KICK:
        if (!(d->ctrl & 1) || !d->size ||
            d->ring > vm->ram_size - RING_HDR - d->size * SLOT_SIZE)
            break;
        /* At most one ring's worth: a wild index cannot loop for long. */
        for (uint32_t n = 0; d->next != val && n < d->size && !vm->status;
             n++, d->next++)
            take(vm, d->ring + RING_HDR + (d->next & (d->size - 1)) *
                                          SLOT_SIZE);
        break;
    default:
        break;
    }
}

/*
 * The primary, at a point where the interrupt can be taken: completions
 * enter guest memory (recorded as DMA) and raise IRQ 14.
 */
int disk_complete(struct ftvm *vm)
{
    struct disk *d = &vm->disk;

    for (unsigned int i = 0; i < d->pending; i++) {
        struct disk_done *c = &d->done[i];
        uint32_t used;
        int rc = 0;

        if (c->len)
            rc = ftvm_dma_in(vm, c->addr, c->data, c->len);
        if (!rc)
            rc = ftvm_dma_in(vm, c->slot + 16, &c->status, 4);
        used = ftvm_mem32(vm, d->ring + 4) + 1;
        if (!rc)
            rc = ftvm_dma_in(vm, d->ring + 4, &used, 4);
        free(c->data);
        c->data = NULL;
        if (rc) {
            while (++i < d->pending)
                free(d->done[i].data);
            d->pending = 0;
            return rc;
        }
    }
    if (d->pending)
        pic_raise(vm, DISK_IRQ);
    d->pending = 0;
    return 0;
}
