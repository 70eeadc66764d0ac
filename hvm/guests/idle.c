// SPDX-License-Identifier: GPL-2.0-only
/*
 * idle.c - an idle guest: a periodic timer, a HLT loop, and a TSC read
 * on every tick, as a kernel's timer interrupt does.
 *   hz=N       timer rate (default 100)
 *   report=N   print a line every N ticks (default: once a second)
 *   halt=N     after N ticks, halt with interrupts disabled, as a kernel
 *              stops for good (`cli; hlt`)
 *   poweroff=N after N ticks, power off through ACPI PM1a_CNT, as on
 *              QEMU's pc machine
 *   hypercall=1 with each line, ask Xen its version and print the answer
 *              (a Xen HVM guest only: elsewhere the call faults)
 *   pitread=1  with each line, latch the PIT's count and read it, low
 *              byte then high, as Linux's i8253 clocksource does
 */
#include "ftvm_devices.h"
#include "rt/rt.h"

static volatile uint32_t ticks;
static volatile uint64_t last_tsc, pool;

/*
 * Keep the time of the tick, and stir it into a pool as a kernel stirs
 * interrupt timings into its entropy pool: every reading leaves a trace.
 */
static void on_tick(struct rt_frame *f)
{
    uint64_t now;
    uint32_t lo, hi;

    /* Every other tick a prefixed form, which reads the TSC just the same. */
    if (ticks & 1) {
        __asm__ volatile(".byte 0x3e; rdtsc" : "=a"(lo), "=d"(hi));
        now = (uint64_t)hi << 32 | lo;
    } else {
        now = rdtsc();
    }
    (void)f;
    last_tsc = now;
    pool = (pool << 7 | pool >> 57) ^ now;
    ticks++;
}

/*
 * The latch command freezes channel 0's count until both its bytes are
 * read: a device whose reads go unseen keeps it frozen.
 */
#define PIT_CH0     0x40
#define PIT_CMD     0x43
#define PIT_LATCH0  0x00

static uint16_t pit_read(void)
{
    uint16_t lo;

    outb(PIT_CMD, PIT_LATCH0);
    lo = inb(PIT_CH0);
    return (uint16_t)(lo | inb(PIT_CH0) << 8);
}

/*
 * xen_version(XENVER_version): VMMCALL on AMD, VMCALL elsewhere, as
 * Linux patches its hypercall page.  Xen refuses a protected guest.
 */
static uint32_t xen_version(void)
{
    uint32_t a = 0, b, c, d;

    __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
    a = 17;                     /* __HYPERVISOR_xen_version */
    if (b == 0x68747541)        /* "Auth"enticAMD */
        __asm__ volatile("vmmcall" : "+a"(a) : "b"(0) : "memory");
    else
        __asm__ volatile("vmcall" : "+a"(a) : "b"(0) : "memory");
    return a;
}

void guest_main(const char *cmdline)
{
    uint32_t hz = arg_u32(cmdline, "hz", 100);
    uint32_t report = arg_u32(cmdline, "report", hz);
    uint32_t halt = arg_u32(cmdline, "halt", 0);
    uint32_t poweroff = arg_u32(cmdline, "poweroff", 0);
    uint32_t hypercall = arg_u32(cmdline, "hypercall", 0);
    uint32_t pitread = arg_u32(cmdline, "pitread", 0);
    uint32_t next = report;

    puts_uart("idle: timer at ");
    put_dec(hz);
    puts_uart(" Hz\n");
    irq_set(IRQ_TIMER, on_tick);
    pit_set_hz(hz);
    for (;;) {
        sti_hlt();
        cli();
        if (ticks >= next) {
            puts_uart("idle: ");
            put_dec(ticks);
            puts_uart(" ticks, tsc ");
            put_hex64(last_tsc);
            puts_uart("\n");
            if (pitread)
                pool ^= pit_read();
            if (hypercall) {
                puts_uart("idle: Xen answered ");
                put_hex(xen_version());
                puts_uart("\n");
            }
            next += report;
        }
        if (halt && ticks >= halt) {
            puts_uart("idle: halting with interrupts disabled\n");
            for (;;)
                __asm__ volatile("cli; hlt");
        }
        if (poweroff && ticks >= poweroff) {
            puts_uart("idle: powering off\n");
            outw(PM1A_CNT, PM1_SLP_EN);     /* SLP_TYP 0: soft off */
            puts_uart("idle: still running after the power-off\n");
            poweroff = 0;
        }
    }
}
