// SPDX-License-Identifier: GPL-2.0-only
/*
 * io.c - the guest's port I/O: the PICs, the PIT, the 16550 console,
 * PCI configuration (devices.c) and, for every other port, what an
 * empty ISA bus answers.  Reads and writes
 * reach the device models on the primary and the secondary alike (their
 * side effects are part of the replayed state); which value a read
 * returns is decided by the caller: the device's on the primary, the
 * log's on the secondary.  The guest's power-off is a write like the
 * others, and so happens at the same instruction on both.
 */
#include "ftvm.h"

#define UART        0x3f8
#define LCR_DLAB    0x80
#define LSR_IDLE    0x60            /* transmitter empty, nothing received */

void ftvm_io_init(struct ftvm *vm)
{
    pic_reset(&vm->pic[0]);
    pic_reset(&vm->pic[1]);
    pit_reset(&vm->pit);
    vm->uart = (struct uart){ 0 };
}

static uint8_t uart_read(struct uart *u, int reg)
{
    switch (reg) {
    case 0:
        return (u->lcr & LCR_DLAB) ? u->dll : 0;
    case 1:
        return (u->lcr & LCR_DLAB) ? u->dlm : u->ier;
    case 2:
        return 0x01;                /* no interrupt pending */
    case 3:
        return u->lcr;
    case 4:
        return u->mcr;
    case 5:
        return LSR_IDLE;
    case 6:
        return 0xb0;                /* DCD, DSR, CTS */
    default:
        return u->scr;
    }
}

static void uart_write(struct ftvm *vm, int reg, uint8_t val)
{
    struct uart *u = &vm->uart;

    switch (reg) {
    case 0:
        if (u->lcr & LCR_DLAB)
            u->dll = val;
        else
            ftvm_output(vm, FTVM_OUT_CONSOLE, vm->output_id, &val, 1);
        break;
    case 1:
        if (u->lcr & LCR_DLAB)
            u->dlm = val;
        else
            u->ier = val & 0x0f;
        break;
    case 3:
        u->lcr = val;
        break;
    case 4:
        u->mcr = val & 0x1f;
        break;
    case 7:
        u->scr = val;
        break;
    default:
        break;
    }
}

static uint8_t read8(struct ftvm *vm, uint16_t port)
{
    switch (port) {
    case 0x20: case 0x21:
        return pic_read(&vm->pic[0], port);
    case 0xa0: case 0xa1:
        return pic_read(&vm->pic[1], port);
    case 0x40: case 0x41: case 0x42: case 0x43:
        return pit_read(vm, port);
    default:
        if (port >= UART && port < UART + 8)
            return uart_read(&vm->uart, port - UART);
        return 0xff;                /* nothing on the bus */
    }
}

/* PM1a_CNT's high byte: SLP_EN with SLP_TYP 0 is soft off (S5). */
static void pm1a_cnt_hi(struct ftvm *vm, uint8_t val)
{
    uint32_t v = (uint32_t)val << 8;

    if (!(v & PM1_SLP_EN))
        return;
    if (PM1_SLP_TYP(v))
        ftvm_fail(vm, FTVM_EXIT_ERROR, "guest asked for ACPI sleep type "
                  "%u at eip 0x%x: ftvm has soft off (SLP_TYP 0) only",
                  PM1_SLP_TYP(v), vm->cur_eip);
    else
        ftvm_guest_end(vm, FTVM_END_POWEROFF);
}

static void write8(struct ftvm *vm, uint16_t port, uint8_t val)
{
    switch (port) {
    case 0x20: case 0x21:
        pic_write(&vm->pic[0], port, val);
        break;
    case 0xa0: case 0xa1:
        pic_write(&vm->pic[1], port, val);
        break;
    case 0x40: case 0x41: case 0x42: case 0x43:
        pit_write(vm, port, val);
        break;
    case PM1A_CNT + 1:
        pm1a_cnt_hi(vm, val);
        break;
    default:
        if (port >= UART && port < UART + 8)
            uart_write(vm, port - UART, val);
        break;
    }
}

/* Wider accesses are byte accesses to consecutive ports, as on ISA;
 * PCI configuration mechanism 1 takes them whole. */
uint32_t ftvm_io_read(struct ftvm *vm, uint16_t port, int size)
{
    uint32_t v = 0;

    if (vio_pio_claims(port))
        return vio_pio_read(vm->pci, port, (unsigned int)size);
    for (int i = 0; i < size; i++)
        v |= (uint32_t)read8(vm, (uint16_t)(port + i)) << (8 * i);
    return v;
}

void ftvm_io_write(struct ftvm *vm, uint16_t port, int size, uint32_t val)
{
    if (vio_pio_claims(port)) {
        vio_pio_write(vm->pci, port, (unsigned int)size, val);
        return;
    }
    for (int i = 0; i < size; i++)
        write8(vm, (uint16_t)(port + i), (uint8_t)(val >> (8 * i)));
}
