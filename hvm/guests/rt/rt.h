/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rt.h - the small runtime every xenft guest is built on: console,
 * interrupt controller, timer, TSC, command line.  The devices are the
 * PC's own (hvm/ftvm/DEVICES.md), so a guest runs on ftvm and as a Xen
 * HVM guest unchanged.  Guests run in ring 0 with interrupts through
 * the IDT that start.S installs.
 */
#ifndef XENFT_GUEST_RT_H
#define XENFT_GUEST_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IRQ_TIMER   0
#define IRQ_BASE    0x20            /* vector of IRQ 0 */

/* What the interrupt stubs save (start.S). */
struct rt_frame {
    uint32_t edi, esi, ebp, esp, ebx, edx, ecx, eax;
    uint32_t vector, err;
    uint32_t eip, cs, eflags;
};

typedef void (*rt_irq_fn)(struct rt_frame *f);

/* Each guest defines this; 'cmdline' is the boot command line or "". */
void guest_main(const char *cmdline);

static inline void outb(uint16_t port, uint8_t v)
{
    __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
    uint8_t v;

    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline void outw(uint16_t port, uint16_t v)
{
    __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
    __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
    uint32_t v;

    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

static inline void sti_hlt(void)
{
    /* The STI shadow covers the HLT: no interrupt slips in between. */
    __asm__ volatile("sti; hlt" : : : "memory");
}

/* local_irq_save/restore, as kernels nest them. */
static inline uint32_t irq_save(void)
{
    uint32_t f;

    __asm__ volatile("pushf; pop %0; cli" : "=r"(f) : : "memory");
    return f;
}

static inline void irq_restore(uint32_t f)
{
    __asm__ volatile("push %0; popf" : : "r"(f) : "memory", "cc");
}

static inline void cli(void)
{
    __asm__ volatile("cli" : : : "memory");
}

static inline void sti(void)
{
    __asm__ volatile("sti" : : : "memory");
}

void putc_uart(char c);
void puts_uart(const char *s);
void put_dec(uint32_t v);
void put_hex(uint32_t v);
void put_hex64(uint64_t v);

void irq_set(unsigned int irq, rt_irq_fn fn);
void pit_set_hz(uint32_t hz);

/* The number after "name=" in the command line (words separated by
 * spaces or commas), or 'dflt'. */
uint32_t arg_u32(const char *cmdline, const char *name, uint32_t dflt);

void *memset(void *s, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);

#endif /* XENFT_GUEST_RT_H */
