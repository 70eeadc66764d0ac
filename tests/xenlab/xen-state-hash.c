// SPDX-License-Identifier: GPL-2.0-only
/*
 * xen-state-hash.c - the state of a paused HVM guest as two hashes, for
 * the lab's replay tests: a primary and its copy, each hashed in its own
 * dom0, must agree once the copy has replayed up to where the primary
 * stopped.
 *
 *   xen-state-hash DOMID MIB [GFN]
 *
 * prints "ram: ..." (XXH3-64 of each present frame of the first MIB MiB
 * of guest-physical memory, with its frame number; a frame that cannot be
 * mapped counts as a hole) and "vcpu: ..." (XXH3-64 of the vCPU's saved
 * registers, struct hvm_hw_cpu, less its TSC: the emulated TSC follows
 * the host's clock, not the guest's execution), and "pit: ..." (the
 * state of the PIT's channels 0 and 2 that the guest's reads and writes
 * drive: its mode, access mode, byte flip-flops and latches, not its
 * count, which follows the host's clock), "irq: ..." (the vectors the
 * local APIC has in service and the in-service registers of the two
 * PICs: what the guest has been given and not yet acknowledged; not the
 * pending ones, which the host's timers raise), "timers: ..." (the RTC's
 * periodic flags in its register C, which Xen's RTC sets as it delivers
 * a periodic tick; not the update and alarm flags, which the host's
 * clock sets), and with GFN "page: ..."
 * (XXH3-64 of that one frame, wherever it lies, or "nothing there": the
 * page hvmloader mapped shared_info at, say).  The guest should be paused;
 * nothing is written to it.  Exit status 0, 1 with a message naming what
 * failed, 2 on bad usage.
 */
#define __XEN_TOOLS__ 1 /* XEN_DOMCTL_gethvmcontext_partial */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <xencall.h>
#include <xenforeignmemory.h>
#include <xen/domctl.h>
#include <xen/hvm/save.h>
#include <xen/xen.h>
#include <xxhash.h>

/* The MC146818's register C: its interrupt and periodic flags. */
#define RTC_REG_C   0x0c
#define RTC_IRQF    0x80
#define RTC_PF      0x40

#define PAGE 4096u
#define BATCH 256u
#define APIC_ISR 0x100u    /* in-service register, 8 x 32 bits */

static int bad_usage(void)
{
    fprintf(stderr, "usage: xen-state-hash DOMID MIB [GFN]\n");
    return 2;
}

static int parse(const char *s, unsigned long max, unsigned long *v)
{
    char *end;

    errno = 0;
    *v = strtoul(s, &end, 0);
    return errno || !*s || *end || *s == '-' || *v > max ? -1 : 0;
}

/*
 * The frames [first, first + frames) of 'domid', hashed in order with
 * their numbers.
 */
static int ram_hash_from(xenforeignmemory_handle *fm, uint32_t domid,
                         unsigned long first, unsigned long frames,
                         uint64_t *hash, unsigned long *holes)
{
    XXH3_state_t *st = XXH3_createState();
    xen_pfn_t pfn[BATCH];
    int err[BATCH];
    int rc = 0;

    if (!st)
        return -ENOMEM;
    XXH3_64bits_reset(st);
    *holes = 0;
    for (unsigned long at = first; at < first + frames && !rc; at += BATCH) {
        unsigned long left = first + frames - at;
        unsigned int n = left < BATCH ? left : BATCH;
        uint8_t *p;

        for (unsigned int i = 0; i < n; i++)
            pfn[i] = at + i;
        p = xenforeignmemory_map(fm, domid, PROT_READ, n, pfn, err);
        if (!p) {
            rc = errno ? -errno : -EIO;
            fprintf(stderr, "xen-state-hash: domain %" PRIu32 ": cannot "
                    "map frames %#lx..%#lx: %s\n", domid, at, at + n - 1,
                    strerror(-rc));
            break;
        }
        for (unsigned int i = 0; i < n; i++) {
            uint64_t f = at + i;

            XXH3_64bits_update(st, &f, sizeof(f));
            if (err[i]) {
                ++*holes;
                continue;
            }
            XXH3_64bits_update(st, p + (size_t)i * PAGE, PAGE);
        }
        xenforeignmemory_unmap(fm, p, n);
    }
    *hash = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return rc;
}

/* Record 'code', 'instance' of a partial HVM context, 'len' bytes. */
static int hvm_record(xencall_handle *h, uint32_t domid, uint16_t code,
                      uint16_t instance, void *rec, size_t len)
{
    struct xen_domctl *d = xencall_alloc_buffer(h, sizeof(*d));
    uint8_t *buf = xencall_alloc_buffer(h, len);
    int rc = -ENOMEM;

    if (!d || !buf)
        goto out;
    memset(d, 0, sizeof(*d));
    memset(buf, 0, len);
    d->cmd = XEN_DOMCTL_gethvmcontext_partial;
    d->interface_version = XEN_DOMCTL_INTERFACE_VERSION;
    d->domain = (domid_t)domid;
    d->u.hvmcontext_partial.type = code;
    d->u.hvmcontext_partial.instance = instance;
    d->u.hvmcontext_partial.bufsz = len;
    set_xen_guest_handle(d->u.hvmcontext_partial.buffer, buf);
    do {
        rc = xencall1(h, __HYPERVISOR_domctl, (uint64_t)(uintptr_t)d);
    } while (rc < 0 && (errno == EAGAIN || errno == EINTR));
    rc = rc < 0 ? -errno : 0;
    if (!rc)
        memcpy(rec, buf, len);
out:
    if (buf)
        xencall_free_buffer(h, buf);
    if (d)
        xencall_free_buffer(h, d);
    return rc;
}

int main(int argc, char **argv)
{
    xenforeignmemory_handle *fm = NULL;
    xencall_handle *h = NULL;
    const struct hvm_hw_pit_channel *c;
    struct hvm_hw_cpu cpu;
    struct hvm_hw_pit pit;
    struct hvm_hw_lapic_regs lapic;
    struct hvm_hw_vpic pic[2];
    struct hvm_hw_rtc rtc;
    unsigned long domid, mib, holes, gfn = 0, none = 0;
    unsigned int in_service = 0;
    uint64_t ram, regs, page;
    int rc = -1;

    if (argc < 3 || argc > 4 ||
        parse(argv[1], DOMID_FIRST_RESERVED - 1, &domid) ||
        parse(argv[2], 1ul << 20, &mib) || !mib ||
        (argc == 4 && parse(argv[3], (1ul << 40) - 1, &gfn)))
        return bad_usage();
    h = xencall_open(NULL, 0);
    fm = xenforeignmemory_open(NULL, 0);
    if (!h || !fm) {
        fprintf(stderr, "xen-state-hash: cannot open libxencall or "
                "libxenforeignmemory: %s\n", strerror(errno));
        goto out;
    }
    rc = hvm_record(h, domid, HVM_SAVE_CODE(CPU), 0, &cpu, sizeof(cpu));
    if (rc) {
        fprintf(stderr, "xen-state-hash: domain %lu: cannot read its vCPU "
                "registers: %s\n", domid, strerror(-rc));
        goto out;
    }
    rc = hvm_record(h, domid, HVM_SAVE_CODE(PIT), 0, &pit, sizeof(pit));
    if (rc) {
        fprintf(stderr, "xen-state-hash: domain %lu: cannot read its PIT: "
                "%s\n", domid, strerror(-rc));
        goto out;
    }
    rc = hvm_record(h, domid, HVM_SAVE_CODE(LAPIC_REGS), 0, &lapic,
                    sizeof(lapic));
    for (unsigned int i = 0; !rc && i < 2; i++)
        rc = hvm_record(h, domid, HVM_SAVE_CODE(PIC), i, &pic[i],
                        sizeof(pic[i]));
    if (rc) {
        fprintf(stderr, "xen-state-hash: domain %lu: cannot read its "
                "interrupt controllers: %s\n", domid, strerror(-rc));
        goto out;
    }
    rc = hvm_record(h, domid, HVM_SAVE_CODE(RTC), 0, &rtc, sizeof(rtc));
    if (rc) {
        fprintf(stderr, "xen-state-hash: domain %lu: cannot read its RTC: "
                "%s\n", domid, strerror(-rc));
        goto out;
    }
    rc = ram_hash_from(fm, domid, 0, mib << 8, &ram, &holes);
    if (rc)
        goto out;
    cpu.tsc = 0;
    regs = XXH3_64bits(&cpu, sizeof(cpu));
    printf("ram: %lu MiB, %lu holes, hash %016" PRIx64 "\n", mib, holes,
           ram);
    printf("vcpu: rip %#" PRIx64 " rflags %#" PRIx64 " rcx %#" PRIx64
           ", hash %016" PRIx64 "\n", cpu.rip, cpu.rflags, cpu.rcx, regs);
    if (argc == 4) {
        rc = ram_hash_from(fm, domid, gfn, 1, &page, &none);
        if (rc)
            goto out;
    }
    printf("pit:");
    for (unsigned int i = 0; i < 3; i += 2) {
        c = &pit.channels[i];
        printf("%s channel %u mode %u access %u read byte %u write byte %u "
               "latched %u status latched %u", i ? ";" : "", i, c->mode,
               c->rw_mode, c->read_state, c->write_state, c->count_latched,
               c->status_latched);
    }
    printf("\nirq: local APIC in service");
    for (unsigned int v = 0; v < 256; v++) {
        uint32_t isr;

        memcpy(&isr, &lapic.data[APIC_ISR + (v / 32) * 16], sizeof(isr));
        if (isr >> (v % 32) & 1)
            printf("%s%#x", in_service++ ? "," : " ", v);
    }
    printf("%s; PIC in service %#x, %#x\n", in_service ? "" : " none",
           pic[0].isr, pic[1].isr);
    printf("timers: RTC periodic flags %#x\n",
           rtc.cmos_data[RTC_REG_C] & (RTC_IRQF | RTC_PF));
    if (argc == 4 && none)
        printf("page: gfn %#lx, nothing there\n", gfn);
    else if (argc == 4)
        printf("page: gfn %#lx, hash %016" PRIx64 "\n", gfn, page);
out:
    if (fm)
        xenforeignmemory_close(fm);
    if (h)
        xencall_close(h);
    return rc ? 1 : 0;
}
