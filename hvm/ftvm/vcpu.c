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
 * or at a HLT; the run loop then does what must happen at that point.
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

static uint32_t reg(struct ftvm *vm, int r)
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
    return (struct ft_point){ vm->count, reg(vm, UC_X86_REG_EIP),
                              reg(vm, UC_X86_REG_ECX) };
}

/* The point of the instruction the hooks are in. */
static struct ft_point here(struct ftvm *vm)
{
    return (struct ft_point){ vm->cur_count, vm->cur_eip,
                              reg(vm, UC_X86_REG_ECX) };
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
    r->pt = here(vm);
    if (vm->mode == FTVM_REPLAY)
        return ftvm_ft_sync(vm, r) == FT_OK;
    if (vm->mode == FTVM_RECORD)
        return ftvm_ft_append(vm, r) == FT_OK;
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

    r.u.msr.index = reg(vm, UC_X86_REG_ECX);
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

static bool in_shadow(const struct ftvm *vm)
{
    return vm->last_op == OP_STI || vm->last_op == OP_POPSS;
}

/* A held-back interrupt can be taken here: stop exactly then. */
static bool can_take(struct ftvm *vm)
{
    return !in_shadow(vm) && (reg(vm, UC_X86_REG_EFLAGS) & EFL_IF);
}

static void hook_code(uc_engine *uc, uint64_t addr, uint32_t size,
                      void *opaque)
{
    struct ftvm *vm = opaque;
    const uint8_t *op;

    (void)size;
    if (vm->count >= vm->stop_at ||
        __atomic_load_n(&vm->kick, __ATOMIC_RELAXED) ||
        (vm->watch_if && can_take(vm))) {
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
    uint32_t eip = reg(vm, UC_X86_REG_EIP);
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
        set_reg(vm, regs[rm], (reg(vm, regs[rm]) & 0xffff0000u) |
                              (uint32_t)r.u.rand.value);
    else
        set_reg(vm, regs[rm], (uint32_t)r.u.rand.value);
    set_reg(vm, UC_X86_REG_EFLAGS,
            (reg(vm, UC_X86_REG_EFLAGS) &
             ~(EFL_OF | EFL_SF | EFL_ZF | EFL_AF | EFL_PF)) | EFL_CF);
    set_reg(vm, UC_X86_REG_EIP, eip + 3 + o16);
    return true;
}

/* MMIO: device registers; reads are inputs like port reads. */
static uint64_t mmio_read(struct ftvm *vm, uint64_t base, uint64_t off,
                          unsigned size, uint32_t v)
{
    struct ft_log_rec r = { .kind = FT_K_MMIO };

    r.u.mmio.gpa = base + off;
    r.u.mmio.size = (uint8_t)size;
    r.u.mmio.value = size >= 4 ? v : (v >> (8 * (off & 3))) &
                                     ((1u << (8 * size)) - 1);
    if (!ftvm_input(vm, &r))
        return 0;
    return r.u.mmio.value;
}

static uint64_t disk_mmio_read(uc_engine *uc, uint64_t off, unsigned size,
                               void *opaque)
{
    (void)uc;
    return mmio_read(opaque, DISK_MMIO, off, size,
                     disk_read(opaque, (uint32_t)off & ~3u));
}

static void disk_mmio_write(uc_engine *uc, uint64_t off, unsigned size,
                            uint64_t val, void *opaque)
{
    (void)uc;
    if (size == 4 && !(off & 3))
        disk_write(opaque, (uint32_t)off, (uint32_t)val);
}

static uint64_t nic_mmio_read(uc_engine *uc, uint64_t off, unsigned size,
                              void *opaque)
{
    (void)uc;
    return mmio_read(opaque, NIC_MMIO, off, size,
                     nic_read(opaque, (uint32_t)off & ~3u));
}

static void nic_mmio_write(uc_engine *uc, uint64_t off, unsigned size,
                           uint64_t val, void *opaque)
{
    (void)uc;
    if (size == 4 && !(off & 3))
        nic_write(opaque, (uint32_t)off, (uint32_t)val);
}

static void hook_intr(uc_engine *uc, uint32_t intno, void *opaque)
{
    struct ftvm *vm = opaque;

    (void)uc;
    ftvm_fail(vm, FTVM_EXIT_ERROR, "guest raised exception %u at eip 0x%x "
              "(instruction %llu); ftvm guests must not fault", intno,
              reg(vm, UC_X86_REG_EIP), (unsigned long long)vm->count);
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
    esp = reg(vm, UC_X86_REG_ESP) - 12;
    efl = reg(vm, UC_X86_REG_EFLAGS);
    cs = reg(vm, UC_X86_REG_CS);
    if (esp < 12 || esp > vm->ram_size - 12) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "guest stack 0x%x is outside RAM "
                  "for vector 0x%x", esp + 12, vector);
        return -EINVAL;
    }
    /* Same privilege: push EFLAGS, CS, EIP, as the CPU does. */
    uint32_t frame[3] = { reg(vm, UC_X86_REG_EIP), cs, efl };
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
    vm->disk.fd = -1;
    vm->nic.fd = -1;
    vm->stop_at = UINT64_MAX;
    vm->ram_size = ram_mib << 20;
    vm->ram = aligned_alloc(4096, vm->ram_size);
    if (!vm->ram)
        return -ENOMEM;
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
        e = uc_mmio_map(vm->uc, DISK_MMIO, 4096, disk_mmio_read, vm,
                        disk_mmio_write, vm);
    if (!e)
        e = uc_mmio_map(vm->uc, NIC_MMIO, 4096, nic_mmio_read, vm,
                        nic_mmio_write, vm);
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
    if (vm->uc)
        uc_close(vm->uc);
    vm->uc = NULL;
    free(vm->ram);
    vm->ram = NULL;
    free(vm->ring_mem);
    vm->ring_mem = NULL;
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
    uint64_t h, dev[24];
    uc_x86_mmr gdtr, idtr;
    unsigned int n = 0;

    if (!st)
        return 0;
    XXH3_64bits_reset(st);
    for (unsigned int i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
        uint32_t v = reg(vm, regs[i]);

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
    dev[n++] = vm->disk.ring | (uint64_t)vm->disk.size << 32;
    dev[n++] = vm->disk.ctrl | (uint64_t)vm->disk.next << 32;
    dev[n++] = vm->nic.rx_ring | (uint64_t)vm->nic.rx_size << 32;
    dev[n++] = vm->nic.tx_ring | (uint64_t)vm->nic.tx_size << 32;
    dev[n++] = vm->nic.ctrl | (uint64_t)vm->nic.tx_next << 32;
    dev[n++] = (uint64_t)vm->uart.ier | (uint64_t)vm->uart.lcr << 8 |
               (uint64_t)vm->uart.mcr << 16 | (uint64_t)vm->uart.scr << 24 |
               (uint64_t)vm->uart.dll << 32 | (uint64_t)vm->uart.dlm << 40;
    XXH3_64bits_update(st, dev, n * sizeof(dev[0]));
    XXH3_64bits_update(st, vm->ram, vm->ram_size);
    h = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return h;
}

static bool record_ok(struct ftvm *vm, struct ft_log_rec *r)
{
    return vm->mode != FTVM_RECORD || ftvm_ft_append(vm, r) == FT_OK;
}

/* Run the engine from EIP until the hook stops it. */
enum step ftvm_execute(struct ftvm *vm)
{
    uint32_t eip = reg(vm, UC_X86_REG_EIP);
    uc_err e = uc_emu_start(vm->uc, eip, UINT64_MAX, 0, 0);

    if (vm->status)
        return STEP_FAIL;
    if (e) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "unicorn: %s at eip 0x%x "
                  "(instruction %llu)", uc_strerror(e),
                  reg(vm, UC_X86_REG_EIP), (unsigned long long)vm->count);
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

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The primary (recording or not): host time and devices drive it. */
static enum step live_step(struct ftvm *vm, uint64_t insns,
                           uint64_t deadline)
{
    uint64_t due;
    int v;

    if (insns && vm->count >= insns)
        return STEP_DONE;
    if (deadline && now_ns() >= deadline)
        return STEP_DONE;
    if (__atomic_load_n(&vm->stop_requested, __ATOMIC_RELAXED))
        return STEP_DONE;

    /* Cleared before ticks_due is read, so that no tick is missed. */
    __atomic_exchange_n(&vm->kick, 0, __ATOMIC_SEQ_CST);
    due = __atomic_load_n(&vm->ticks_due, __ATOMIC_ACQUIRE);
    if (due != vm->ticks_done) {
        vm->ticks_done = due;       /* edge-triggered: ticks coalesce */
        pic_raise(vm, 0);
    }

    /* A state hash now and then: divergence shows within a period. */
    if (vm->mode == FTVM_RECORD && vm->sync_ns && now_ns() >= vm->next_sync) {
        struct ft_log_rec r = { .kind = FT_K_SYNC, .pt = ftvm_point(vm) };

        r.u.sync.hash = ftvm_state_hash(vm);
        if (!record_ok(vm, &r))
            return STEP_FAIL;
        vm->next_sync = now_ns() + vm->sync_ns;
    }

    /* Device input enters memory where its interrupt can be taken. */
    if ((reg(vm, UC_X86_REG_EFLAGS) & EFL_IF) && !in_shadow(vm) &&
        ((vm->disk.pending && disk_complete(vm)) || nic_receive(vm)))
        return STEP_FAIL;

    vm->watch_if = false;
    v = pic_pending(vm);
    if (v >= 0) {
        bool if_on = reg(vm, UC_X86_REG_EFLAGS) & EFL_IF;
        struct ft_log_rec r = { .pt = ftvm_point(vm) };

        if (vm->halted && !if_on) {
            /* HLT ends on a request even when it cannot be taken. */
            r.kind = FT_K_HLT_WAKE;
            if (!record_ok(vm, &r))
                return STEP_FAIL;
            vm->halted = false;
        } else if (if_on && !in_shadow(vm)) {
            r.kind = FT_K_EXTINT;
            r.u.intr.vector = (uint8_t)v;
            if (!record_ok(vm, &r))
                return STEP_FAIL;
            pic_ack(vm);
            if (ftvm_deliver(vm, (uint8_t)v))
                return STEP_FAIL;
        } else {
            vm->watch_if = true;
        }
    }

    if (vm->halted) {
        int ms = 100, rc;

        if (deadline) {
            uint64_t left = deadline > now_ns() ? deadline - now_ns() : 0;

            ms = left / 1000000 < 100 ? (int)(left / 1000000) + 1 : 100;
        }
        /* A frame wakes the guest only if it has a buffer for it. */
        rc = ftvm_timer_wait(vm, ms, nic_can_receive(vm) ? vm->nic.fd : -1);
        if (rc < 0) {
            ftvm_fail(vm, FTVM_EXIT_ERROR, "timer: %s", strerror(-rc));
            return STEP_FAIL;
        }
        if (!rc && !__atomic_load_n(&vm->timer_period, __ATOMIC_RELAXED) &&
            !deadline && vm->nic.fd < 0) {
            ftvm_fail(vm, FTVM_EXIT_ERROR, "guest halted at eip 0x%x with "
                      "no timer programmed: it would never wake",
                      reg(vm, UC_X86_REG_EIP));
            return STEP_FAIL;
        }
        return STEP_GO;
    }
    vm->stop_at = insns ? insns : UINT64_MAX;
    return ftvm_execute(vm);
}

static int dma_write(void *opaque, uint64_t gpa, const uint8_t *data,
                     uint32_t len)
{
    struct ftvm *vm = opaque;

    if (gpa > vm->ram_size || len > vm->ram_size - gpa)
        return FT_EINVAL;
    memcpy(vm->ram + gpa, data, len);
    /* Translated code does not notice writes from outside the vCPU. */
    uc_ctl_remove_cache(vm->uc, gpa, gpa + len);
    return FT_OK;
}

/* A device puts input into guest memory here and now: recorded as DMA. */
int ftvm_dma_in(struct ftvm *vm, uint32_t gpa, const void *data,
                uint32_t len)
{
    struct ft_log_rec r = { .kind = FT_K_DMA, .pt = ftvm_point(vm) };

    r.u.dma.gpa = gpa;
    r.u.dma.len = len;
    r.u.dma.data = data;
    if (gpa > vm->ram_size || len > vm->ram_size - gpa) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "a device wrote outside RAM at "
                  "0x%x", gpa);
        return -EINVAL;
    }
    if (!record_ok(vm, &r))
        return -EIO;
    return dma_write(vm, gpa, data, len);
}

/* Apply the asynchronous record at the current point. */
static enum step replay_async(struct ftvm *vm)
{
    struct ft_point pt = ftvm_point(vm);
    struct ft_log_rec ev;
    int rc = ft_replay_async(&vm->rp, &pt, &ev, dma_write, vm);

    if (rc) {
        ftvm_ft_diverged(vm, rc);
        return STEP_FAIL;
    }
    if ((ev.kind == FT_K_EXTINT && !can_take(vm)) ||
        (ev.kind == FT_K_HLT_WAKE && !vm->halted)) {
        ftvm_fail(vm, FTVM_EXIT_DIVERGED, "divergence at record %llu: the "
                  "log has %s at count=%llu, where the vCPU %s",
                  (unsigned long long)ft_replay_seq(&vm->rp),
                  ft_log_kind_name(ev.kind), (unsigned long long)pt.count,
                  ev.kind == FT_K_EXTINT ? "cannot take an interrupt"
                                         : "is not halted");
        return STEP_FAIL;
    }
    switch (ev.kind) {
    case FT_K_EXTINT:
        pic_ack_vector(vm, ev.u.intr.vector);
        return ftvm_deliver(vm, ev.u.intr.vector) ? STEP_FAIL : STEP_GO;
    case FT_K_NMI:
        return ftvm_deliver(vm, 2) ? STEP_FAIL : STEP_GO;
    case FT_K_EVENT:
        return ftvm_deliver(vm, ev.u.event.vector) ? STEP_FAIL : STEP_GO;
    case FT_K_HLT_WAKE:
        vm->halted = false;
        return STEP_GO;
    case FT_K_SYNC:
        rc = ft_replay_check_hash(&vm->rp, &ev, ftvm_state_hash(vm));
        if (rc) {
            ftvm_ft_diverged(vm, rc);
            return STEP_FAIL;
        }
        return STEP_GO;
    default:                        /* PROGRESS, DMA (already applied) */
        return STEP_GO;
    }
}

/* The secondary: the log drives it, one record at a time. */
static enum step replay_step(struct ftvm *vm)
{
    const struct ft_log_rec *next;
    struct ft_point pt;
    int rc;

    if (__atomic_load_n(&vm->stop_requested, __ATOMIC_RELAXED)) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "replay interrupted at instruction "
                  "%llu", (unsigned long long)vm->count);
        return STEP_FAIL;
    }
    /* Devices kick to stop the engine early; here only the log does. */
    __atomic_store_n(&vm->kick, 0, __ATOMIC_RELAXED);
    rc = ftvm_ft_next(vm, &next);
    if (rc == FT_EAGAIN)
        return STEP_DONE;           /* every record replayed */
    if (rc)
        return STEP_FAIL;
    if (vm->insn_cap && next->pt.count > vm->insn_cap) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "record %llu is beyond the "
                  "instruction cap of this run",
                  (unsigned long long)ft_replay_seq(&vm->rp) + 1);
        return STEP_FAIL;
    }

    if (vm->halted || vm->count > next->pt.count) {
        /* A halted vCPU can only wait for an event at this very point. */
        pt = ftvm_point(vm);
        rc = vm->halted ? ft_replay_halted(&vm->rp, &pt)
                        : ft_replay_overrun(&vm->rp, &pt);
        if (rc) {
            ftvm_ft_diverged(vm, rc);
            return STEP_FAIL;
        }
    }
    if (ft_log_kind_is_sync(next->kind)) {
        /* Run until the instruction asks; one more is an overrun. */
        vm->stop_at = next->pt.count + 1;
        return ftvm_execute(vm);
    }
    if (vm->count < next->pt.count) {
        vm->stop_at = next->pt.count;
        return ftvm_execute(vm);
    }
    return replay_async(vm);
}

int ftvm_run(struct ftvm *vm, uint64_t insns, uint64_t millis)
{
    uint64_t deadline = millis ? now_ns() + millis * 1000000ull : 0;

    vm->next_sync = now_ns() + vm->sync_ns;
    enum step s;

    if (vm->mode != FTVM_REPLAY) {
        int rc = ftvm_timer_start(vm);

        if (rc) {
            ftvm_fail(vm, FTVM_EXIT_ERROR, "cannot start the timer: %s",
                      strerror(-rc));
            return vm->status;
        }
    }
    do {
        s = vm->mode == FTVM_REPLAY ? replay_step(vm)
                                    : live_step(vm, insns, deadline);
    } while (s == STEP_GO && !vm->status);
    ftvm_timer_stop(vm);
    return vm->status;
}
