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
 * Held outputs go out when acknowledged, or all at once when Xen stops
 * recording (ftd ended the log in order, or won the arbiter's claim for
 * this copy).  A guest halted by ftd stays recorded and paused: what it
 * holds never goes, and is dropped with ftdm.  Fail-closed: while ftd is
 * gone, nothing acknowledges, and the guest stalls once its queues fill.
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
 * An output produced now: emitted at once if the guest is not recorded,
 * else held.  0, or -errno with 'err': -ENOBUFS (more held than the
 * limits: the caller drops a frame, or waits), another from Xen.
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
