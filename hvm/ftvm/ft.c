// SPDX-License-Identifier: GPL-2.0-only
/*
 * ft.c - the recorder and replayer of a standalone ftvm, and the stored
 * log behind them.  ftvm plays both sides of the ring here: the
 * hypervisor side (recorder or replayer) and the dom0 side that moves
 * records between the ring and a log file (ftd does that over the
 * network instead).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ftvm.h"

#define RING_DATA FT_RING_DEFAULT_DATA

static int rings(struct ftvm *vm, uint32_t role)
{
    uint32_t size = FT_RING_HDR_SIZE + RING_DATA;
    int rc;

    vm->ring_mem = calloc(1, size);
    if (!vm->ring_mem)
        return -ENOMEM;
    rc = ft_ring_init(&vm->ring, vm->ring_mem, size, role);
    if (!rc)
        rc = ft_ring_set_kind(&vm->ring, FTVM_COUNTER, FT_CPU_FTVM);
    if (!rc)
        rc = ft_ring_attach(&vm->peer, vm->ring_mem, size, role);
    return rc ? -EINVAL : 0;
}

int ftvm_ft_record(struct ftvm *vm, const char *log)
{
    int rc = rings(vm, FT_RING_RECORD);

    if (rc || ft_recorder_init(&vm->rec, &vm->ring)) {
        snprintf(vm->why, sizeof(vm->why), "cannot set up the record ring");
        return FTVM_EXIT_ERROR;
    }
    if (xlft_logw_open(&vm->logw, log, FTVM_COUNTER, FT_CPU_FTVM, vm->why,
                       sizeof(vm->why)))
        return FTVM_EXIT_ERROR;
    vm->mode = FTVM_RECORD;
    ftvm_devstate_reset(vm);
    return 0;
}

int ftvm_ft_replay(struct ftvm *vm, const char *log)
{
    int rc = rings(vm, FT_RING_REPLAY);

    if (rc || ft_replay_init(&vm->rp, &vm->ring)) {
        snprintf(vm->why, sizeof(vm->why), "cannot set up the replay ring");
        return FTVM_EXIT_ERROR;
    }
    rc = xlft_logr_open(&vm->logr, log, vm->why, sizeof(vm->why));
    if (!rc)
        rc = xlft_logr_expect(vm->logr, FTVM_COUNTER, FT_CPU_FTVM, vm->why,
                              sizeof(vm->why));
    if (rc)
        return rc == -EBADMSG || rc == -EPROTONOSUPPORT ? FTVM_EXIT_BADLOG
                                                        : FTVM_EXIT_ERROR;
    vm->mode = FTVM_REPLAY;
    ftvm_devstate_reset(vm);
    return 0;
}

/* Move what the recorder has written into the log file. */
static int drain(struct ftvm *vm)
{
    static uint8_t buf[FT_LOG_REC_MAX + 65536];

    for (;;) {
        uint32_t nrec;
        bool notify;
        int n = ft_ring_read_records(&vm->peer, buf, sizeof(buf), &nrec,
                                     &notify);

        if (n < 0) {
            ftvm_fail(vm, FTVM_EXIT_ERROR, "record ring: %s",
                      ft_strerror(n));
            return n;
        }
        if (n == 0)
            return 0;
        if (xlft_logw_append(vm->logw, buf, (size_t)n, vm->why,
                             sizeof(vm->why))) {
            vm->status = FTVM_EXIT_ERROR;
            uc_emu_stop(vm->uc);
            return FT_EINVAL;
        }
    }
}

/*
 * Attached: the ring is full, ftd must drain it.  The vCPU waits inside
 * its instruction, as Xen's vCPU waits paused, never dropping a record.
 */
static int append_stalled(struct ftvm *vm, const struct ft_log_rec *r)
{
    int rc = FT_EFULL;

    while (rc == FT_EFULL && !vm->stop &&
           !__atomic_load_n(&vm->stop_requested, __ATOMIC_RELAXED)) {
        ftvm_notify(vm);
        rc = ftvm_wait_ftd(vm, 1000);
        if (rc < 0) {
            snprintf(vm->why, sizeof(vm->why), "waiting for ftd: %s",
                     strerror(-rc));
            return FT_EINVAL;
        }
        ftvm_ctl_service(vm, false);
        rc = ft_record(&vm->rec, r);
    }
    return rc;
}

int ftvm_ft_append(struct ftvm *vm, const struct ft_log_rec *r)
{
    int rc = ft_record(&vm->rec, r);

    if (vm->attached) {
        if (rc == FT_EFULL)
            rc = append_stalled(vm, r);
        if (rc == FT_OK && ft_ring_consumer_waiting(&vm->ring))
            ftvm_notify(vm);
    } else if (rc == FT_EFULL && !drain(vm)) {
        /* The ring is the hypervisor's: full means dom0 must drain it. */
        rc = ft_record(&vm->rec, r);
    }
    if (rc)
        ftvm_fail(vm, FTVM_EXIT_ERROR, "cannot record a %s at instruction "
                  "%" PRIu64 ": %s", ft_log_kind_name(r->kind),
                  r->pt.count, ft_strerror(rc));
    return rc;
}

/*
 * Move whole records from the log file into the replay ring, as many as
 * fit.  1 if some moved, 0 if the log has ended, or the exit status.
 */
static int feed(struct ftvm *vm)
{
    int space = ft_ring_space(&vm->peer);
    uint32_t nrec, want;
    int n;

    if (space < 0) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "replay ring: %s", ft_strerror(space));
        return -1;
    }
    if (vm->feed_off == vm->feed_len) {
        uint64_t first;
        int rc;

        if (vm->log_ended)
            return 0;
        rc = xlft_logr_next(vm->logr, &vm->feed, &vm->feed_len, &nrec,
                            &first, vm->why, sizeof(vm->why));
        if (rc < 0) {
            vm->status = rc == -EIO || rc == -ENOMEM ? FTVM_EXIT_ERROR
                                                     : FTVM_EXIT_BADLOG;
            return -1;
        }
        vm->feed_off = 0;
        if (rc == 0) {
            vm->feed_len = 0;
            vm->log_ended = true;
            return 0;
        }
    }
    want = (uint32_t)(vm->feed_len - vm->feed_off);
    if (want > (uint32_t)space)
        want = (uint32_t)space;
    n = ft_log_scan(vm->feed + vm->feed_off, want, &nrec);
    if (n <= 0)
        return 1;                   /* no room yet: replay frees some */
    ft_ring_write(&vm->peer, 0, vm->feed + vm->feed_off, (uint32_t)n);
    ft_ring_publish(&vm->peer, (uint32_t)n, nrec);
    vm->feed_off += (size_t)n;
    return 1;
}

void ftvm_ft_diverged(struct ftvm *vm, int rc)
{
    char text[400];

    ft_diag_format(ft_replay_diag(&vm->rp), text, sizeof(text));
    ftvm_fail(vm, rc == FT_EDIVERGE ? FTVM_EXIT_DIVERGED : FTVM_EXIT_BADLOG,
              "%s", text);
}

int ftvm_ft_next(struct ftvm *vm, const struct ft_log_rec **next)
{
    for (;;) {
        int rc = ft_replay_next(&vm->rp, next);

        if (rc != FT_EAGAIN) {
            if (rc)
                ftvm_ft_diverged(vm, rc);
            return rc;
        }
        if (vm->attached)
            return FT_EAGAIN;       /* the serve loop waits for ftd */
        rc = feed(vm);
        if (rc < 0)
            return FT_EINVAL;
        if (rc == 0)
            return FT_EAGAIN;
    }
}

/*
 * Attached: the vCPU needs an input the ring does not hold yet.  It
 * waits for ftd inside the instruction; if told to go live meanwhile,
 * once the ring is drained it takes the input from the host instead.
 * FT_EAGAIN to look at the ring again, FT_OK when live, or an error.
 */
static int sync_wait(struct ftvm *vm)
{
    int rc;

    if (vm->stop || __atomic_load_n(&vm->stop_requested, __ATOMIC_RELAXED)) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "stopped while waiting for record "
                  "%llu", (unsigned long long)ft_replay_seq(&vm->rp) + 1);
        return FT_EINVAL;
    }
    if ((ft_ring_flags(&vm->ring) & FT_RING_F_GOLIVE) &&
        ft_replay_drained(&vm->rp)) {
        ftvm_go_live(vm);
        return FT_OK;
    }
    if (ft_replay_take_notify(&vm->rp))
        ftvm_notify(vm);
    if (ft_ring_wait(&vm->ring) == FT_EAGAIN) {
        rc = ftvm_wait_ftd(vm, 1000);
        if (rc < 0) {
            ftvm_fail(vm, FTVM_EXIT_ERROR, "waiting for ftd: %s",
                      strerror(-rc));
            return FT_EINVAL;
        }
    }
    ftvm_ctl_service(vm, false);
    return FT_EAGAIN;
}

int ftvm_ft_sync(struct ftvm *vm, struct ft_log_rec *io)
{
    for (;;) {
        int rc = ft_replay_sync(&vm->rp, &io->pt, io);

        if (rc != FT_EAGAIN) {
            if (rc)
                ftvm_ft_diverged(vm, rc);
            return rc;
        }
        if (vm->attached) {
            rc = sync_wait(vm);
            if (rc != FT_EAGAIN)
                return rc;
            continue;
        }
        rc = feed(vm);
        if (rc < 0) {
            uc_emu_stop(vm->uc);
            return FT_EINVAL;
        }
        if (rc == 0) {
            ftvm_fail(vm, FTVM_EXIT_DIVERGED, "the log ends after record "
                      "%" PRIu64 ", but the vCPU asks for a %s at "
                      "count=%" PRIu64 " rip=0x%" PRIx64,
                      ft_replay_seq(&vm->rp), ft_log_kind_name(io->kind),
                      io->pt.count, io->pt.rip);
            return FT_EDIVERGE;
        }
    }
}

/*
 * The end of a run.  The primary closes its log with a progress mark and
 * the state hash at its last point, so the secondary stops exactly there
 * and proves it got there in the same state.
 */
int ftvm_ft_finish(struct ftvm *vm)
{
    if (vm->mode == FTVM_RECORD) {
        struct ft_log_rec r = { .kind = FT_K_PROGRESS,
                                .pt = ftvm_point(vm) };

        if (!vm->status && !ftvm_ft_append(vm, &r)) {
            r.kind = FT_K_SYNC;
            r.u.sync.hash = ftvm_state_hash(vm);
            ftvm_ft_append(vm, &r);
        }
        /* A run that failed keeps its records but no end marker: its
         * log reads as cut short, never as a finished one. */
        if (drain(vm) || vm->status) {
            xlft_logw_abandon(vm->logw);
        } else if (xlft_logw_close(vm->logw, vm->why, sizeof(vm->why))) {
            vm->status = FTVM_EXIT_ERROR;
        }
        vm->logw = NULL;
    } else if (vm->mode == FTVM_REPLAY) {
        if (!vm->status && ft_replay_seq(&vm->rp) != vm->rp.sync_seq)
            ftvm_fail(vm, FTVM_EXIT_BADLOG, "the log ends at record %llu, "
                      "not with the recording's final state hash",
                      (unsigned long long)ft_replay_seq(&vm->rp));
        xlft_logr_close(vm->logr);
        vm->logr = NULL;
    }
    return vm->status;
}
