// SPDX-License-Identifier: GPL-2.0-only
/*
 * rt.c - console, i8259 PIC, i8254 PIT, IDT and command line for xenft
 * guests.
 */
#include "ftvm_devices.h"
#include "rt.h"
#include "virtio.h"

#define UART        0x3f8
#define UART_LSR    (UART + 5)
#define LSR_THRE    0x20

#define PIC1        0x20
#define PIC2        0xa0
#define PIT_CH0     0x40
#define PIT_CMD     0x43
#define PIT_HZ      1193182u

#define MB_MAGIC_EAX 0x2BADB002u
#define MB_CMDLINE   (1u << 2)

struct idt_gate {
    uint16_t off_lo, sel;
    uint8_t zero, type;
    uint16_t off_hi;
} __attribute__((packed));

static struct idt_gate idt[256] __attribute__((aligned(8)));
static rt_irq_fn irq_fns[16];
#define MSI_FIRST   0x40
#define MSI_COUNT   32
static rt_irq_fn msi_fns[MSI_COUNT];
extern char rt_vectors[];

void *memset(void *s, int c, size_t n)
{
    uint8_t *p = s;

    while (n--)
        *p++ = (uint8_t)c;
    return s;
}

void *memcpy(void *d, const void *s, size_t n)
{
    uint8_t *p = d;
    const uint8_t *q = s;

    while (n--)
        *p++ = *q++;
    return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const uint8_t *p = a, *q = b;

    for (; n; n--, p++, q++)
        if (*p != *q)
            return *p - *q;
    return 0;
}

void putc_uart(char c)
{
    while (!(inb(UART_LSR) & LSR_THRE))
        ;
    outb(UART, (uint8_t)c);
}

void puts_uart(const char *s)
{
    while (*s)
        putc_uart(*s++);
}

void put_dec(uint32_t v)
{
    char b[11];
    int i = 10;

    b[i] = '\0';
    do {
        b[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    puts_uart(b + i);
}

void put_hex(uint32_t v)
{
    puts_uart("0x");
    for (int s = 28; s >= 0; s -= 4)
        putc_uart("0123456789abcdef"[(v >> s) & 15]);
}

void put_hex64(uint64_t v)
{
    puts_uart("0x");
    for (int s = 60; s >= 0; s -= 4)
        putc_uart("0123456789abcdef"[(v >> s) & 15]);
}

void rt_setup_idt(void)
{
    struct {
        uint16_t limit;
        uint32_t base;
    } __attribute__((packed)) desc = { sizeof(idt) - 1, (uint32_t)idt };

    for (int i = 0; i < 256; i++) {
        uint32_t h = (uint32_t)(rt_vectors + 16 * i);

        idt[i].off_lo = (uint16_t)h;
        idt[i].sel = 0x08;
        idt[i].zero = 0;
        idt[i].type = 0x8e;             /* present, ring 0, interrupt gate */
        idt[i].off_hi = (uint16_t)(h >> 16);
    }
    __asm__ volatile("lidt %0" : : "m"(desc));
}

/* Both PICs remapped to IRQ_BASE, everything masked but the cascade. */
static void pic_init(void)
{
    outb(PIC1, 0x11);
    outb(PIC2, 0x11);
    outb(PIC1 + 1, IRQ_BASE);
    outb(PIC2 + 1, IRQ_BASE + 8);
    outb(PIC1 + 1, 0x04);
    outb(PIC2 + 1, 0x02);
    outb(PIC1 + 1, 0x01);
    outb(PIC2 + 1, 0x01);
    outb(PIC1 + 1, 0xfb);
    outb(PIC2 + 1, 0xff);
}

void irq_set(unsigned int irq, rt_irq_fn fn)
{
    uint16_t port = irq < 8 ? PIC1 + 1 : PIC2 + 1;

    irq_fns[irq] = fn;
    outb(port, inb(port) & (uint8_t)~(1u << (irq & 7)));
}

void pit_set_hz(uint32_t hz)
{
    uint32_t div = PIT_HZ / (hz ? hz : 1);

    if (div > 0xffff)
        div = 0xffff;
    outb(PIT_CMD, 0x34);                /* channel 0, lo/hi, rate gen. */
    outb(PIT_CH0, (uint8_t)div);
    outb(PIT_CH0, (uint8_t)(div >> 8));
}

void msi_set(uint8_t vector, rt_irq_fn fn)
{
    if (vector >= MSI_FIRST && vector < MSI_FIRST + MSI_COUNT)
        msi_fns[vector - MSI_FIRST] = fn;
}

void rt_interrupt(struct rt_frame *f)
{
    unsigned int irq = f->vector - IRQ_BASE;

    if (f->vector >= MSI_FIRST && f->vector < MSI_FIRST + MSI_COUNT) {
        if (msi_fns[f->vector - MSI_FIRST])
            msi_fns[f->vector - MSI_FIRST](f);
        *(volatile uint32_t *)(LAPIC_BASE + LAPIC_EOI) = 0;
        return;
    }
    if (f->vector < IRQ_BASE || irq >= 16) {
        puts_uart("guest: exception ");
        put_dec(f->vector);
        puts_uart(" at ");
        put_hex(f->eip);
        puts_uart("\n");
        for (;;)
            __asm__ volatile("cli; hlt");
    }
    if (irq_fns[irq])
        irq_fns[irq](f);
    if (irq >= 8)
        outb(PIC2, 0x20);
    outb(PIC1, 0x20);
}

uint32_t arg_u32(const char *cmdline, const char *name, uint32_t dflt)
{
    for (const char *p = cmdline; *p; p++) {
        const char *n = name, *q = p;

        if (p != cmdline && p[-1] != ' ' && p[-1] != ',')
            continue;
        while (*n && *q == *n) {
            n++;
            q++;
        }
        if (*n || *q != '=')
            continue;
        uint32_t v = 0;
        for (q++; *q >= '0' && *q <= '9'; q++)
            v = v * 10 + (uint32_t)(*q - '0');
        return v;
    }
    return dflt;
}

struct multiboot_info {
    uint32_t flags, mem_lower, mem_upper, boot_device, cmdline;
};

void rt_main(uint32_t magic, const struct multiboot_info *mbi)
{
    const char *cmdline = "";

    if (magic == MB_MAGIC_EAX && mbi && (mbi->flags & MB_CMDLINE))
        cmdline = (const char *)mbi->cmdline;
    pic_init();
    guest_main(cmdline);
}
