// SPDX-License-Identifier: GPL-2.0-only
/*
 * heartbeat.c - failure detection (xlft_heartbeat.h).
 *
 * The defaults aim at failover within 0.5 s: 300 ms of silence loses the
 * peer, then the arbiter and going live take the rest.  A heartbeat every
 * 50 ms gives six chances within the timeout, which rides out a loaded
 * 2-core host descheduling a daemon for 100-200 ms without a false
 * failover (make bench measures both).
 */
#include <errno.h>
#include <stdio.h>

#include "xlft_heartbeat.h"

#define MS 1000000ull

int xlft_hb_init(struct xlft_hb *hb, const struct xlft_hb_cfg *cfg,
                 uint64_t now, char *err, size_t errlen)
{
    uint32_t iv = cfg && cfg->interval_ms ? cfg->interval_ms
                                          : XLFT_HB_INTERVAL_MS;
    uint32_t to = cfg && cfg->timeout_ms ? cfg->timeout_ms
                                         : XLFT_HB_TIMEOUT_MS;

    if (iv > 10000) {
        snprintf(err, errlen, "heartbeat interval %u ms: at most 10000",
                 iv);
        return -EINVAL;
    }
    if ((uint64_t)to < 3ull * iv) {
        snprintf(err, errlen, "heartbeat timeout %u ms: at least three "
                 "intervals (%u ms)", to, 3 * iv);
        return -EINVAL;
    }
    hb->interval = iv * MS;
    hb->timeout = to * MS;
    hb->heard = hb->sent = now;
    hb->lost = 0;
    return 0;
}

void xlft_hb_heard(struct xlft_hb *hb, uint64_t now)
{
    if (!hb->lost && now > hb->heard)
        hb->heard = now;
}

void xlft_hb_sent(struct xlft_hb *hb, uint64_t now)
{
    if (now > hb->sent)
        hb->sent = now;
}

int xlft_hb_due(const struct xlft_hb *hb, uint64_t now)
{
    return now >= hb->sent + hb->interval;
}

enum xlft_peer xlft_hb_peer(struct xlft_hb *hb, uint64_t now)
{
    uint64_t quiet = now > hb->heard ? now - hb->heard : 0;

    if (hb->lost || quiet >= hb->timeout) {
        hb->lost = 1;
        return XLFT_PEER_LOST;
    }
    return quiet > 2 * hb->interval ? XLFT_PEER_LATE : XLFT_PEER_ALIVE;
}

uint64_t xlft_hb_next(const struct xlft_hb *hb)
{
    uint64_t send = hb->sent + hb->interval;
    uint64_t lose = hb->heard + hb->timeout;

    return send < lose ? send : lose;
}

const char *xlft_peer_name(enum xlft_peer p)
{
    switch (p) {
    case XLFT_PEER_ALIVE: return "alive";
    case XLFT_PEER_LATE: return "late";
    case XLFT_PEER_LOST: return "lost";
    default: return "unknown";
    }
}
