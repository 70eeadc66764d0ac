// SPDX-License-Identifier: GPL-2.0-only
/*
 * lapic.c - the part of a local APIC that MSI needs: a request register
 * set by messages, an in-service register set as the CPU takes a
 * vector and cleared by EOI, the task priority and the spurious vector
 * register's enable bit.  No timer, no LVT, no IPIs (one vCPU).
 *
 * As with the PICs, requests come from the host's devices on the
 * primary only, and each taking of a vector is in the log: so IRR is
 * the host's (not hashed), and ISR, TPR and SVR are state both copies
 * share (lapic_ack_vector() sets ISR on the copy from the log).
 */
#include "ftvm.h"

void lapic_reset(struct lapic *l)
{
    *l = (struct lapic){ .svr = 0xff };
}

static int highest(const uint32_t *bits)
{
    for (int w = 7; w >= 0; w--) {
        if (bits[w])
            return w * 32 + 31 - __builtin_clz(bits[w]);
    }
    return -1;
}

uint32_t lapic_read(struct ftvm *vm, uint32_t off)
{
    struct lapic *l = &vm->lapic;

    if (off >= LAPIC_ISR && off < LAPIC_ISR + 0x80 && !(off & 0xf))
        return l->isr[(off - LAPIC_ISR) >> 4];
    if (off >= LAPIC_IRR && off < LAPIC_IRR + 0x80 && !(off & 0xf))
        return l->irr[(off - LAPIC_IRR) >> 4];
    switch (off) {
    case LAPIC_ID:
        return 0;
    case LAPIC_VER:
        return 0x00050014u;         /* integrated APIC, 6 LVT entries */
    case LAPIC_TPR:
        return l->tpr;
    case LAPIC_SVR:
        return l->svr;
    default:
        return 0;
    }
}

void lapic_write(struct ftvm *vm, uint32_t off, uint32_t val)
{
    struct lapic *l = &vm->lapic;
    int v;

    switch (off) {
    case LAPIC_TPR:
        l->tpr = val & 0xff;
        break;
    case LAPIC_SVR:
        l->svr = val & 0x1ff;
        break;
    case LAPIC_EOI:
        v = highest(l->isr);
        if (v >= 0)
            l->isr[v >> 5] &= ~(1u << (v & 31));
        break;
    default:
        break;
    }
}

void lapic_raise(struct ftvm *vm, uint8_t vector)
{
    vm->lapic.irr[vector >> 5] |= 1u << (vector & 31);
}

void lapic_drop(struct ftvm *vm, uint8_t vector)
{
    vm->lapic.irr[vector >> 5] &= ~(1u << (vector & 31));
}

/* The vector the CPU would take now, or -1. */
int lapic_pending(struct ftvm *vm)
{
    struct lapic *l = &vm->lapic;
    int irr = highest(l->irr), isr = highest(l->isr);

    if (!(l->svr & LAPIC_SVR_ON) || irr < 0)
        return -1;
    if ((irr >> 4) <= (int)(l->tpr >> 4) || (isr >= 0 && irr >> 4 <= isr >> 4))
        return -1;
    return irr;
}

void lapic_ack_vector(struct ftvm *vm, uint8_t vector)
{
    struct lapic *l = &vm->lapic;

    l->irr[vector >> 5] &= ~(1u << (vector & 31));
    l->isr[vector >> 5] |= 1u << (vector & 31);
}
