/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ft_replayer.h - what the hypervisor calls on the secondary to replay
 * a log from the replay ring.
 *
 * The vCPU runs toward the point of the next record (ft_replay_next) and
 * never past it:
 *  - if that record is asynchronous (an interrupt, NMI, event, the
 *    device model's DMA, halt wake-up, progress or sync record), the
 *    vCPU stops exactly at its point and calls ft_replay_async, which
 *    checks the point and hands back the event to inject or apply;
 *  - if it is synchronous (TSC, MSR, port or MMIO read, RDRAND/RDSEED,
 *    output, a string read's DMA: ft_log_rec_is_sync), the vCPU runs
 *    until it executes the instruction that asks for it and calls
 *    ft_replay_sync (ft_replay_string), which checks kind, point and
 *    parameters and answers with the recorded value;
 *  - if the vCPU halts, it calls ft_replay_halted;
 *  - a vCPU that may have gone past the next record's count without
 *    asking for it (one that ran to count + 1 for a synchronous record,
 *    say) calls ft_replay_overrun, which calls that a divergence.
 * With no record available (the horizon) these return FT_EAGAIN: pause
 * the vCPU and call again when the producer notifies (ft_ring_wait).
 *
 * Any disagreement between the log and the vCPU is a divergence:
 * FT_EDIVERGE, with a diagnosis (ft_replay_diag) naming the record's
 * sequence number, what the log says and what the vCPU did, also copied
 * into the ring header with FT_RING_F_DIVERGED.  A malformed record is
 * FT_EBADMSG with FT_RING_F_BADLOG.  Both are final: every later call
 * returns the same error.
 *
 * Not exported to dom0: the replayer runs in the hypervisor only.
 */
#ifndef FT_REPLAYER_H
#define FT_REPLAYER_H

#include "ft_log.h"
#include "ft_ring.h"

/*
 * Writes DMA data into guest memory; may be called twice per record (the
 * data can straddle the end of the ring).  Returns 0, or non-zero if the
 * data cannot be written there: replay then diverges.
 */
typedef int (*ft_dma_fn)(void *opaque, uint64_t gpa, const uint8_t *data,
                         uint32_t len);

struct ft_replayer {
    struct ft_ring *ring;
    struct ft_codec codec;
    struct ft_log_rec next;      /* valid if have_next */
    bool have_next;
    uint64_t seq;                /* last record consumed */
    uint64_t sync_seq;           /* last sync record consumed */
    int error;                   /* final error, 0 while replaying */
    bool notify;                 /* the producer waits for space */
    struct ft_diag diag;
};

/*
 * Replay the log in 'ring' (initialised by ft_ring_init, role REPLAY),
 * from its first record: FT_EINVAL if records were consumed already.
 */
int ft_replay_init(struct ft_replayer *rp, struct ft_ring *ring);

/*
 * The next record: where the vCPU must stop (or, for a synchronous
 * kind, the point at which it must ask).  FT_OK and *next set, or
 * FT_EAGAIN at the horizon, or the final error.
 */
int ft_replay_next(struct ft_replayer *rp, const struct ft_log_rec **next);

/*
 * The vCPU is at 'at', the point of the next (asynchronous) record.
 * Consumes it into *ev; for DMA, 'dma' writes the data first.  For a
 * sync record, the caller then compares its own state hash with
 * ft_replay_check_hash.
 */
int ft_replay_async(struct ft_replayer *rp, const struct ft_point *at,
                    struct ft_log_rec *ev, ft_dma_fn dma, void *opaque);

/*
 * The vCPU at 'at' executes an instruction that needs a recorded input.
 * 'io' says what it asks for: kind and the identifying parameters
 * (pio.port/size, mmio.gpa/size, msr.index, rand.seed/size, output.id).
 * On FT_OK the value is filled in (tsc.value, msr.value, ...).
 */
int ft_replay_sync(struct ft_replayer *rp, const struct ft_point *at,
                   struct ft_log_rec *io);

/*
 * The vCPU at 'at' executes a string read into RAM of up to 'reps' items
 * of 'size' bytes, the first at 'gpa', the next ones above it (below it
 * if 'down').  The primary logged the bytes it moved as one DMA record
 * of this instruction's (u.dma.insn) at this point.  That record must
 * hold whole items, at most 'reps', ending (starting, if 'down') at the
 * first item: then FT_OK, its bytes written with 'dma' and *done the
 * items they hold (at least one).  FT_EDIVERGE if the next record is
 * another, or its address or length does not fit.
 */
int ft_replay_string(struct ft_replayer *rp, const struct ft_point *at,
                     uint64_t gpa, uint32_t size, uint64_t reps, bool down,
                     ft_dma_fn dma, void *opaque, uint64_t *done);

/* How a vCPU is made to stop at the next record's point. */
enum ft_guard {
    FT_GUARD_NONE,   /* a synchronous input: the vCPU asks for it */
    FT_GUARD_COUNT,  /* run until the count reaches a target, then step */
    FT_GUARD_STEP,   /* step one instruction (or event delivery) at once */
};

/*
 * The vCPU at 'at' runs on toward the next record, whose point it has
 * not reached, or, having just taken an event at 'at', toward a record
 * at 'at' again (which it can only reach after the event's handler):
 * how to stop it there.  FT_GUARD_COUNT with *target, 'skid' counts
 * short of the record's, when it is further than that; FT_GUARD_STEP
 * when nearer; FT_GUARD_NONE for a synchronous record.  FT_EDIVERGE if
 * the vCPU is past the record already, FT_EAGAIN at the horizon.
 */
int ft_replay_guard(struct ft_replayer *rp, const struct ft_point *at,
                    uint64_t skid, enum ft_guard *guard, uint64_t *target);

/* Compare the vCPU's state hash with the sync record just consumed. */
int ft_replay_check_hash(struct ft_replayer *rp, const struct ft_log_rec *ev,
                         uint64_t actual);

/*
 * The vCPU halted at 'at'.  FT_OK if the next record is an asynchronous
 * event at exactly this point (deliver it with ft_replay_async),
 * FT_EAGAIN at the horizon, FT_EDIVERGE otherwise.  A PROGRESS record
 * at the HLT itself (one instruction back) is passed first.
 */
int ft_replay_halted(struct ft_replayer *rp, const struct ft_point *at);

/*
 * The vCPU, at 'at', has not asked for the next record: FT_EDIVERGE if
 * its count is already past the record's, FT_OK if not (or FT_EAGAIN at
 * the horizon, or the final error).
 */
int ft_replay_overrun(struct ft_replayer *rp, const struct ft_point *at);

/* Every record in the ring has been replayed. */
bool ft_replay_drained(struct ft_replayer *rp);

/*
 * True (once) if space was freed while the producer was stalled: the
 * caller must notify it.
 */
bool ft_replay_take_notify(struct ft_replayer *rp);

/* Sequence number of the last record replayed. */
uint64_t ft_replay_seq(const struct ft_replayer *rp);

/* Why replay stopped (reason FT_DIAG_NONE while it has not). */
const struct ft_diag *ft_replay_diag(const struct ft_replayer *rp);

/* A one-line description of 'd' for a log, NUL-terminated in 'buf'. */
void ft_diag_format(const struct ft_diag *d, char *buf, size_t len);

#endif /* FT_REPLAYER_H */
