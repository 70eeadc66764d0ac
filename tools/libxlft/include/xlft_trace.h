/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_trace.h - when each hop of an output's way happened, for `make
 * bench` (tests/bench/hops.sh): held by the guest's gate, read from
 * the ring by ftd, sent in a LOG frame, received and acknowledged by
 * the secondary, the ACK back, the output released.
 *
 * Off unless the environment's XLFT_TRACE names a directory; then each
 * process writes its events, one fixed-width text line each
 * ("HOP SEQ NS", CLOCK_MONOTONIC), into DIR/WHO.PID, a file mapped in
 * memory so that an event costs no system call and one killed keeps
 * what it wrote.  At most XLFT_TRACE_MAX events; later ones are not
 * kept.
 */
#ifndef XLFT_TRACE_H
#define XLFT_TRACE_H

#include <stdint.h>

#define XLFT_TRACE_MAX  (1u << 20)

enum xlft_hop {
    XLFT_HOP_HELD,          /* ftvm: an output held at this record */
    XLFT_HOP_SEEN,          /* ftd primary: records up to here read */
    XLFT_HOP_SENT,          /* ftd primary: a LOG frame to here queued */
    XLFT_HOP_RECV,          /* ftd secondary: a LOG frame to here held */
    XLFT_HOP_ACK_SENT,      /* ftd secondary: its ACK queued */
    XLFT_HOP_ACKED,         /* ftd primary: the ACK in the guest's ring */
    XLFT_HOP_RELEASED,      /* ftvm: outputs to here let out */
    XLFT_HOP_NR
};

/* Start tracing as WHO if XLFT_TRACE says so; a failure is said once on
 * standard error and leaves tracing off. */
void xlft_trace_start(const char *who);
void xlft_trace(enum xlft_hop hop, uint64_t seq);

#endif /* XLFT_TRACE_H */
