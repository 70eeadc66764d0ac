// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot.c - the whole state of a guest in a file: what creating a
 * secondary copies from the primary.  A snapshot is taken where no
 * device input is on its way (it holds the device registers and the
 * guest's memory, not what the host has in flight), and a log recorded
 * after restoring it replays from the same snapshot.
 *
 * File: "XFTVMSNP", u32 version, u32 RAM MiB, then the vCPU registers,
 * the counters and the device state as u64 values (a version has a fixed
 * number of them), then RAM, then the XXH3-64 of everything before it.
 * Little-endian.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "ftvm.h"

#define SNAP_MAGIC      "XFTVMSNP"
#define SNAP_VERSION    2u     /* 2: PCI devices and a local APIC */

static const int regs[] = {
    UC_X86_REG_EAX, UC_X86_REG_EBX, UC_X86_REG_ECX, UC_X86_REG_EDX,
    UC_X86_REG_ESI, UC_X86_REG_EDI, UC_X86_REG_EBP, UC_X86_REG_ESP,
    UC_X86_REG_EIP, UC_X86_REG_EFLAGS, UC_X86_REG_CR0,
};
static const int segs[] = {
    UC_X86_REG_CS, UC_X86_REG_DS, UC_X86_REG_ES, UC_X86_REG_FS,
    UC_X86_REG_GS, UC_X86_REG_SS,
};

#define NREG (sizeof(regs) / sizeof(regs[0]))
#define NSEG (sizeof(segs) / sizeof(segs[0]))
#define NMAX 512                /* values held: more than state() uses */

struct fields {
    uint64_t *v;
    unsigned int n;
    bool load;
};

/* The device core's fields, after ftvm's own (vio_visit). */
static void field(void *ctx, const char *name, uint64_t *val, bool host)
{
    struct fields *f = ctx;

    (void)name;
    (void)host;
    if (f->n < NMAX && f->load)
        *val = f->v[f->n];
    else if (f->n < NMAX)
        f->v[f->n] = *val;
    f->n++;
}

/*
 * Everything but RAM, in one fixed order, as u64 values: into 'v', or
 * from it with 'load'.  Returns how many, or -1 if the values name
 * other PCI functions than this ftvm has.
 */
static int state(struct ftvm *vm, uint64_t *v, bool load)
{
    struct fields fs;
    uc_x86_mmr gdtr = { 0 }, idtr = { 0 };
    unsigned int n = NREG + NSEG;

#define F(x) do {                                                       \
    if (load)                                                           \
        (x) = (__typeof__(x))v[n];                                      \
    else                                                                \
        v[n] = (uint64_t)(x);                                           \
    n++;                                                                \
} while (0)
    if (!load) {
        for (unsigned int i = 0; i < NREG + NSEG; i++) {
            v[i] = 0;
            uc_reg_read(vm->uc, i < NREG ? regs[i] : segs[i - NREG], &v[i]);
            v[i] &= 0xffffffffu;
        }
        uc_reg_read(vm->uc, UC_X86_REG_GDTR, &gdtr);
        uc_reg_read(vm->uc, UC_X86_REG_IDTR, &idtr);
    }
    F(gdtr.base);
    F(gdtr.limit);
    F(idtr.base);
    F(idtr.limit);
    F(vm->count);
    F(vm->halted);
    F(vm->last_op);
    F(vm->prev_op);
    F(vm->output_id);
    for (int i = 0; i < 2; i++) {
        F(vm->pic[i].irr);
        F(vm->pic[i].isr);
        F(vm->pic[i].imr);
        F(vm->pic[i].base);
        F(vm->pic[i].icw_step);
        F(vm->pic[i].icw4_needed);
        F(vm->pic[i].read_isr);
    }
    F(vm->pit.reload);
    F(vm->pit.mode);
    F(vm->pit.access);
    F(vm->pit.write_hi);
    F(vm->pit.read_hi);
    F(vm->pit.latched);
    F(vm->pit.latch);
    F(vm->pit.armed);
    F(vm->uart.ier);
    F(vm->uart.lcr);
    F(vm->uart.mcr);
    F(vm->uart.scr);
    F(vm->uart.dll);
    F(vm->uart.dlm);
    for (int i = 0; i < 8; i++) {
        F(vm->lapic.irr[i]);
        F(vm->lapic.isr[i]);
    }
    F(vm->lapic.tpr);
    F(vm->lapic.svr);
#undef F
    fs = (struct fields){ v, n, load };
    if (vio_visit(vm->pci, field, &fs, load) || fs.n >= NMAX)
        return -1;
    n = fs.n;
    /* The guest's TSC goes on from where it was, not from the host's. */
    if (!load)
        v[n] = ftvm_guest_tsc(vm);
    else
        vm->tsc_base = __builtin_ia32_rdtsc() - v[n];
    n++;
    if (load) {
        uint64_t desc[NSEG];
        uint64_t at[NSEG];

        uc_reg_write(vm->uc, UC_X86_REG_GDTR, &gdtr);
        uc_reg_write(vm->uc, UC_X86_REG_IDTR, &idtr);
        /* Loading a segment register sets the accessed bit of its
         * descriptor in guest memory: put back what the guest had. */
        for (unsigned int i = 0; i < NSEG; i++) {
            at[i] = gdtr.base + (v[NREG + i] & ~7ull);
            if (at[i] <= vm->ram_size - 8ull)
                memcpy(&desc[i], vm->ram + at[i], 8);
        }
        for (unsigned int i = NREG; i < NREG + NSEG; i++)
            uc_reg_write(vm->uc, segs[i - NREG], &v[i]);
        for (unsigned int i = 0; i < NSEG; i++)
            if (at[i] <= vm->ram_size - 8ull)
                memcpy(vm->ram + at[i], &desc[i], 8);
        for (unsigned int i = 0; i < NREG; i++)
            uc_reg_write(vm->uc, regs[i], &v[i]);
        if (vm->pit.armed)
            __atomic_store_n(&vm->timer_period, pit_period_ns(&vm->pit),
                             __ATOMIC_RELEASE);
    }
    return n;
}

/* The checksum of a snapshot: header, values, RAM. */
static int snap_hash(const struct ftvm *vm, const uint8_t *head,
                     const uint64_t *v, unsigned int n, uint64_t *h)
{
    XXH3_state_t *st = XXH3_createState();

    if (!st)
        return -ENOMEM;
    XXH3_64bits_reset(st);
    XXH3_64bits_update(st, head, 16);
    XXH3_64bits_update(st, v, n * sizeof(v[0]));
    XXH3_64bits_update(st, vm->ram, vm->ram_size);
    *h = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return 0;
}

/* Into 'f', which is closed; 'name' names it in messages. */
static int save(struct ftvm *vm, FILE *f, const char *name)
{
    uint8_t head[16];
    uint64_t v[NMAX], h;
    int n, rc = 0;

    if (vm->disk.pending) {
        snprintf(vm->why, sizeof(vm->why), "cannot snapshot with disk "
                 "completions in flight");
        rc = -EBUSY;
        goto out;
    }
    n = state(vm, v, false);
    memcpy(head, SNAP_MAGIC, 8);
    memcpy(head + 8, &(uint32_t){ SNAP_VERSION }, 4);
    memcpy(head + 12, &(uint32_t){ vm->ram_size >> 20 }, 4);
    if (snap_hash(vm, head, v, n, &h)) {
        snprintf(vm->why, sizeof(vm->why), "cannot write snapshot %s: out "
                 "of memory", name);
        rc = -ENOMEM;
        goto out;
    }
    if (fwrite(head, 1, sizeof(head), f) != sizeof(head) ||
        fwrite(v, sizeof(v[0]), n, f) != (size_t)n ||
        fwrite(vm->ram, 1, vm->ram_size, f) != vm->ram_size ||
        fwrite(&h, sizeof(h), 1, f) != 1 || fflush(f)) {
        snprintf(vm->why, sizeof(vm->why), "cannot write snapshot %s: %s",
                 name, strerror(errno));
        rc = -EIO;
    }
out:
    if (fclose(f) && !rc) {
        snprintf(vm->why, sizeof(vm->why), "cannot write snapshot %s: %s",
                 name, strerror(errno));
        rc = -EIO;
    }
    return rc;
}

/*
 * Unicorn loads a segment register from its descriptor in the guest's
 * GDT, and a load that faults leaves uc_reg_write by a longjmp to
 * nowhere.  Selectors from the peer are therefore taken only when the
 * load cannot fault: a ring-0 GDT descriptor in RAM, present, of the
 * kind the register needs (ftvm's guests run in ring 0 only).
 */
static const char *seg_unloadable(const struct ftvm *vm, const uint64_t *v)
{
    uint64_t base = v[NREG + NSEG], limit = v[NREG + NSEG + 1];

    for (unsigned int i = 0; i < NSEG; i++) {
        uint64_t sel = v[NREG + i], off = sel & ~7ull;
        bool cs = segs[i] == UC_X86_REG_CS, ss = segs[i] == UC_X86_REG_SS;
        uint32_t e2;

        if (sel > 0xffff || (sel & 7))
            return "a selector of another ring or the LDT";
        if (!off) {
            if (cs || ss)
                return "a null code or stack selector";
            continue;
        }
        /* The GDT base is the peer's too: no sum of it may wrap. */
        if (off + 7 > limit || base > vm->ram_size ||
            off + 8 > vm->ram_size - base)
            return "a selector beyond its GDT or RAM";
        memcpy(&e2, vm->ram + base + off + 4, 4);
        if (!(e2 & (1u << 12)) || !(e2 & (1u << 15)) || (e2 >> 13 & 3))
            return "a selector of a system, absent or unprivileged "
                   "descriptor";
        if (ss ? (e2 & (1u << 11)) || !(e2 & (1u << 9))
               : (e2 & (1u << 11)) ? !(e2 & (1u << 9)) : cs)
            return "a selector of the wrong kind of segment";
    }
    return NULL;
}

/* From 'f', which is closed. */
static int restore(struct ftvm *vm, FILE *f, const char *name)
{
    uint8_t head[16];
    uint64_t v[NMAX], h, want;
    uint32_t version, mib;
    const char *bad;
    int n, rc = -EBADMSG;

    if (fread(head, 1, sizeof(head), f) != sizeof(head) ||
        memcmp(head, SNAP_MAGIC, 8)) {
        snprintf(vm->why, sizeof(vm->why), "%s: not an ftvm snapshot", name);
        goto out;
    }
    memcpy(&version, head + 8, 4);
    memcpy(&mib, head + 12, 4);
    if (version != SNAP_VERSION) {
        snprintf(vm->why, sizeof(vm->why), "%s: snapshot version %u, this "
                 "ftvm reads version %u", name, version, SNAP_VERSION);
        goto out;
    }
    if (mib != vm->ram_size >> 20) {
        snprintf(vm->why, sizeof(vm->why), "%s: a snapshot of a %u MiB "
                 "guest, this one has %u MiB (--mem)", name, mib,
                 vm->ram_size >> 20);
        goto out;
    }
    n = state(vm, v, false);            /* how many this build holds */
    if (fread(v, sizeof(v[0]), n, f) != (size_t)n ||
        fread(vm->ram, 1, vm->ram_size, f) != vm->ram_size ||
        fread(&want, sizeof(want), 1, f) != 1 || fgetc(f) != EOF) {
        snprintf(vm->why, sizeof(vm->why), "%s: snapshot cut short or too "
                 "long", name);
        goto out;
    }
    if (snap_hash(vm, head, v, n, &h)) {
        rc = -ENOMEM;
        goto out;
    }
    if (h != want) {
        snprintf(vm->why, sizeof(vm->why), "%s: snapshot checksum mismatch",
                 name);
        goto out;
    }
    bad = seg_unloadable(vm, v);
    if (bad) {
        snprintf(vm->why, sizeof(vm->why), "%s: snapshot with %s", name,
                 bad);
        goto out;
    }
    if (state(vm, v, true) < 0) {
        snprintf(vm->why, sizeof(vm->why), "%s: a snapshot of other PCI "
                 "functions than this ftvm's", name);
        goto out;
    }
    uc_ctl_remove_cache(vm->uc, 0, vm->ram_size);
    rc = 0;
out:
    fclose(f);
    return rc;
}

int ftvm_snapshot_save(struct ftvm *vm, const char *path)
{
    FILE *f = fopen(path, "wb");

    if (!f) {
        snprintf(vm->why, sizeof(vm->why), "cannot write snapshot %s: %s",
                 path, strerror(errno));
        return -errno;
    }
    return save(vm, f, path);
}

int ftvm_snapshot_restore(struct ftvm *vm, const char *path)
{
    FILE *f = fopen(path, "rb");

    if (!f) {
        snprintf(vm->why, sizeof(vm->why), "cannot open snapshot %s: %s",
                 path, strerror(errno));
        return -errno;
    }
    return restore(vm, f, path);
}

/* Through a descriptor (a file, pipe or socket), which stays open. */
static FILE *fd_stream(struct ftvm *vm, int fd, const char *mode,
                       const char *name)
{
    int copy = dup(fd);
    FILE *f = copy < 0 ? NULL : fdopen(copy, mode);

    if (!f) {
        snprintf(vm->why, sizeof(vm->why), "snapshot %s: %s", name,
                 strerror(errno));
        if (copy >= 0)
            close(copy);
    }
    return f;
}

int ftvm_snapshot_save_fd(struct ftvm *vm, int fd, const char *name)
{
    FILE *f = fd_stream(vm, fd, "wb", name);

    return f ? save(vm, f, name) : -EIO;
}

int ftvm_snapshot_restore_fd(struct ftvm *vm, int fd, const char *name)
{
    FILE *f = fd_stream(vm, fd, "rb", name);

    return f ? restore(vm, f, name) : -EIO;
}
