// SPDX-License-Identifier: GPL-2.0-only
/*
 * run.c - the run loops: the primary's, where host time and devices
 * drive the guest and every input is recorded where it enters, and the
 * secondary's, where the log alone drives it, one record at a time.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ftvm.h"

#define EFL_IF  (1u << 9)

static bool record_ok(struct ftvm *vm, struct ft_log_rec *r)
{
    return vm->mode != FTVM_RECORD || ftvm_ft_append(vm, r) == FT_OK;
}

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Halted with IF clear, a PC stops for good: only an NMI would wake it,
 * and ftvm has none to give (Xen takes such a vCPU down).
 */
static bool halted_for_good(struct ftvm *vm)
{
    return vm->halted && !(ftvm_reg(vm, UC_X86_REG_EFLAGS) & EFL_IF);
}

/* The primary (recording or not): host time and devices drive it. */
static enum step live_step(struct ftvm *vm, uint64_t insns,
                           uint64_t deadline)
{
    uint64_t due;
    int v;

    if (vm->devices_going_live) {
        vm->devices_going_live = false;
        ftvm_devices_go_live(vm);
    }
    if (!vm->end && halted_for_good(vm))
        ftvm_guest_end(vm, FTVM_END_HLT_CLI);
    if (vm->end)
        return STEP_DONE;
    if (insns && vm->count >= insns)
        return STEP_DONE;
    if (deadline && now_ns() >= deadline)
        return STEP_DONE;
    if (__atomic_load_n(&vm->stop_requested, __ATOMIC_RELAXED))
        return STEP_DONE;

    ftvm_gate_pump(vm);

    /* Cleared before ticks_due is read, so that no tick is missed. */
    __atomic_exchange_n(&vm->kick, 0, __ATOMIC_SEQ_CST);
    due = __atomic_load_n(&vm->ticks_due, __ATOMIC_ACQUIRE);
    if (due != vm->ticks_done) {
        vm->ticks_done = due;       /* edge-triggered: ticks coalesce */
        pic_raise(vm, 0);
    }

    /* A state hash now and then: divergence shows within a period. */
    if (vm->mode == FTVM_RECORD && vm->sync_ns && now_ns() >= vm->next_sync &&
        vm->count != vm->sync_count) {
        struct ft_log_rec r = { .kind = FT_K_SYNC, .pt = ftvm_point(vm) };

        r.u.sync.hash = ftvm_state_hash(vm);
        if (ftvm_devstate_record(vm) || !record_ok(vm, &r))
            return STEP_FAIL;
        vm->next_sync = now_ns() + vm->sync_ns;
        vm->sync_count = vm->count;
    }

    /* Device input enters memory where its interrupt can be taken. */
    if ((ftvm_reg(vm, UC_X86_REG_EFLAGS) & EFL_IF) && !ftvm_in_shadow(vm) &&
        ftvm_devices_complete(vm))
        return STEP_FAIL;

    vm->watch_if = false;
    v = ftvm_irq_pending(vm);
    if (v >= 0) {
        struct ft_log_rec r = { .pt = ftvm_point(vm) };

        if (ftvm_can_take(vm)) {
            r.kind = FT_K_EXTINT;
            r.u.intr.vector = (uint8_t)v;
            r.u.intr.src = (uint8_t)ftvm_irq_src(vm, (uint8_t)v);
            if (!record_ok(vm, &r))
                return STEP_FAIL;
            ftvm_irq_ack(vm, (uint8_t)v);
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
                      ftvm_reg(vm, UC_X86_REG_EIP));
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

    if (gpa >= FT_DMA_DEVICE)
        return ftvm_devstate_put(vm, gpa - FT_DMA_DEVICE, data, len);
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
    const char *where = NULL;
    int rc = ft_replay_async(&vm->rp, &pt, &ev, dma_write, vm);

    if (rc) {
        ftvm_ft_diverged(vm, rc);
        return STEP_FAIL;
    }
    if (vm->end && ev.kind != FT_K_PROGRESS && ev.kind != FT_K_SYNC)
        where = vm->end == FTVM_END_POWEROFF ? "has powered off"
                : "has halted with interrupts disabled, for good";
    else if (ev.kind == FT_K_EXTINT && !ftvm_can_take(vm))
        where = "cannot take an interrupt";
    else if (ev.kind == FT_K_EXTINT &&
             ev.u.intr.src != ftvm_irq_src(vm, ev.u.intr.vector))
        where = "has that vector from the other interrupt controller";
    else if (ev.kind == FT_K_HLT_WAKE && !vm->halted)
        where = "is not halted";
    if (where) {
        ftvm_fail(vm, FTVM_EXIT_DIVERGED, "divergence at record %llu: the "
                  "log has %s at count=%llu, where the %s %s",
                  (unsigned long long)ft_replay_seq(&vm->rp),
                  ft_log_kind_name(ev.kind), (unsigned long long)pt.count,
                  vm->end ? "guest" : "vCPU", where);
        return STEP_FAIL;
    }
    switch (ev.kind) {
    case FT_K_EXTINT:
        ftvm_irq_ack(vm, ev.u.intr.vector);
        return ftvm_deliver(vm, ev.u.intr.vector) ? STEP_FAIL : STEP_GO;
    case FT_K_NMI:
        return ftvm_deliver(vm, 2) ? STEP_FAIL : STEP_GO;
    case FT_K_EVENT:
        return ftvm_deliver(vm, ev.u.event.vector) ? STEP_FAIL : STEP_GO;
    case FT_K_HLT_WAKE:
        vm->halted = false;
        return STEP_GO;
    case FT_K_DMA:
        if (ev.u.dma.gpa == FT_DMA_DEVICE &&
            ftvm_devstate_check(vm, ev.u.dma.len))
            return STEP_FAIL;
        return STEP_GO;
    case FT_K_SYNC:
        rc = ft_replay_check_hash(&vm->rp, &ev, ftvm_state_hash(vm));
        /* A device field that drifted on this side is named. */
        if (rc && ftvm_devstate_compare(vm))
            return STEP_FAIL;
        if (rc) {
            ftvm_ft_diverged(vm, rc);
            return STEP_FAIL;
        }
        return STEP_GO;
    default:                        /* PROGRESS */
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
    /* Only the log drives a replay: a kick (control request) just
     * stops the engine so that the serve loop can look. */
    __atomic_exchange_n(&vm->kick, 0, __ATOMIC_SEQ_CST);
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

    if (!vm->end && halted_for_good(vm))
        ftvm_guest_end(vm, FTVM_END_HLT_CLI);
    if (vm->end || vm->halted || vm->count > next->pt.count) {
        /* A halted vCPU can only wait for an event at this very point,
         * and a guest that has ended runs no further either. */
        pt = ftvm_point(vm);
        rc = vm->end || vm->halted ? ft_replay_halted(&vm->rp, &pt)
                                   : ft_replay_overrun(&vm->rp, &pt);
        if (rc) {
            ftvm_ft_diverged(vm, rc);
            return STEP_FAIL;
        }
    }
    if (ft_log_rec_is_sync(next)) {
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

/* Wait for a control request (paused, or stopped for good). */
static void wait_ctl(struct ftvm *vm)
{
    struct pollfd p = { .fd = vm->ctl_fd, .events = POLLIN };

    if (poll(&p, 1, 1000) < 0 && errno != EINTR)
        ftvm_fail(vm, FTVM_EXIT_ERROR, "control: %s", strerror(errno));
}

/*
 * Throttled: after running for 'ran' ns, rest so that running takes
 * speed_pct percent of the time (at most 50 ms at once; a control
 * request ends the rest).
 */
static void rest(struct ftvm *vm, uint64_t ran)
{
    struct pollfd p = { .fd = vm->ctl_fd, .events = POLLIN };
    uint64_t ms, t0;

    /* Short runs add up: the rest owed is kept until it is worth it. */
    vm->rest_owed += ran * (100 - vm->speed_pct) / vm->speed_pct;
    ms = vm->rest_owed / 1000000;
    if (!ms)
        return;
    t0 = now_ns();
    poll(&p, 1, ms > 50 ? 50 : (int)ms);
    ms = now_ns() - t0;
    vm->rest_owed = vm->rest_owed > ms ? vm->rest_owed - ms : 0;
}

/* Replay has reached what ftd has given it so far. */
static void at_horizon(struct ftvm *vm)
{
    int rc;

    if ((ft_ring_flags(&vm->ring) & FT_RING_F_GOLIVE) &&
        ft_replay_drained(&vm->rp)) {
        ftvm_go_live(vm);
        return;
    }
    if (ft_ring_wait(&vm->ring) == FT_EAGAIN) {
        rc = ftvm_wait_ftd(vm, 1000);
        if (rc < 0)
            ftvm_fail(vm, FTVM_EXIT_ERROR, "waiting for ftd: %s",
                      strerror(-rc));
    }
}

/*
 * A signal to a recording primary: an end its client did not ask for,
 * so it ends as a primary that fails does.  What the gate holds was
 * never acknowledged and is not sent, and the log gets no end: the
 * secondary takes over (doing again the disk requests and sending again
 * the frames thrown away here) rather than stopping as after an orderly
 * end.  Nothing waits on a client that may be gone.
 */
static void end_unasked(struct ftvm *vm)
{
    size_t bytes, n = ftvm_gate_discard(vm, &bytes);

    if (n)
        fprintf(stderr, "ftvm: stopped by a signal while recording: %zu "
                "held outputs (%zu bytes) thrown away, never sent\n", n,
                bytes);
}

/*
 * Attached, the guest has ended by itself: a recording's log ends here in
 * order, as STOP would end it, so that the secondary replays to the same
 * end; what the gate holds leaves as ftd acknowledges it.  Then ftvm
 * waits for ftd: the state is ENDED, with the end's exit status, until
 * STOP, DISABLE or HALT.
 */
static void guest_gone(struct ftvm *vm)
{
    int rc;

    if (vm->mode == FTVM_RECORD && !vm->log_closed) {
        vm->log_closed = true;
        if (ftvm_end_log(vm))
            return;             /* failed: the status says why */
    }
    ftvm_gate_pump(vm);
    rc = ftvm_wait_ftd(vm, 1000);
    if (rc < 0)
        ftvm_fail(vm, FTVM_EXIT_ERROR, "waiting for ftd: %s", strerror(-rc));
}

/*
 * `ftvm serve`: run the guest under the control socket until STOP or
 * HALT (or a signal).  The vCPU serves control requests between
 * instructions; the primary's host timer runs throughout (a replay
 * ignores it).
 */
int ftvm_serve(struct ftvm *vm)
{
    int rc = ftvm_timer_start(vm);

    if (rc) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "cannot start the timer: %s",
                  strerror(-rc));
        return vm->status;
    }
    vm->next_sync = now_ns() + vm->sync_ns;
    while (!vm->stop) {
        bool failed = vm->status != 0;
        enum step s;

        ftvm_ctl_service(vm, true);
        if (vm->stop)
            break;
        if (__atomic_load_n(&vm->stop_requested, __ATOMIC_RELAXED)) {
            if (vm->mode == FTVM_RECORD)
                end_unasked(vm);
            break;
        }
        if (vm->paused || vm->status) {
            wait_ctl(vm);
            continue;
        }
        if (vm->end && vm->mode != FTVM_REPLAY) {
            guest_gone(vm);
            continue;
        }
        if (vm->mode == FTVM_REPLAY) {
            s = replay_step(vm);
            if (ft_replay_take_notify(&vm->rp))
                ftvm_notify(vm);
            if (s == STEP_DONE && !vm->status)
                at_horizon(vm);
        } else {
            uint64_t t0 = now_ns();

            live_step(vm, 0, 0);
            if (vm->speed_pct < 100)
                rest(vm, now_ns() - t0);
        }
        if (vm->status && !failed && vm->attached)
            ftvm_notify(vm);        /* ftd reads why in the status */
    }
    ftvm_timer_stop(vm);
    return vm->status;
}
