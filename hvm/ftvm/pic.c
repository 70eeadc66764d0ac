// SPDX-License-Identifier: GPL-2.0-only
/*
 * pic.c - the PC's two i8259A interrupt controllers: edge-triggered,
 * fully nested priorities, non-specific and specific EOI, IRR/ISR reads.
 *
 * What reaches the guest (which vector is delivered, and when) is
 * recorded by the caller; IRR is the latch of inputs and is not part of
 * the replayed state: on the secondary, a replayed interrupt sets the
 * ISR bit the primary's acknowledge set (pic_ack_vector).
 */
#include "ftvm.h"

void pic_reset(struct pic *p)
{
    *p = (struct pic){ .imr = 0xff };
}

uint8_t pic_read(struct pic *p, int port)
{
    if (port & 1)
        return p->imr;
    return p->read_isr ? p->isr : p->irr;
}

static void eoi(struct pic *p, int irq)
{
    if (irq < 0) {                      /* non-specific: highest in service */
        for (irq = 0; irq < 8 && !(p->isr & (1u << irq)); irq++)
            ;
        if (irq == 8)
            return;
    }
    p->isr &= (uint8_t)~(1u << irq);
}

void pic_write(struct pic *p, int port, uint8_t val)
{
    if (!(port & 1)) {
        if (val & 0x10) {               /* ICW1 */
            p->irr = p->isr = p->imr = 0;
            p->read_isr = false;
            p->icw4_needed = val & 1;
            p->icw_step = 2;
        } else if (val & 0x08) {        /* OCW3 */
            if (val & 0x02)
                p->read_isr = val & 1;
        } else {                        /* OCW2 */
            if ((val & 0xe0) == 0x20)
                eoi(p, -1);
            else if ((val & 0xe0) == 0x60)
                eoi(p, val & 7);
        }
        return;
    }
    switch (p->icw_step) {
    case 2:
        p->base = val & 0xf8;
        p->icw_step = 3;
        break;
    case 3:                             /* cascade wiring: fixed on a PC */
        p->icw_step = p->icw4_needed ? 4 : 0;
        break;
    case 4:
        p->icw_step = 0;
        break;
    default:
        p->imr = val;
        break;
    }
}

void pic_raise(struct ftvm *vm, unsigned int irq)
{
    if (irq < 8)
        vm->pic[0].irr |= (uint8_t)(1u << irq);
    else
        vm->pic[1].irr |= (uint8_t)(1u << (irq - 8));
}

/*
 * The IRQ (0-7) a chip would present now, or -1.  'cascade' is the
 * slave's output, the master's IRQ 2: it follows the slave's requests
 * rather than latching, so a second one is not lost with the first.
 */
static int chip_pending(const struct pic *p, bool cascade)
{
    uint8_t req = (p->irr | (cascade ? 1u << 2 : 0)) & (uint8_t)~p->imr;

    for (int irq = 0; irq < 8; irq++) {
        if (p->isr & (1u << irq))
            return -1;                  /* a higher priority is in service */
        if (req & (1u << irq))
            return irq;
    }
    return -1;
}

/* The vector the PICs would deliver now, or -1. */
int pic_pending(struct ftvm *vm)
{
    int s = chip_pending(&vm->pic[1], false);
    int irq = chip_pending(&vm->pic[0], s >= 0);

    if (irq < 0)
        return -1;
    if (irq == 2) {

        if (s < 0)
            return -1;
        return vm->pic[1].base + s;
    }
    return vm->pic[0].base + irq;
}

/* Acknowledge what pic_pending() returned: the CPU takes the vector. */
uint8_t pic_ack(struct ftvm *vm)
{
    int v = pic_pending(vm);

    pic_ack_vector(vm, (uint8_t)v);
    return (uint8_t)v;
}

void pic_ack_vector(struct ftvm *vm, uint8_t vector)
{
    struct pic *m = &vm->pic[0], *s = &vm->pic[1];

    if ((vector & 0xf8) == s->base && s->base != m->base) {
        uint8_t bit = (uint8_t)(1u << (vector & 7));

        s->irr &= (uint8_t)~bit;
        s->isr |= bit;
        m->isr |= 1u << 2;
    } else if ((vector & 0xf8) == m->base) {
        uint8_t bit = (uint8_t)(1u << (vector & 7));

        m->irr &= (uint8_t)~bit;
        m->isr |= bit;
    }
}
