// SPDX-License-Identifier: GPL-2.0-only
/*
 * timer.c - host time drives the guest's PIT on the primary: a thread
 * counts the periods the guest programmed as they elapse and kicks the
 * vCPU, which raises IRQ 0 wherever it has got to.  That point is the
 * real non-determinism the recorder captures.  The secondary has no
 * timer: its interrupts come from the log.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "ftvm.h"

static pthread_t thread;
static int stopping;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *timer_main(void *arg)
{
    struct ftvm *vm = arg;
    uint64_t next = 0;

    while (!__atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) {
        struct timespec ts;
        uint64_t period = 0, one = 1;

        /* The divisor is the guest's to change at any time. */
        period = __atomic_load_n(&vm->timer_period, __ATOMIC_ACQUIRE);
        if (!period) {
            /* No timer yet: still stop the vCPU now and then, so that
             * deadlines and state hashes are not missed. */
            ts = (struct timespec){ 0, 10000000 };
            nanosleep(&ts, NULL);
            __atomic_store_n(&vm->kick, 1, __ATOMIC_RELEASE);
            next = 0;
            continue;
        }
        if (!next)
            next = now_ns() + period;
        ts.tv_sec = (time_t)(next / 1000000000ull);
        ts.tv_nsec = (long)(next % 1000000000ull);
        if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
            continue;
        next += period;
        __atomic_fetch_add(&vm->ticks_due, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&vm->kick, 1, __ATOMIC_RELEASE);
        if (write(vm->tick_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
            break;
    }
    return NULL;
}

int ftvm_timer_start(struct ftvm *vm)
{
    vm->tick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (vm->tick_fd < 0)
        return -errno;
    stopping = 0;
    if (pthread_create(&thread, NULL, timer_main, vm)) {
        close(vm->tick_fd);
        vm->tick_fd = -1;
        return -EAGAIN;
    }
    return 0;
}

void ftvm_timer_stop(struct ftvm *vm)
{
    if (vm->tick_fd < 0)
        return;
    __atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
    pthread_join(thread, NULL);
    close(vm->tick_fd);
    vm->tick_fd = -1;
}

/*
 * Sleep until a tick is due, 'io_fd' (if not -1) is readable, a control
 * request waits, or 'timeout_ms' passes: 1, 0, or -errno.
 */
int ftvm_timer_wait(struct ftvm *vm, int timeout_ms, int io_fd)
{
    struct pollfd p[4] = { { .fd = vm->tick_fd, .events = POLLIN },
                           { .fd = vm->ctl_fd, .events = POLLIN },
                           { .fd = io_fd, .events = POLLIN },
                           /* acknowledgements for the output gate */
                           { .fd = vm->gate ? vm->down_fd : -1,
                             .events = POLLIN } };
    uint64_t n;
    int rc;

    if (__atomic_load_n(&vm->ticks_due, __ATOMIC_ACQUIRE) != vm->ticks_done)
        return 1;
    rc = poll(p, 4, timeout_ms);
    if (rc > 0 && (p[3].revents & POLLIN) &&
        read(vm->down_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
        return -errno;
    if (rc < 0)
        return errno == EINTR ? 0 : -errno;
    if ((p[0].revents & POLLIN) &&
        read(vm->tick_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
        return -errno;
    return rc > 0;
}
