/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_heartbeat.h - failure detection on the logging channel.  Each side
 * sends a HEARTBEAT frame when it has sent nothing else for an interval;
 * any valid frame from the peer counts as hearing it.  After a silence
 * of the timeout the peer is lost: the caller then asks the arbiter who
 * goes on (xlft_arbiter.h).  Pure state: the caller passes the time
 * (CLOCK_MONOTONIC, ns), so tests drive it with a fake clock.
 */
#ifndef XLFT_HEARTBEAT_H
#define XLFT_HEARTBEAT_H

#include <stddef.h>
#include <stdint.h>

#define XLFT_HB_INTERVAL_MS  50     /* defaults: see heartbeat.c */
#define XLFT_HB_TIMEOUT_MS   300

enum xlft_peer {
    XLFT_PEER_ALIVE,        /* heard within two intervals */
    XLFT_PEER_LATE,         /* silent for longer: worth a status line */
    XLFT_PEER_LOST,         /* silent for the timeout; stays lost */
};

struct xlft_hb_cfg {
    uint32_t interval_ms;   /* 0: XLFT_HB_INTERVAL_MS */
    uint32_t timeout_ms;    /* 0: XLFT_HB_TIMEOUT_MS */
};

struct xlft_hb {
    uint64_t interval, timeout;     /* ns */
    uint64_t heard, sent;           /* last times, ns */
    int lost;
};

/*
 * Start (or restart, for a new peer) at 'now'.  -EINVAL, with 'err'
 * saying why, unless 1 <= interval <= 10000 ms and the timeout is at
 * least three intervals (one late heartbeat must not lose a peer).
 */
int xlft_hb_init(struct xlft_hb *hb, const struct xlft_hb_cfg *cfg,
                 uint64_t now, char *err, size_t errlen);

/* A valid frame came from the peer (ignored once it is lost). */
void xlft_hb_heard(struct xlft_hb *hb, uint64_t now);
/* A frame went to the peer. */
void xlft_hb_sent(struct xlft_hb *hb, uint64_t now);

/* Nothing was sent for an interval: send a HEARTBEAT now. */
int xlft_hb_due(const struct xlft_hb *hb, uint64_t now);

enum xlft_peer xlft_hb_peer(struct xlft_hb *hb, uint64_t now);

/* When to look again (a heartbeat due or the peer lost), ns. */
uint64_t xlft_hb_next(const struct xlft_hb *hb);

const char *xlft_peer_name(enum xlft_peer p);

#endif /* XLFT_HEARTBEAT_H */
