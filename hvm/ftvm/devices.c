// SPDX-License-Identifier: GPL-2.0-only
/*
 * devices.c - the device core (hvm/devices) inside ftvm: the PCI bus
 * with virtio-net at 00:01.0 and virtio-blk at 00:02.0, the MMIO of the
 * PCI hole and of the local APIC, and the host interface the core asks
 * for.
 *
 * Both copies always have both functions, with or without a backend:
 * the guest must see the same machine on each.  What the core writes
 * into guest RAM at a guest access is written on both copies alike;
 * what it writes in a completion (a frame received, a disk request
 * done) is DMA input, recorded on the primary and taken from the log by
 * the copy, which runs no completions.  MSI messages, too, exist on the
 * primary only: the log holds each vector the CPU took.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftvm.h"

const uint8_t ftvm_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

static int ram_read(void *opaque, uint64_t gpa, void *buf, uint32_t len)
{
    struct ftvm *vm = opaque;

    if (gpa > vm->ram_size || len > vm->ram_size - gpa)
        return -EFAULT;
    memcpy(buf, vm->ram + gpa, len);
    return 0;
}

static bool ram_ok(void *opaque, uint64_t gpa, uint32_t len)
{
    struct ftvm *vm = opaque;

    return gpa <= vm->ram_size && len <= vm->ram_size - gpa;
}

static int ram_write(void *opaque, uint64_t gpa, const void *buf,
                     uint32_t len)
{
    struct ftvm *vm = opaque;

    if (!ram_ok(vm, gpa, len))
        return -EFAULT;
    if (!vm->in_completion) {
        memcpy(vm->ram + gpa, buf, len);
        uc_ctl_remove_cache(vm->uc, gpa, gpa + len);
        return 0;
    }
    for (uint32_t at = 0; at < len; at += FT_DMA_MAX) {
        uint32_t n = len - at < FT_DMA_MAX ? len - at : FT_DMA_MAX;

        if (ftvm_dma_in(vm, (uint32_t)gpa + at, (const uint8_t *)buf + at,
                        n))
            return -EIO;
    }
    return 0;
}

static void warn(void *opaque, const char *msg)
{
    (void)opaque;
    fprintf(stderr, "ftvm: guest driver: %s\n", msg);
}

static void msi(void *opaque, uint64_t addr, uint32_t data)
{
    struct ftvm *vm = opaque;
    uint8_t vector = (uint8_t)data;

    if (vm->mode == FTVM_REPLAY)
        return;                 /* the log says when the CPU took it */
    if ((addr & ~0xff00full) != MSI_ADDR || (data & 0x700) > 0x100) {
        warn(vm, "an MSI message not for this CPU's fixed delivery was "
             "dropped");
        return;
    }
    if (vector < 16 || ftvm_pic_vector(vm, vector)) {
        warn(vm, "an MSI vector below 16 or in a PIC's range was dropped");
        return;
    }
    lapic_raise(vm, vector);
    __atomic_store_n(&vm->kick, 1, __ATOMIC_RELAXED);
}

static void net_tx(void *opaque, const void *frame, uint32_t len)
{
    nic_transmit(opaque, frame, len);
}

static void blk_submit(void *opaque, const struct vio_blk_req *req)
{
    disk_submit(opaque, req);
}

/* A receive queue may have buffers now: the primary looks at once. */
static void notified(void *opaque, unsigned int slot, unsigned int queue)
{
    struct ftvm *vm = opaque;

    (void)slot;
    (void)queue;
    if (vm->mode != FTVM_REPLAY)
        __atomic_store_n(&vm->kick, 1, __ATOMIC_RELAXED);
}

int ftvm_devices_init(struct ftvm *vm)
{
    const struct vio_host host = {
        .opaque = vm, .ram_read = ram_read, .ram_write = ram_write,
        .ram_ok = ram_ok, .msi = msi, .net_tx = net_tx,
        .blk_submit = blk_submit, .notified = notified, .warn = warn,
    };

    lapic_reset(&vm->lapic);
    vm->pci = vio_bus_new(&host);
    if (!vm->pci || vio_add_net(vm->pci, PCI_SLOT_NET, NET_BAR, ftvm_mac) ||
        vio_add_blk(vm->pci, PCI_SLOT_BLK, BLK_BAR, 0, "xenft-disk")) {
        ftvm_devices_free(vm);
        return -ENOMEM;
    }
    return 0;
}

void ftvm_devices_free(struct ftvm *vm)
{
    vio_bus_free(vm->pci);
    vm->pci = NULL;
}

uint64_t ftvm_mmio_read(struct ftvm *vm, uint64_t gpa, unsigned int size)
{
    uint64_t v;

    if (gpa >= LAPIC_BASE && gpa < LAPIC_BASE + 4096)
        return size == 4 ? lapic_read(vm, (uint32_t)(gpa - LAPIC_BASE)) : 0;
    if (vio_mmio_read(vm->pci, gpa, size, &v))
        return v;
    return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;   /* nothing */
}

void ftvm_mmio_write(struct ftvm *vm, uint64_t gpa, unsigned int size,
                     uint64_t val)
{
    if (gpa >= LAPIC_BASE && gpa < LAPIC_BASE + 4096) {
        if (size == 4)
            lapic_write(vm, (uint32_t)(gpa - LAPIC_BASE), (uint32_t)val);
        return;
    }
    vio_mmio_write(vm->pci, gpa, size, val);
}

/*
 * The primary, at a point where an interrupt can be taken: what the
 * host's backends brought enters guest memory, recorded as DMA.
 */
int ftvm_devices_complete(struct ftvm *vm)
{
    int rc;

    vm->in_completion = true;
    rc = vm->disk.pending ? disk_complete(vm) : 0;
    if (!rc)
        rc = nic_receive(vm);
    vm->in_completion = false;
    return rc;
}

/*
 * A copy going live: the disk requests its guest saw taken but not
 * completed may never have reached the disk, so they are done again
 * (doing a write twice is harmless); every queue gets an interrupt, for
 * one the primary raised may not have been taken; the network hears
 * where the guest now is.
 */
void ftvm_devices_go_live(struct ftvm *vm)
{
    vio_go_live(vm->pci);
    nic_go_live(vm);
}
