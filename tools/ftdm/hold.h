/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hold.h - the output rule in ftdm: while Xen records the guest, a frame
 * it sends or a disk request it makes leaves only once the secondary
 * holds the log up to the record at which it was produced
 * (xlft_gate.h); when the guest is not recorded, at once.
 *
 * Xen itself says which: each output asks the FT domctl's status, whose
 * sequence number then (the last record produced, the guest's vCPU
 * waiting on ftdm) tags the output.  That is conservative: every record
 * that could have caused it is at or below the tag.  How far the
 * secondary has acknowledged is read from the record ring, mapped here
 * too, when ftd wakes ftdm (xlft_ack_wake.h) and on a timer while
 * anything is held, in case a wake-up was lost.
 *
 * Held outputs go out when acknowledged, in the order they were made.
 * When ftd ends a log in order (its secondary halts, or this copy won
 * the arbiter's claim), it acknowledges all of it (ack_seq ~0) before
 * it stops recording: what that log held goes out, and later outputs
 * pass at once until a new log begins.  A log that ends any other way
 * (a guest ftd halted, which stays recorded and paused; recording
 * stopped behind ftd's back; a new log in place of one never ended,
 * which Xen's log id shows)
 * keeps what it held, and every output after it, for good: its
 * secondary may be live.  Fail-closed: while ftd is gone, nothing is
 * acknowledged, and the guest stalls once its queues fill.
 */
#ifndef FTDM_HOLD_H
#define FTDM_HOLD_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "xlft_gate.h"

struct ftdm_hold;

/*
 * 'emit' sends one output (xlft_gate_emit_fn); 'wake_dir' is where ftd's
 * wake-ups come (XLFT_ACK_WAKE_DIR).  0, or -errno with 'err'.
 */
int ftdm_hold_open(struct ftdm_hold **h, uint32_t domid,
                   struct event_base *base, const char *wake_dir,
                   xlft_gate_emit_fn emit, void *opaque, char *err,
                   size_t errlen);
void ftdm_hold_close(struct ftdm_hold *h);

/*
 * An output produced now: emitted at once if the guest is not recorded
 * and nothing older waits, else held.  0; -EAGAIN: emitted at once but
 * 'emit' refused it (it is gone); another -errno, not held: -ENOBUFS
 * (more held than the limits), -ENOMEM, or Xen's answer.  'err' says
 * which, naming the domain.
 */
int ftdm_hold_output(struct ftdm_hold *h, uint32_t kind, uint64_t id,
                     const void *data, size_t len, char *err,
                     size_t errlen);

struct ftdm_hold_stats {
    uint64_t held;              /* outputs waiting now */
    uint64_t held_max;          /* most waiting at once */
    uint64_t passed;            /* emitted at once: guest not recorded */
    uint64_t released;          /* emitted once acknowledged */
    uint64_t acked;             /* the last acknowledgement read */
};
void ftdm_hold_stats(const struct ftdm_hold *h, struct ftdm_hold_stats *s);

#endif /* FTDM_HOLD_H */
