// SPDX-License-Identifier: GPL-2.0-only
/*
 * vcpu.c - the vCPU: Unicorn in 32-bit protected mode, an exact count of
 * retired instructions, interrupt delivery through the guest's IDT, and
 * the places where non-determinism enters: TSC, MSR and port reads,
 * RDRAND/RDSEED, interrupts, halt.  These are the places the Xen hooks
 * cover (the design notes' map of Xen hooks); each one records on the
 * primary and asks the log on the secondary.
 *
 * The code hook runs before every instruction.  It counts, and it stops
 * the engine when the count reaches stop_at, when the host timer kicks,
 * or at a HLT; the run loop (run.c) then does what must happen there.
 * A point is (instructions retired before it, EIP, ECX).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <xxhash.h>

#include "ftvm.h"

#define EFL_CF  (1u << 0)
#define EFL_PF  (1u << 2)
#define EFL_AF  (1u << 4)
#define EFL_ZF  (1u << 6)
#define EFL_SF  (1u << 7)
#define EFL_TF  (1u << 8)
#define EFL_IF  (1u << 9)
#define EFL_OF  (1u << 11)
#define EFL_NT  (1u << 14)
#define EFL_RF  (1u << 16)

#define OP_HLT  0xf4
#define OP_STI  0xfb
#define OP_POPF 0x9d
#define OP_IRET 0xcf
#define OP_POPSS 0x17

#define MSR_TSC 0x10

void ftvm_fail(struct ftvm *vm, int status, const char *fmt, ...)
{
    va_list ap;

    if (vm->status)
        return;                 /* the first reason is the one to report */
    vm->status = status;
    va_start(ap, fmt);
    vsnprintf(vm->why, sizeof(vm->why), fmt, ap);
    va_end(ap);
    uc_emu_stop(vm->uc);
}

/*
 * The guest has stopped by itself, for good: an end, not a failure.  A
 * recording gets its end as when its run is over, and the replay ends
 * alike.  The engine stops before the next instruction, which is not
 * counted.
 */
void ftvm_guest_end(struct ftvm *vm, enum ftvm_end end)
{
    if (vm->status || vm->end)
        return;
    vm->end = end;
    if (end == FTVM_END_POWEROFF)
        snprintf(vm->why, sizeof(vm->why), "guest powered off (ACPI "
                 "PM1a_CNT) at instruction %llu",
                 (unsigned long long)vm->count);
    else
        snprintf(vm->why, sizeof(vm->why), "guest halted with interrupts "
                 "disabled at eip 0x%x (instruction %llu): nothing can "
                 "wake it", ftvm_reg(vm, UC_X86_REG_EIP) - 1,
                 (unsigned long long)vm->count);
    __atomic_store_n(&vm->kick, 1, __ATOMIC_RELAXED);
}

int ftvm_end_status(const struct ftvm *vm)
{
    return vm->end == FTVM_END_HLT_CLI ? FTVM_EXIT_HLT_CLI : FTVM_EXIT_OK;
}

uint32_t ftvm_reg(struct ftvm *vm, int r)
{
    uint32_t v = 0;

    uc_reg_read(vm->uc, r, &v);
    return v;
}

static void set_reg(struct ftvm *vm, int r, uint32_t v)
{
    uc_reg_write(vm->uc, r, &v);
}

struct ft_point ftvm_point(struct ftvm *vm)
{
    return (struct ft_point){ vm->count, ftvm_reg(vm, UC_X86_REG_EIP),
                              ftvm_reg(vm, UC_X86_REG_ECX) };
}

/* The point of the instruction the hooks are in. */
static struct ft_point here(struct ftvm *vm)
{
    return (struct ft_point){ vm->cur_count, vm->cur_eip,
                              ftvm_reg(vm, UC_X86_REG_ECX) };
}

static void retire(struct ftvm *vm, uint8_t op)
{
    vm->count++;
    vm->prev_op = vm->last_op;
    vm->last_op = op;
}

/*
 * A synchronous input at the current instruction: the primary takes
 * 'value' and records it, the secondary takes the log's.  False when the
 * run must stop (the reason is in vm->status).
 */
bool ftvm_input(struct ftvm *vm, struct ft_log_rec *r)
{
    bool tsc = r->kind == FT_K_TSC ||
               (r->kind == FT_K_MSR && r->u.msr.index == MSR_TSC);

    r->pt = here(vm);
    if (vm->mode == FTVM_REPLAY) {
        if (ftvm_ft_sync(vm, r) != FT_OK)
            return false;
        if (vm->mode != FTVM_REPLAY && tsc) {
            /* Went live while waiting for this input: the host's now. */
            if (r->kind == FT_K_TSC)
                r->u.tsc.value = ftvm_guest_tsc(vm);
            else
                r->u.msr.value = ftvm_guest_tsc(vm);
        }
    } else if (vm->mode == FTVM_RECORD && ftvm_ft_append(vm, r) != FT_OK) {
        return false;
    }
    /* Going live continues the guest's TSC from here. */
    if (tsc)
        vm->tsc_last = r->kind == FT_K_TSC ? r->u.tsc.value : r->u.msr.value;
    return true;
}

uint64_t ftvm_guest_tsc(const struct ftvm *vm)
{
    if (vm->tsc_fixed)
        return vm->tsc_fixed;
    return __builtin_ia32_rdtsc() - vm->tsc_base;
}

static void emulate_rdtsc(struct ftvm *vm, uint32_t len, bool rdtscp)
{
    struct ft_log_rec r = { .kind = FT_K_TSC };

    r.u.tsc.value = ftvm_guest_tsc(vm);
    if (!ftvm_input(vm, &r))
        return;
    set_reg(vm, UC_X86_REG_EAX, (uint32_t)r.u.tsc.value);
    set_reg(vm, UC_X86_REG_EDX, (uint32_t)(r.u.tsc.value >> 32));
    if (rdtscp)
        set_reg(vm, UC_X86_REG_ECX, 0);     /* TSC_AUX */
    set_reg(vm, UC_X86_REG_EIP, vm->cur_eip + len);
    retire(vm, 0x0f);
}

/* Only the TSC is an MSR with a value of its own; the rest read as 0. */
static void emulate_rdmsr(struct ftvm *vm, uint32_t len)
{
    struct ft_log_rec r = { .kind = FT_K_MSR };

    r.u.msr.index = ftvm_reg(vm, UC_X86_REG_ECX);
    r.u.msr.value = r.u.msr.index == MSR_TSC ? ftvm_guest_tsc(vm) : 0;
    if (!ftvm_input(vm, &r))
        return;
    set_reg(vm, UC_X86_REG_EAX, (uint32_t)r.u.msr.value);
    set_reg(vm, UC_X86_REG_EDX, (uint32_t)(r.u.msr.value >> 32));
    set_reg(vm, UC_X86_REG_EIP, vm->cur_eip + len);
    retire(vm, 0x0f);
}

static bool is_prefix(uint8_t b)
{
    switch (b) {
    case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
    case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
        return true;
    default:
        return false;
    }
}

bool ftvm_in_shadow(const struct ftvm *vm)
{
    return vm->last_op == OP_STI || vm->last_op == OP_POPSS;
}

/* A held-back interrupt can be taken here: stop exactly then. */
bool ftvm_can_take(struct ftvm *vm)
{
    return !ftvm_in_shadow(vm) && (ftvm_reg(vm, UC_X86_REG_EFLAGS) & EFL_IF);
}

static void hook_code(uc_engine *uc, uint64_t addr, uint32_t size,
                      void *opaque)
{
    struct ftvm *vm = opaque;
    const uint8_t *op;

    (void)size;
    /* An acknowledgement that lets a held output out is acted on at
     * once, not at the next tick: it is what a client waits for. */
    if (vm->count >= vm->stop_at ||
        __atomic_load_n(&vm->kick, __ATOMIC_RELAXED) ||
        (vm->watch_if && ftvm_can_take(vm)) ||
        (vm->release_at != UINT64_MAX &&
         ft_ring_ack(&vm->ring) >= vm->release_at)) {
        uc_emu_stop(uc);
        return;
    }
    if (addr > vm->ram_size - 16) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "guest executes outside its RAM "
                  "at 0x%llx", (unsigned long long)addr);
        return;
    }
    op = vm->ram + addr;
    vm->cur_count = vm->count;
    vm->cur_eip = (uint32_t)addr;
    if (op[0] == OP_HLT) {
        vm->halt_hit = true;    /* retired by the run loop */
        uc_emu_stop(uc);
        return;
    }
    /* Legacy prefixes do not stop these from reading the host's TSC. */
    uint32_t pre = 0;
    while (pre < 4 && is_prefix(op[pre]))
        pre++;
    if (op[pre] == 0x0f) {
        if (op[pre + 1] == 0x31) {
            emulate_rdtsc(vm, pre + 2, false);
            return;
        }
        if (op[pre + 1] == 0x01 && op[pre + 2] == 0xf9) {
            emulate_rdtsc(vm, pre + 3, true);
            return;
        }
        if (op[pre + 1] == 0x32) {
            emulate_rdmsr(vm, pre + 2);
            return;
        }
    }
    retire(vm, op[0]);
}

static uint32_t hook_in(uc_engine *uc, uint32_t port, int size, void *opaque)
{
    struct ftvm *vm = opaque;
    struct ft_log_rec r = { .kind = FT_K_PIO };

    (void)uc;
    r.u.pio.port = (uint16_t)port;
    r.u.pio.size = (uint8_t)size;
    r.u.pio.value = ftvm_io_read(vm, (uint16_t)port, size);
    if (!ftvm_input(vm, &r))
        return 0;
    return r.u.pio.value;
}

static void hook_out(uc_engine *uc, uint32_t port, int size, uint32_t value,
                     void *opaque)
{
    struct ftvm *vm = opaque;
    bool output = port <= 0x3f8 && port + (uint32_t)size > 0x3f8 &&
                  !(vm->uart.lcr & 0x80);

    (void)uc;
    if (output) {
        struct ft_log_rec r = { .kind = FT_K_OUTPUT };

        r.u.output.id = ++vm->output_id;
        if (!ftvm_input(vm, &r))
            return;
    }
    ftvm_io_write(vm, (uint16_t)port, size, value);
}

/* RDRAND and RDSEED raise #UD on the emulated CPU: emulate them. */
static bool hook_invalid(uc_engine *uc, void *opaque)
{
    struct ftvm *vm = opaque;
    uint32_t eip = ftvm_reg(vm, UC_X86_REG_EIP);
    const uint8_t *p;
    bool o16;
    static const int regs[8] = {
        UC_X86_REG_EAX, UC_X86_REG_ECX, UC_X86_REG_EDX, UC_X86_REG_EBX,
        UC_X86_REG_ESP, UC_X86_REG_EBP, UC_X86_REG_ESI, UC_X86_REG_EDI,
    };

    (void)uc;
    if (eip > vm->ram_size - 16)
        return false;
    p = vm->ram + eip;
    o16 = p[0] == 0x66;
    p += o16;
    if (p[0] != 0x0f || p[1] != 0xc7 || (p[2] >> 6) != 3 ||
        ((p[2] >> 3) & 7) < 6)
        return false;

    struct ft_log_rec r = { .kind = FT_K_RAND };
    uint64_t v = 0;
    int rm = p[2] & 7;

    r.u.rand.seed = ((p[2] >> 3) & 7) == 7;
    r.u.rand.size = o16 ? 2 : 4;
    if (vm->mode != FTVM_REPLAY &&
        getrandom(&v, r.u.rand.size, 0) != r.u.rand.size) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "getrandom: %s", strerror(errno));
        return true;
    }
    r.u.rand.value = v;
    if (!ftvm_input(vm, &r))
        return true;
    if (o16)
        set_reg(vm, regs[rm], (ftvm_reg(vm, regs[rm]) & 0xffff0000u) |
                              (uint32_t)r.u.rand.value);
    else
        set_reg(vm, regs[rm], (uint32_t)r.u.rand.value);
    set_reg(vm, UC_X86_REG_EFLAGS,
            (ftvm_reg(vm, UC_X86_REG_EFLAGS) &
             ~(EFL_OF | EFL_SF | EFL_ZF | EFL_AF | EFL_PF)) | EFL_CF);
    set_reg(vm, UC_X86_REG_EIP, eip + 3 + o16);
    return true;
}

/* MMIO: device registers; reads are inputs like port reads. */
static uint64_t mmio_input(struct ftvm *vm, uint64_t gpa, unsigned size,
                           uint64_t v)
{
    struct ft_log_rec r = { .kind = FT_K_MMIO };

    r.u.mmio.gpa = gpa;
    r.u.mmio.size = (uint8_t)size;
    r.u.mmio.value = v;
    if (!ftvm_input(vm, &r))
        return 0;
    return r.u.mmio.value;
}

static uint64_t hole_read(uc_engine *uc, uint64_t off, unsigned size,
                          void *opaque)
{
    (void)uc;
    return mmio_input(opaque, PCI_HOLE + off, size,
                      ftvm_mmio_read(opaque, PCI_HOLE + off, size));
}

static void hole_write(uc_engine *uc, uint64_t off, unsigned size,
                       uint64_t val, void *opaque)
{
    (void)uc;
    ftvm_mmio_write(opaque, PCI_HOLE + off, size, val);
}

static uint64_t lapic_mmio_read(uc_engine *uc, uint64_t off, unsigned size,
                                void *opaque)
{
    (void)uc;
    return mmio_input(opaque, LAPIC_BASE + off, size,
                      ftvm_mmio_read(opaque, LAPIC_BASE + off, size));
}

static void lapic_mmio_write(uc_engine *uc, uint64_t off, unsigned size,
                             uint64_t val, void *opaque)
{
    (void)uc;
    ftvm_mmio_write(opaque, LAPIC_BASE + off, size, val);
}

static void hook_intr(uc_engine *uc, uint32_t intno, void *opaque)
{
    struct ftvm *vm = opaque;

    (void)uc;
    ftvm_fail(vm, FTVM_EXIT_ERROR, "guest raised exception %u at eip 0x%x "
              "(instruction %llu); ftvm guests must not fault", intno,
              ftvm_reg(vm, UC_X86_REG_EIP), (unsigned long long)vm->count);
}

int ftvm_deliver(struct ftvm *vm, uint8_t vector)
{
    uc_x86_mmr idtr;
    uint32_t esp, efl, off, sel, cs;
    const uint8_t *g;

    uc_reg_read(vm->uc, UC_X86_REG_IDTR, &idtr);
    if ((uint32_t)vector * 8 + 7 > idtr.limit ||
        idtr.base + (uint64_t)vector * 8 + 8 > vm->ram_size) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "vector 0x%x is beyond the guest's "
                  "IDT (base 0x%llx, limit 0x%x)", vector,
                  (unsigned long long)idtr.base, idtr.limit);
        return -EINVAL;
    }
    g = vm->ram + idtr.base + (uint32_t)vector * 8;
    if (!(g[5] & 0x80)) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "no gate for vector 0x%x", vector);
        return -EINVAL;
    }
    off = (uint32_t)g[0] | (uint32_t)g[1] << 8 | (uint32_t)g[6] << 16 |
          (uint32_t)g[7] << 24;
    sel = (uint32_t)g[2] | (uint32_t)g[3] << 8;
    esp = ftvm_reg(vm, UC_X86_REG_ESP) - 12;
    efl = ftvm_reg(vm, UC_X86_REG_EFLAGS);
    cs = ftvm_reg(vm, UC_X86_REG_CS);
    if (esp < 12 || esp > vm->ram_size - 12) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "guest stack 0x%x is outside RAM "
                  "for vector 0x%x", esp + 12, vector);
        return -EINVAL;
    }
    /* Same privilege: push EFLAGS, CS, EIP, as the CPU does. */
    uint32_t frame[3] = { ftvm_reg(vm, UC_X86_REG_EIP), cs, efl };
    memcpy(vm->ram + esp, frame, sizeof(frame));
    uc_ctl_remove_cache(vm->uc, esp, esp + sizeof(frame));
    efl &= ~(EFL_TF | EFL_NT | EFL_RF);
    if ((g[5] & 0x1f) == 0x0e)
        efl &= ~EFL_IF;         /* interrupt gate, not trap gate */
    set_reg(vm, UC_X86_REG_ESP, esp);
    set_reg(vm, UC_X86_REG_EFLAGS, efl);
    if (sel != cs)
        set_reg(vm, UC_X86_REG_CS, sel);
    set_reg(vm, UC_X86_REG_EIP, off);
    vm->halted = false;
    return 0;
}

int ftvm_create(struct ftvm *vm, uint32_t ram_mib)
{
    static const uint64_t gdt[3] = { 0, 0x00cf9a000000ffffull,
                                     0x00cf92000000ffffull };
    uc_x86_mmr gdtr = { 0, FTVM_GDT_ADDR, sizeof(gdt) - 1, 0 };
    uc_hook h;
    uc_err e;

    memset(vm, 0, sizeof(*vm));
    vm->tick_fd = -1;
    vm->up_fd = vm->down_fd = vm->ctl_fd = -1;
    vm->speed_pct = 100;
    vm->disk.fd = -1;
    vm->nic.fd = -1;
    vm->stop_at = UINT64_MAX;
    vm->release_at = UINT64_MAX;
    vm->ram_size = ram_mib << 20;
    vm->ram = aligned_alloc(4096, vm->ram_size);
    if (!vm->ram || ftvm_devices_init(vm)) {
        free(vm->ram);
        vm->ram = NULL;
        snprintf(vm->why, sizeof(vm->why), "out of memory");
        return -ENOMEM;
    }
    memset(vm->ram, 0, vm->ram_size);
    e = uc_open(UC_ARCH_X86, UC_MODE_32, &vm->uc);
    if (e) {
        free(vm->ram);
        snprintf(vm->why, sizeof(vm->why), "unicorn: %s", uc_strerror(e));
        return -EIO;
    }
    /* Hooks before the first run: hooks added later miss cached code. */
    e = uc_mem_map_ptr(vm->uc, 0, vm->ram_size, UC_PROT_ALL, vm->ram);
    if (!e)
        e = uc_hook_add(vm->uc, &h, UC_HOOK_CODE, hook_code, vm, 1, 0);
    if (!e)
        e = uc_hook_add(vm->uc, &h, UC_HOOK_INSN, hook_in, vm, 1, 0,
                        UC_X86_INS_IN);
    if (!e)
        e = uc_hook_add(vm->uc, &h, UC_HOOK_INSN, hook_out, vm, 1, 0,
                        UC_X86_INS_OUT);
    if (!e)
        e = uc_hook_add(vm->uc, &h, UC_HOOK_INSN_INVALID, hook_invalid, vm,
                        1, 0);
    if (!e)
        e = uc_hook_add(vm->uc, &h, UC_HOOK_INTR, hook_intr, vm, 1, 0);
    if (!e)
        e = uc_mmio_map(vm->uc, PCI_HOLE, PCI_HOLE_END - PCI_HOLE,
                        hole_read, vm, hole_write, vm);
    if (!e)
        e = uc_mmio_map(vm->uc, LAPIC_BASE, 4096, lapic_mmio_read, vm,
                        lapic_mmio_write, vm);
    if (e) {
        snprintf(vm->why, sizeof(vm->why), "unicorn: %s", uc_strerror(e));
        ftvm_destroy(vm);
        return -EIO;
    }

    /* Flat 32-bit protected mode, as a multiboot loader leaves it. */
    memcpy(vm->ram + FTVM_GDT_ADDR, gdt, sizeof(gdt));
    uc_reg_write(vm->uc, UC_X86_REG_GDTR, &gdtr);
    set_reg(vm, UC_X86_REG_CR0, 0x11);
    set_reg(vm, UC_X86_REG_CS, 0x08);
    set_reg(vm, UC_X86_REG_DS, 0x10);
    set_reg(vm, UC_X86_REG_ES, 0x10);
    set_reg(vm, UC_X86_REG_SS, 0x10);
    set_reg(vm, UC_X86_REG_FS, 0x10);
    set_reg(vm, UC_X86_REG_GS, 0x10);
    set_reg(vm, UC_X86_REG_EFLAGS, 0x2);
    ftvm_io_init(vm);
    vm->tsc_base = __builtin_ia32_rdtsc();
    return 0;
}

void ftvm_destroy(struct ftvm *vm)
{
    ftvm_timer_stop(vm);
    disk_close(vm);
    nic_close(vm);
    ftvm_devices_free(vm);
    ftvm_devstate_free(vm);
    if (vm->uc)
        uc_close(vm->uc);
    vm->uc = NULL;
    free(vm->ram);
    vm->ram = NULL;
    xlft_gate_free(vm->gate);
    vm->gate = NULL;
    ftvm_detach(vm);
    free(vm->ring_mem);
    vm->ring_mem = NULL;
}

/* The devices' shared state goes into the hash; the host's does not. */
static void hash_field(void *ctx, const char *name, uint64_t *val, bool host)
{
    (void)name;
    if (!host)
        XXH3_64bits_update(ctx, val, sizeof(*val));
}

/* Registers, RAM, device state (not the input latches: IRR, PIT latch). */
uint64_t ftvm_state_hash(struct ftvm *vm)
{
    static const int regs[] = {
        UC_X86_REG_EAX, UC_X86_REG_EBX, UC_X86_REG_ECX, UC_X86_REG_EDX,
        UC_X86_REG_ESI, UC_X86_REG_EDI, UC_X86_REG_EBP, UC_X86_REG_ESP,
        UC_X86_REG_EIP, UC_X86_REG_EFLAGS, UC_X86_REG_CS, UC_X86_REG_DS,
        UC_X86_REG_ES, UC_X86_REG_FS, UC_X86_REG_GS, UC_X86_REG_SS,
        UC_X86_REG_CR0,
    };
    XXH3_state_t *st = XXH3_createState();
    uint64_t h, dev[32];
    uc_x86_mmr gdtr, idtr;
    unsigned int n = 0;

    if (!st)
        return 0;
    XXH3_64bits_reset(st);
    for (unsigned int i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
        uint32_t v = ftvm_reg(vm, regs[i]);

        XXH3_64bits_update(st, &v, sizeof(v));
    }
    uc_reg_read(vm->uc, UC_X86_REG_GDTR, &gdtr);
    uc_reg_read(vm->uc, UC_X86_REG_IDTR, &idtr);
    dev[n++] = gdtr.base;
    dev[n++] = gdtr.limit;
    dev[n++] = idtr.base;
    dev[n++] = idtr.limit;
    dev[n++] = vm->count;
    dev[n++] = vm->halted;
    dev[n++] = vm->output_id;
    for (int i = 0; i < 2; i++) {
        const struct pic *p = &vm->pic[i];

        dev[n++] = (uint64_t)p->isr | (uint64_t)p->imr << 8 |
                   (uint64_t)p->base << 16 | (uint64_t)p->icw_step << 24 |
                   (uint64_t)p->icw4_needed << 32 |
                   (uint64_t)p->read_isr << 33;
    }
    dev[n++] = (uint64_t)vm->pit.reload | (uint64_t)vm->pit.mode << 16 |
               (uint64_t)vm->pit.access << 24 |
               (uint64_t)vm->pit.write_hi << 32 |
               (uint64_t)vm->pit.read_hi << 33 |
               (uint64_t)vm->pit.latched << 34 |
               (uint64_t)vm->pit.armed << 35;
    for (int i = 0; i < 8; i++)
        dev[n++] = vm->lapic.isr[i];
    dev[n++] = vm->lapic.tpr | (uint64_t)vm->lapic.svr << 32;
    dev[n++] = (uint64_t)vm->uart.ier | (uint64_t)vm->uart.lcr << 8 |
               (uint64_t)vm->uart.mcr << 16 | (uint64_t)vm->uart.scr << 24 |
               (uint64_t)vm->uart.dll << 32 | (uint64_t)vm->uart.dlm << 40;
    XXH3_64bits_update(st, dev, n * sizeof(dev[0]));
    vio_visit(vm->pci, hash_field, st, false);
    XXH3_64bits_update(st, vm->ram, vm->ram_size);
    h = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return h;
}

/* Run the engine from EIP until the hook stops it. */
enum step ftvm_execute(struct ftvm *vm)
{
    uint32_t eip = ftvm_reg(vm, UC_X86_REG_EIP);
    uc_err e = uc_emu_start(vm->uc, eip, UINT64_MAX, 0, 0);

    if (vm->status)
        return STEP_FAIL;
    if (e) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "unicorn: %s at eip 0x%x "
                  "(instruction %llu)", uc_strerror(e),
                  ftvm_reg(vm, UC_X86_REG_EIP), (unsigned long long)vm->count);
        return STEP_FAIL;
    }
    if (vm->halt_hit) {
        vm->halt_hit = false;
        set_reg(vm, UC_X86_REG_EIP, vm->cur_eip + 1);
        retire(vm, OP_HLT);
        vm->halted = true;
    }
    return STEP_GO;
}
