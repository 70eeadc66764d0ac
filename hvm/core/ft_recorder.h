/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ft_recorder.h - what a hypervisor hook calls on the primary to log a
 * non-deterministic input.
 *
 * One call per kind of input.  Each appends one record at the execution
 * point 'pt' (which must not be before the previous record's) and
 * returns
 *   FT_OK      the record is in the ring; ft_recorder_seq() is its number;
 *   FT_EFULL   the ring is full and nothing was written: pause the vCPU
 *              (before it consumes the input), and call again when the
 *              consumer notifies;
 *   FT_EINVAL  the arguments cannot be recorded (a size of 3, a value
 *              wider than its size, a point going backwards, ...);
 *   FT_EPROTO  the consumer's index in the shared header is impossible.
 * The recorder never drops or overwrites a record.
 *
 * Not exported to dom0: the recorder runs in the hypervisor only.
 */
#ifndef FT_RECORDER_H
#define FT_RECORDER_H

#include "ft_log.h"
#include "ft_ring.h"

struct ft_recorder {
    struct ft_ring *ring;
    struct ft_codec codec;
};

/*
 * Start a log in 'ring' (initialised by ft_ring_init, role RECORD): its
 * first record is record 1, so FT_EINVAL if the ring has records already.
 * When the consumer may sleep on the ring (ft_ring_wait), the caller
 * notifies it after a record once ft_ring_consumer_waiting() says so.
 */
int ft_recorder_init(struct ft_recorder *rec, struct ft_ring *ring);

/* Sequence number of the last record appended (0: none yet). */
uint64_t ft_recorder_seq(const struct ft_recorder *rec);

/*
 * src: FT_INTR_*, the controller that gave it (FT_EINVAL otherwise);
 * timer: a tick of one of the hypervisor's own timers.
 */
int ft_record_extint(struct ft_recorder *rec, const struct ft_point *pt,
                     uint8_t vector, unsigned int src, bool timer);
int ft_record_nmi(struct ft_recorder *rec, const struct ft_point *pt);
/* type: Xen's X86_EVENTTYPE_*; errcode/cr2 are recorded when present. */
int ft_record_event(struct ft_recorder *rec, const struct ft_point *pt,
                    uint8_t type, uint8_t vector, uint8_t insn_len,
                    const uint32_t *errcode, const uint64_t *cr2);
int ft_record_tsc(struct ft_recorder *rec, const struct ft_point *pt,
                  uint64_t value);
int ft_record_msr(struct ft_recorder *rec, const struct ft_point *pt,
                  uint32_t index, uint64_t value);
/* size: 1, 2 or 4. */
int ft_record_pio(struct ft_recorder *rec, const struct ft_point *pt,
                  uint16_t port, uint8_t size, uint32_t value);
/* size: 1, 2, 4 or 8; gpa below 2^62. */
int ft_record_mmio(struct ft_recorder *rec, const struct ft_point *pt,
                   uint64_t gpa, uint8_t size, uint64_t value);
/* size: 2, 4 or 8 (operand size); seed: RDSEED rather than RDRAND. */
int ft_record_rand(struct ft_recorder *rec, const struct ft_point *pt,
                   bool seed, uint8_t size, uint64_t value);
/* 1 to FT_DMA_MAX bytes written into guest memory at 'gpa'. */
int ft_record_dma(struct ft_recorder *rec, const struct ft_point *pt,
                  uint64_t gpa, const void *data, uint32_t len);
/* The same, written by the string read of the instruction at 'pt'. */
int ft_record_string(struct ft_recorder *rec, const struct ft_point *pt,
                     uint64_t gpa, const void *data, uint32_t len);
int ft_record_hlt_wake(struct ft_recorder *rec, const struct ft_point *pt);
int ft_record_progress(struct ft_recorder *rec, const struct ft_point *pt);
int ft_record_sync(struct ft_recorder *rec, const struct ft_point *pt,
                   uint64_t hash);
int ft_record_output(struct ft_recorder *rec, const struct ft_point *pt,
                     uint64_t id);

/* Any record (what the per-kind calls build); DMA data in r->u.dma.data. */
int ft_record(struct ft_recorder *rec, const struct ft_log_rec *r);

#endif /* FT_RECORDER_H */
