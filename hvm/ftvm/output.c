// SPDX-License-Identifier: GPL-2.0-only
/*
 * output.c - what the guest sends to the outside world (console bytes,
 * transmitted frames, disk requests) leaves here.  A primary protected
 * by ftd holds each output in libxlft's gate until ftd says the
 * secondary holds the log record it was produced at (ack_seq in the
 * record ring's header): the output rule.  Otherwise outputs leave at
 * once.  Disk reads go through the gate too while writes wait in it, so
 * that a read never overtakes a write.  Only DISABLE and an orderly STOP
 * let out what the gate holds unacknowledged; after HALT nothing leaves.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "ftvm.h"
#include "xlft_trace.h"

static int emit(void *opaque, uint32_t kind, uint64_t id, const void *data,
                size_t len)
{
    struct ftvm *vm = opaque;

    (void)id;
    if (vm->mute)
        return 0;               /* halted: this copy must not be heard */
    switch (kind) {
    case FTVM_OUT_CONSOLE:
        if (vm->console)
            fwrite(data, 1, len, vm->console);
        break;
    case FTVM_OUT_NET:
        nic_send(vm, data, len);
        break;
    case FTVM_OUT_DISK:
        disk_perform(vm, data, len);
        break;
    default:
        break;
    }
    return 0;
}

int ftvm_gate_start(struct ftvm *vm)
{
    int rc = xlft_gate_new(&vm->gate, NULL, emit, vm);

    if (rc)
        snprintf(vm->why, sizeof(vm->why), "cannot set up the output gate: "
                 "%s", strerror(-rc));
    return rc;
}

/* Unprotected from here: what the gate holds leaves now. */
void ftvm_gate_end(struct ftvm *vm)
{
    if (!vm->gate)
        return;
    xlft_gate_open(vm->gate);
    xlft_gate_free(vm->gate);
    vm->gate = NULL;
    vm->release_at = UINT64_MAX;
}

/*
 * This copy must never be heard again (HALT, a signal): what the gate
 * holds is thrown away, and whatever comes later goes nowhere.  The
 * outputs thrown away, and their bytes in 'bytes'.
 */
size_t ftvm_gate_discard(struct ftvm *vm, size_t *bytes)
{
    size_t n = vm->gate ? xlft_gate_held(vm->gate) : 0;

    *bytes = vm->gate ? xlft_gate_held_bytes(vm->gate) : 0;
    vm->mute = true;
    xlft_gate_free(vm->gate);
    vm->gate = NULL;
    vm->release_at = UINT64_MAX;
    return n;
}

/* Let out what the secondary now covers. */
void ftvm_gate_pump(struct ftvm *vm)
{
    uint64_t ack;

    if (!vm->gate)
        return;
    ack = ft_ring_ack(&vm->ring);
    if (ack <= xlft_gate_acked(vm->gate))
        return;
    if (ack > ft_recorder_seq(&vm->rec)) {
        /* A broken ftd: believing it could let out an output that no
         * secondary can explain. */
        ftvm_fail(vm, FTVM_EXIT_ERROR, "ftd acknowledged record %" PRIu64
                  ", only %" PRIu64 " were recorded", ack,
                  ft_recorder_seq(&vm->rec));
        return;
    }
    xlft_gate_release(vm->gate, ack);
    xlft_trace(XLFT_HOP_RELEASED, ack);
    vm->release_at = xlft_gate_next_seq(vm->gate);
}

/*
 * The gate is full: the vCPU waits inside its instruction for ftd's
 * acknowledgements, as it waits for a full record ring.
 */
static int hold_stalled(struct ftvm *vm, uint64_t seq, uint32_t kind,
                        uint64_t id, const void *data, size_t len)
{
    int rc = -ENOBUFS;

    while (rc == -ENOBUFS && !vm->stop && !vm->status &&
           !__atomic_load_n(&vm->stop_requested, __ATOMIC_RELAXED)) {
        rc = ftvm_wait_ftd(vm, 1000);
        if (rc < 0)
            break;
        ftvm_gate_pump(vm);
        ftvm_ctl_service(vm, false);
        /* A STOP or HALT served here took the gate away. */
        rc = vm->gate ? xlft_gate_hold(vm->gate, seq, kind, id, data, len)
                      : emit(vm, kind, id, data, len);
    }
    return rc;
}

void ftvm_output(struct ftvm *vm, enum ftvm_out kind, uint64_t id,
                 const void *data, size_t len)
{
    uint64_t seq;
    int rc;

    if (!vm->gate) {
        emit(vm, kind, id, data, len);
        return;
    }
    /* Tagged with the last record: the output record it came with, or
     * for a disk read, whatever was logged before it. */
    seq = ft_recorder_seq(&vm->rec);
    rc = xlft_gate_hold(vm->gate, seq, kind, id, data, len);
    if (rc == -ENOBUFS)
        rc = hold_stalled(vm, seq, kind, id, data, len);
    if (!rc) {
        xlft_trace(XLFT_HOP_HELD, seq);
        vm->release_at = xlft_gate_next_seq(vm->gate);
    }
    if (rc && !vm->status)
        ftvm_fail(vm, FTVM_EXIT_ERROR, "output %" PRIu64 " at record %"
                  PRIu64 " cannot be held: %s", id, seq, strerror(-rc));
}
