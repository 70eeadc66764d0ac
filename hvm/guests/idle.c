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
 *              byte then high, as Linux's i8253 clocksource does; and
 *              channel 2's, by INSB
 *   pitread=2  the same, but channel 2's by one REP INSB of two bytes,
 *              as a driver reads a device's data port
 *   grantmap=GFN before the timer starts, map the first frame of its
 *              grant table at GFN, as PV drivers do, and print Xen's
 *              answer (a Xen HVM guest only)
 *   popftf=N   after N ticks, set its own TF by POPF, as a debugger's
 *              single-step does: the CPU traps after the instruction
 *              that follows, and the guest prints where, and stops
 *   iretf=N    the same, by an IRET whose frame holds TF
 *   drbp=N     the same, by an instruction breakpoint armed in DR0 and
 *              DR7 on a NOP: the trap comes before the NOP
 *   syscall=1  enable SYSCALL (EFER.SCE), as every 64-bit kernel does,
 *              and make one with each line, counted by its ring-0 entry
 *              (an AMD CPU's: Intel has SYSCALL in 64-bit mode only)
 *   level=N    after N ticks, take one tick through the I/O APIC as a
 *              level-triggered interrupt, as PCI INTx and ACPI's SCI
 *              come, then go back to the PIC (a Xen HVM guest only:
 *              its I/O APIC at 0xfec00000, the PIT on its pin 2)
 *   rtc=N      when vector 0x27 comes (dom0's MSI, as a device's
 *              interrupt; IRQ 7 to this guest), start the RTC's
 *              periodic interrupt at rate select N (32768 >> (N - 1)
 *              Hz) on IRQ 8, and never read its register C; with each
 *              line, the RTC interrupts taken so far
 *   oneshot=1  when vector 0x27 comes, arm the local APIC's timer once,
 *              one-shot, for 10 ms, as a tickless kernel arms its next
 *              event; with each line, its interrupts taken so far (a
 *              Xen HVM guest only: ftvm's local APIC has no timer)
 */
#include "ftvm_devices.h"
#include "rt/rt.h"
#include "rt/virtio.h"

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
 * The latch command freezes a channel's count until both its bytes are
 * read: a device whose reads go unseen keeps it frozen, and later latch
 * commands are ignored.  Channel 0's bytes are read with IN, channel 2's
 * with INSB, whose emulation also writes memory: each instruction's
 * reads missed leave its own channel latched.
 */
#define PIT_CH0     0x40
#define PIT_CH2     0x42
#define PIT_CMD     0x43
#define PIT_LATCH0  0x00
#define PIT_LATCH2  0x80
#define PIT_CH2_SET 0xb4        /* channel 2, low then high, mode 2 */

static void pit_ch2_set(void)
{
    outb(PIT_CMD, PIT_CH2_SET);
    outb(PIT_CH2, 0xff);
    outb(PIT_CH2, 0xff);
}

static uint16_t pit_read(bool rep)
{
    static volatile uint8_t ch2[2];
    uint8_t *dst = (uint8_t *)ch2;
    uint32_t n = sizeof(ch2);
    uint16_t lo;

    outb(PIT_CMD, PIT_LATCH0);
    lo = inb(PIT_CH0);
    lo |= (uint16_t)(inb(PIT_CH0) << 8);
    outb(PIT_CMD, PIT_LATCH2);
    if (rep)
        __asm__ volatile("rep insb" : "+D"(dst), "+c"(n)
                         : "d"((uint16_t)PIT_CH2) : "memory");
    else
        __asm__ volatile("insb; insb" : "+D"(dst) : "d"((uint16_t)PIT_CH2)
                         : "memory");
    return (uint16_t)(lo ^ ch2[0] ^ ch2[1] << 8);
}

/*
 * A hypercall of a 32-bit HVM guest: VMMCALL on AMD, VMCALL elsewhere, as
 * Linux patches its hypercall page.  Xen refuses a protected guest.
 */
static uint32_t xen_call(uint32_t op, uint32_t arg1, uint32_t arg2)
{
    uint32_t a = 0, b, c, d;

    __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
    a = op;
    if (b == 0x68747541)        /* "Auth"enticAMD */
        __asm__ volatile("vmmcall" : "+a"(a) : "b"(arg1), "c"(arg2)
                         : "memory");
    else
        __asm__ volatile("vmcall" : "+a"(a) : "b"(arg1), "c"(arg2)
                         : "memory");
    return a;
}

#define HYPERVISOR_memory_op    12
#define HYPERVISOR_xen_version  17
#define XENMEM_add_to_physmap   7
#define XENMAPSPACE_grant_table 1
#define DOMID_SELF              0x7ff0u

/* struct xen_add_to_physmap as a 32-bit guest passes it. */
struct add_to_physmap {
    uint16_t domid;
    uint16_t size;
    uint32_t space;
    uint32_t idx;
    uint32_t gpfn;
};

static uint32_t grant_map(uint32_t gfn)
{
    static struct add_to_physmap xatp;

    xatp.domid = DOMID_SELF;
    xatp.space = XENMAPSPACE_grant_table;
    xatp.idx = 0;
    xatp.gpfn = gfn;
    return xen_call(HYPERVISOR_memory_op, XENMEM_add_to_physmap,
                    (uint32_t)(uintptr_t)&xatp);
}

/*
 * TF set by the guest itself: the single-step trap is due after the NOP
 * that follows (at the label *_due), and rt_interrupt() reports it as
 * exception 1 there.  Without a trap they return with TF clear again.
 * The breakpoint's trap is due at its NOP, before it runs.
 */
void own_tf_popf(void);
void own_tf_iret(void);
void own_bp(void);
extern const char own_tf_popf_due[], own_tf_iret_due[], own_bp_due[];
__asm__(".text\n"
        "own_tf_popf:\n\t"
        "pushfl\n\t"
        "orl $0x100, (%esp)\n\t"
        "popfl\n\t"
        "nop\n"
        "own_tf_popf_due:\n\t"
        "jmp own_tf_end\n"
        "own_tf_iret:\n\t"
        "pushfl\n\t"
        "orl $0x100, (%esp)\n\t"
        "pushl %cs\n\t"
        "pushl $1f\n\t"
        "iret\n"
        "1:\tnop\n"
        "own_tf_iret_due:\n"
        "own_tf_end:\n\t"
        "pushfl\n\t"
        "andl $~0x100, (%esp)\n\t"
        "popfl\n\t"
        "ret\n"
        "own_bp:\n\t"
        "movl $own_bp_due, %eax\n\t"
        "movl %eax, %db0\n\t"
        "movl $0x1, %eax\n\t"        /* L0: execution, one byte */
        "movl %eax, %db7\n"
        "own_bp_due:\n\t"
        "nop\n\t"
        "xorl %eax, %eax\n\t"
        "movl %eax, %db7\n\t"
        "ret\n");

static void own_tf(const char *how, void (*set)(void), const char *due)
{
    puts_uart("idle: ");
    puts_uart(how);
    puts_uart(", its trap due at ");
    put_hex((uint32_t)(uintptr_t)due);
    puts_uart("\n");
    set();
    puts_uart("idle: no trap came\n");
}

/*
 * SYSCALL enters ring 0 at STAR[31:0] with CS and SS from STAR[47:32]
 * (this GDT's own 0x08 and 0x10), the return address in ECX and IF
 * clear; the entry counts it and jumps back, staying in ring 0 (SYSRET
 * would return to ring 3).
 */
#define MSR_EFER    0xc0000080
#define MSR_STAR    0xc0000081
#define EFER_SCE    0x1

uint32_t syscalls;
void sys_entry(void);
__asm__(".text\n"
        "sys_entry:\n\t"
        "incl syscalls\n\t"
        "jmp *%ecx\n");

static uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;

    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return (uint64_t)hi << 32 | lo;
}

static void wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ volatile("wrmsr" :: "c"(msr), "a"((uint32_t)v),
                     "d"((uint32_t)(v >> 32)));
}

static void syscall_set(void)
{
    wrmsr(MSR_STAR, (uint64_t)0x0008 << 32 | (uint32_t)(uintptr_t)sys_entry);
    wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
}

/*
 * The PIT's tick routed to pin 2 of the I/O APIC, level-triggered, to
 * vector LEVEL_VEC, and masked at the PIC: its handler takes one, masks
 * the pin before its EOI (the line is still high, the pin would fire
 * again) and gives the tick back to the PIC.
 */
#define IOAPIC_BASE     0xfec00000u
#define IOAPIC_PIT_PIN  2
#define LEVEL_VEC       0x5f
#define RTE_LEVEL       (1u << 15)
#define RTE_MASKED      (1u << 16)

static volatile uint32_t level_taken;

#define RTC_IRQ     8
#define RTC_REG_A   0x0a
#define RTC_REG_B   0x0b
#define RTC_DV_32K  0x20                /* REG_A: the 32768 Hz divider */
#define RTC_PIE     0x40                /* REG_B: periodic interrupt */

static volatile uint32_t rtc_rate, rtc_taken;

#define LAPIC_LVT_TIMER 0x320
#define LAPIC_TMICT     0x380
#define LAPIC_TDCR      0x3e0
#define LAPIC_DIV_1     0x0b
#define ONESHOT_VEC     0x5e
#define ONESHOT_NS      10000000u       /* Xen's APIC bus: 1 ns a count */

static volatile uint32_t oneshot_armed, oneshot_taken;

static void lapic_write(uint32_t reg, uint32_t v)
{
    *(volatile uint32_t *)(LAPIC_BASE + reg) = v;
}

static void cmos_write(uint8_t reg, uint8_t v)
{
    outb(0x70, reg);
    outb(0x71, v);
}

static uint8_t cmos_read(uint8_t reg)
{
    outb(0x70, reg);
    return inb(0x71);
}

static void on_rtc(struct rt_frame *f)
{
    (void)f;
    rtc_taken++;
}

static void on_oneshot(struct rt_frame *f)
{
    (void)f;
    oneshot_taken++;
}

/* Dom0's MSI: start the timers asked for, once. */
static void on_timers_start(struct rt_frame *f)
{
    (void)f;
    if (rtc_rate) {
        irq_set(RTC_IRQ, on_rtc);
        cmos_write(RTC_REG_A, RTC_DV_32K | (rtc_rate & 0x0f));
        cmos_write(RTC_REG_B, cmos_read(RTC_REG_B) | RTC_PIE);
        rtc_rate = 0;
    }
    if (oneshot_armed == 1) {
        msi_set(ONESHOT_VEC, on_oneshot);
        lapic_write(LAPIC_SVR, LAPIC_SVR_ON | 0xff);
        lapic_write(LAPIC_TDCR, LAPIC_DIV_1);
        lapic_write(LAPIC_LVT_TIMER, ONESHOT_VEC);  /* one-shot, unmasked */
        lapic_write(LAPIC_TMICT, ONESHOT_NS);
        oneshot_armed = 2;
    }
}

static void ioapic_write(uint32_t reg, uint32_t v)
{
    *(volatile uint32_t *)IOAPIC_BASE = reg;
    *(volatile uint32_t *)(IOAPIC_BASE + 0x10) = v;
}

static void on_level(struct rt_frame *f)
{
    (void)f;
    ioapic_write(0x10 + 2 * IOAPIC_PIT_PIN, RTE_MASKED);
    level_taken++;
    irq_set(IRQ_TIMER, on_tick);
}

static void level_once(void)
{
    msi_set(LEVEL_VEC, on_level);
    outb(0x21, inb(0x21) | 1);          /* the PIC's IRQ 0 masked */
    ioapic_write(0x10 + 2 * IOAPIC_PIT_PIN + 1, 0);     /* to APIC 0 */
    ioapic_write(0x10 + 2 * IOAPIC_PIT_PIN, LEVEL_VEC | RTE_LEVEL);
    while (!level_taken)
        sti_hlt();
    cli();
    puts_uart("idle: a level-triggered interrupt taken\n");
}

void guest_main(const char *cmdline)
{
    uint32_t hz = arg_u32(cmdline, "hz", 100);
    uint32_t report = arg_u32(cmdline, "report", hz);
    uint32_t halt = arg_u32(cmdline, "halt", 0);
    uint32_t poweroff = arg_u32(cmdline, "poweroff", 0);
    uint32_t hypercall = arg_u32(cmdline, "hypercall", 0);
    uint32_t pitread = arg_u32(cmdline, "pitread", 0);
    uint32_t grantmap = arg_u32(cmdline, "grantmap", 0);
    uint32_t popftf = arg_u32(cmdline, "popftf", 0);
    uint32_t iretf = arg_u32(cmdline, "iretf", 0);
    uint32_t drbp = arg_u32(cmdline, "drbp", 0);
    uint32_t sys = arg_u32(cmdline, "syscall", 0);
    uint32_t level = arg_u32(cmdline, "level", 0);
    uint32_t rtc = arg_u32(cmdline, "rtc", 0);
    uint32_t oneshot = arg_u32(cmdline, "oneshot", 0);
    uint32_t next = report;

    puts_uart("idle: timer at ");
    put_dec(hz);
    puts_uart(" Hz\n");
    if (grantmap) {
        puts_uart("idle: grant table mapped at ");
        put_hex(grantmap);
        puts_uart(", Xen answered ");
        put_hex(grant_map(grantmap));
        puts_uart("\n");
    }
    irq_set(IRQ_TIMER, on_tick);
    pit_set_hz(hz);
    if (pitread)
        pit_ch2_set();
    if (sys)
        syscall_set();
    if (rtc || oneshot) {
        rtc_rate = rtc;
        oneshot_armed = oneshot ? 1 : 0;
        irq_set(7, on_timers_start);
    }
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
                pool ^= pit_read(pitread == 2);
            if (rtc) {
                puts_uart("idle: ");
                put_dec(rtc_taken);
                puts_uart(" RTC interrupts\n");
            }
            if (oneshot) {
                puts_uart("idle: ");
                put_dec(oneshot_taken);
                puts_uart(" one-shot timer interrupts\n");
            }
            if (sys) {
                __asm__ volatile("syscall" ::: "ecx", "memory");
                puts_uart("idle: ");
                put_dec(syscalls);
                puts_uart(" system calls\n");
            }
            if (hypercall) {
                puts_uart("idle: Xen answered ");
                put_hex(xen_call(HYPERVISOR_xen_version, 0, 0));
                puts_uart("\n");
            }
            next += report;
        }
        if (popftf && ticks >= popftf) {
            own_tf("TF set by POPF", own_tf_popf, own_tf_popf_due);
            popftf = 0;
        }
        if (level && ticks >= level) {
            level_once();
            level = 0;
        }
        if (drbp && ticks >= drbp) {
            own_tf("a breakpoint armed in DR0", own_bp, own_bp_due);
            drbp = 0;
        }
        if (iretf && ticks >= iretf) {
            own_tf("TF set by IRET", own_tf_iret, own_tf_iret_due);
            iretf = 0;
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
