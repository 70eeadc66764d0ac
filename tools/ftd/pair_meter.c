// SPDX-License-Identifier: GPL-2.0-only
/*
 * pair_meter.c - the counters a pair keeps as frames go by
 * (pair_stats.h): log and DMA bytes and outputs from the heads of the
 * records, the ACK round trip from the clock a LOG frame carries and its
 * ACK echoes.  Nothing here reads the pair itself, so the unit tests
 * drive it alone.
 */
#include "ft_log.h"
#include "pair_stats.h"

void pair_meter_log(struct pair_meter *m, const uint8_t *recs, uint32_t len,
                    uint64_t last)
{
    uint64_t before = m->outputs;
    uint32_t off = 0;
    unsigned int i;

    m->log_bytes += len;
    /* Only heads are decoded: no state is needed to know a DMA's size. */
    while (off < len) {
        struct ft_log_rec r;

        if (ft_log_decode_head(NULL, recs + off, len - off, &r) <= 0)
            break;
        if (r.kind == FT_K_DMA)
            m->dma_bytes += r.u.dma.len;
        else if (r.kind == FT_K_OUTPUT)
            m->outputs++;
        off += r.size;
    }
    if (!last || m->outputs == before)
        return;
    /* Full, the newest mark moves up (pair_stats.h). */
    if (m->nmarks < PAIR_OUT_MARKS)
        m->nmarks++;
    i = (m->mark_first + m->nmarks - 1) % PAIR_OUT_MARKS;
    m->marks[i].seq = last;
    m->marks[i].outputs = m->outputs;
}

void pair_meter_acked(struct pair_meter *m, uint64_t acked)
{
    while (m->nmarks && m->marks[m->mark_first].seq <= acked) {
        m->outputs_acked = m->marks[m->mark_first].outputs;
        m->mark_first = (m->mark_first + 1) % PAIR_OUT_MARKS;
        m->nmarks--;
    }
}

void pair_meter_ack(struct pair_meter *m, uint64_t echo_ns, uint64_t now)
{
    uint64_t rtt;

    if (!echo_ns || echo_ns > now)
        return;                 /* no LOG frame answered yet */
    rtt = now - echo_ns;
    if (!m->have_rtt)
        m->rtt_avg_ns = rtt;
    else if (rtt >= m->rtt_avg_ns)
        m->rtt_avg_ns += (rtt - m->rtt_avg_ns) / 8;
    else
        m->rtt_avg_ns -= (m->rtt_avg_ns - rtt) / 8;
    m->have_rtt = true;
}
