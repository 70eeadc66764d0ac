// SPDX-License-Identifier: GPL-2.0-only
/*
 * irq.c - which interrupt the CPU takes: a local APIC vector (an MSI)
 * before the PICs' (ExtINT on a PC bypasses the APIC's priorities, and
 * devices' MSIs are what a guest waits on).  Here a vector says whose
 * it is: the PICs' ranges are theirs, every other vector the APIC's
 * (devices.c refuses an MSI into a PIC range); the log names the source
 * too, as Xen's MSIs may take any vector, and a replay checks it.
 */
#include "ftvm.h"

bool ftvm_pic_vector(const struct ftvm *vm, uint8_t vector)
{
    return (vector & 0xf8) == vm->pic[0].base ||
           (vector & 0xf8) == vm->pic[1].base;
}

/*
 * A request the guest's PIC programming has since put in a PIC's range
 * would be taken as the PIC's and never leave the APIC: it is dropped
 * (requests are the primary's own, never in the log).
 */
int ftvm_irq_pending(struct ftvm *vm)
{
    int v;

    while ((v = lapic_pending(vm)) >= 0 && ftvm_pic_vector(vm, (uint8_t)v))
        lapic_drop(vm, (uint8_t)v);
    return v >= 0 ? v : pic_pending(vm);
}

unsigned int ftvm_irq_src(const struct ftvm *vm, uint8_t vector)
{
    return ftvm_pic_vector(vm, vector) ? FT_INTR_PIC : FT_INTR_LAPIC;
}

void ftvm_irq_ack(struct ftvm *vm, uint8_t vector)
{
    if (ftvm_pic_vector(vm, vector))
        pic_ack_vector(vm, vector);
    else
        lapic_ack_vector(vm, vector);
}
