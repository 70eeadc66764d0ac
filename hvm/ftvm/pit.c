// SPDX-License-Identifier: GPL-2.0-only
/*
 * pit.c - i8254 channel 0: the divisor the guest programs sets the rate
 * of the host timer (timer.c); the counter it reads back comes from host
 * time, so such reads are inputs like any other port read (recorded on
 * the primary, answered from the log on the secondary).
 */
#include <time.h>

#include "ftvm.h"

#define PIT_HZ 1193182ull

void pit_reset(struct pit *p)
{
    *p = (struct pit){ 0 };
}

uint64_t pit_period_ns(const struct pit *p)
{
    uint64_t div = p->reload ? p->reload : 65536;

    return div * 1000000000ull / PIT_HZ;
}

/* What the down-counter holds now, from host time. */
static uint16_t counter_now(const struct pit *p)
{
    struct timespec ts;
    uint64_t div = p->reload ? p->reload : 65536, ns;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    return (uint16_t)(div - (ns * PIT_HZ / 1000000000ull) % div);
}

uint8_t pit_read(struct ftvm *vm, int port)
{
    struct pit *p = &vm->pit;
    uint16_t v;

    if (port != 0x40)
        return 0;
    v = p->latched ? p->latch : counter_now(p);
    if (p->access == 3) {               /* lo then hi */
        bool hi = p->read_hi;

        p->read_hi = !hi;
        if (hi)
            p->latched = false;
        return (uint8_t)(hi ? v >> 8 : v);
    }
    p->latched = false;
    return (uint8_t)(p->access == 2 ? v >> 8 : v);
}

/* The timer thread reads the rate from here, never from the PIT. */
static void publish_rate(struct ftvm *vm)
{
    __atomic_store_n(&vm->timer_period, pit_period_ns(&vm->pit),
                     __ATOMIC_RELEASE);
}

void pit_write(struct ftvm *vm, int port, uint8_t val)
{
    struct pit *p = &vm->pit;

    if (port == 0x43) {
        if ((val >> 6) != 0)            /* channels 1, 2, read-back */
            return;
        if (((val >> 4) & 3) == 0) {    /* counter latch */
            p->latch = counter_now(p);
            p->latched = true;
            p->read_hi = false;
            return;
        }
        p->access = (val >> 4) & 3;
        p->mode = (val >> 1) & 7;
        p->write_hi = p->read_hi = false;
        return;
    }
    if (port != 0x40)
        return;
    switch (p->access) {
    case 1:
        p->reload = (uint16_t)((p->reload & 0xff00) | val);
        break;
    case 2:
        p->reload = (uint16_t)((p->reload & 0x00ff) | val << 8);
        break;
    default:
        if (!p->write_hi) {
            /* Half a divisor: the new rate starts with the high byte. */
            p->reload = (uint16_t)((p->reload & 0xff00) | val);
            p->write_hi = true;
            return;
        }
        p->reload = (uint16_t)((p->reload & 0x00ff) | val << 8);
        p->write_hi = false;
        break;
    }
    p->armed = true;
    publish_rate(vm);
}
