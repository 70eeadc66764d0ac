// SPDX-License-Identifier: GPL-2.0-only
/*
 * attach.c - the ring shared with ftd (`ftvm serve`): what Xen's
 * acquire_resource pages and FT event channel are to the xen backend.
 * The ring lives in a memfd that ftd maps; two eventfds carry the
 * notifications of the ft_abi.h protocol, one each way.  ftvm owns the
 * ring and lays it out; ftd checks it before use.  The memfd is sealed
 * at its size before it leaves: ftd maps it for as long as the pair
 * lives, and a file cut from under that mapping would kill ftd (SIGBUS)
 * even when it is this ftvm, taken over by its guest, that cuts it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ftvm.h"

void ftvm_detach(struct ftvm *vm)
{
    if (vm->ring_mem && vm->attached)
        munmap(vm->ring_mem, vm->ring_size);
    if (vm->attached)
        vm->ring_mem = NULL;
    if (vm->up_fd >= 0)
        close(vm->up_fd);
    if (vm->down_fd >= 0)
        close(vm->down_fd);
    vm->up_fd = vm->down_fd = -1;
    vm->attached = false;
}

/*
 * A new ring of 'role' with 'data' bytes of records (0: the default),
 * and its eventfds.  fds[] gets descriptors for ftd (ring, up, down),
 * which the caller closes once sent.  0 or -errno, with vm->why set.
 */
int ftvm_attach(struct ftvm *vm, uint32_t role, uint32_t data, int fds[3])
{
    uint32_t size;
    int mfd, rc;

    if (!data)
        data = FT_RING_DEFAULT_DATA;
    if (data < FT_RING_MIN_DATA || data > FT_RING_MAX_DATA ||
        (data & (data - 1))) {
        snprintf(vm->why, sizeof(vm->why), "ring data size %" PRIu32 " is "
                 "not a power of two from %u to %u", data, FT_RING_MIN_DATA,
                 FT_RING_MAX_DATA);
        return -EINVAL;
    }
    size = FT_RING_HDR_SIZE + data;
    mfd = memfd_create("ftvm-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (mfd < 0 || ftruncate(mfd, size) ||
        fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
        rc = -errno;
        goto fail;
    }
    vm->ring_mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
                        mfd, 0);
    if (vm->ring_mem == MAP_FAILED) {
        vm->ring_mem = NULL;
        rc = -errno;
        goto fail;
    }
    vm->attached = true;
    vm->ring_size = size;
    vm->up_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    vm->down_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (vm->up_fd < 0 || vm->down_fd < 0) {
        rc = -errno;
        goto fail;
    }
    if (ft_ring_init(&vm->ring, vm->ring_mem, size, role) ||
        ft_ring_set_kind(&vm->ring, FTVM_COUNTER, FT_CPU_FTVM) ||
        (role == FT_RING_RECORD ? ft_recorder_init(&vm->rec, &vm->ring)
                                : ft_replay_init(&vm->rp, &vm->ring))) {
        rc = -EINVAL;
        goto fail;
    }
    fds[0] = mfd;
    fds[1] = vm->up_fd;
    fds[2] = vm->down_fd;
    return 0;
fail:
    snprintf(vm->why, sizeof(vm->why), "cannot set up a shared ring of "
             "%" PRIu32 " bytes: %s", size, strerror(-rc));
    if (mfd >= 0)
        close(mfd);
    ftvm_detach(vm);
    return rc;
}

/* Tell ftd to look at the ring (records, space, flags). */
void ftvm_notify(struct ftvm *vm)
{
    uint64_t one = 1;

    /* A full counter already says "look": EAGAIN loses nothing. */
    if (vm->up_fd >= 0 && write(vm->up_fd, &one, sizeof(one)) < 0 &&
        errno != EAGAIN)
        ftvm_fail(vm, FTVM_EXIT_ERROR, "cannot notify ftd: %s",
                  strerror(errno));
}

/*
 * Wait for ftd's notification, a control request, or 'timeout_ms'.
 * 0 or -errno.
 */
int ftvm_wait_ftd(struct ftvm *vm, int timeout_ms)
{
    struct pollfd p[2] = { { .fd = vm->down_fd, .events = POLLIN },
                           { .fd = vm->ctl_fd, .events = POLLIN } };
    uint64_t n;

    if (poll(p, 2, timeout_ms) < 0)
        return errno == EINTR ? 0 : -errno;
    if ((p[0].revents & POLLIN) &&
        read(vm->down_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
        return -errno;
    return 0;
}
