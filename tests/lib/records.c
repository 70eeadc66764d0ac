// SPDX-License-Identifier: GPL-2.0-only
/*
 * records.c - random records for the unit and stress tests: every kind,
 * with extreme values often enough that each boundary is exercised.
 */
#include <string.h>

#include "records.h"

/* A value biased toward the edges: 0, the maximum, or anything. */
static uint64_t edgy(uint64_t *s, uint64_t max)
{
    uint64_t v = prng_next(s);

    switch (v & 7) {
    case 0:
        return 0;
    case 1:
        return max;
    case 2:
        return (v >> 8) & 0xff & max;
    default:
        return (v >> 3) & max;
    }
}

static const uint8_t pio_sizes[] = { 1, 2, 4 };
static const uint8_t mmio_sizes[] = { 1, 2, 4, 8 };
static const uint8_t rand_sizes[] = { 2, 4, 8 };

static uint64_t mask_for(unsigned int size)
{
    return size >= 8 ? UINT64_MAX : (1ull << (8 * size)) - 1;
}

void random_record(uint64_t *s, struct ft_point *prev, struct ft_log_rec *r,
                   uint8_t *dma_buf, uint32_t dma_max)
{
    static const uint64_t rips[] = { 0x100000, 0x100004, 0x100123,
                                     0xffffffff81000000ull };
    uint64_t v = prng_next(s);

    memset(r, 0, sizeof(*r));
    r->kind = (uint8_t)(v % FT_K_NR);

    /* Counts grow mostly by a little, sometimes not at all. */
    prev->count += (v >> 8) & 3 ? (v >> 16) % 2000 : 0;
    if (((v >> 24) & 15) == 0)
        prev->rip = prng_next(s);
    else if (((v >> 24) & 15) < 12)
        prev->rip = rips[(v >> 28) & 3];
    if (((v >> 32) & 7) == 0)
        prev->rcx = edgy(s, UINT64_MAX);
    r->pt = *prev;

    switch (r->kind) {
    case FT_K_EXTINT:
        r->u.intr.vector = (v >> 40) & 1 ? 0x20 : (uint8_t)edgy(s, 0xff);
        r->u.intr.src = (v >> 41) & 1 ? FT_INTR_PIC : FT_INTR_LAPIC;
        r->u.intr.timer = (v >> 42) & 1;
        break;
    case FT_K_EVENT:
        r->u.event.type = (uint8_t)(edgy(s, 7));
        r->u.event.vector = (uint8_t)edgy(s, 0xff);
        r->u.event.insn_len = (uint8_t)edgy(s, 15);
        r->u.event.has_errcode = (v >> 41) & 1;
        r->u.event.errcode = r->u.event.has_errcode ?
                             (uint32_t)edgy(s, UINT32_MAX) : 0;
        r->u.event.has_cr2 = (v >> 42) & 1;
        r->u.event.cr2 = r->u.event.has_cr2 ? edgy(s, UINT64_MAX) : 0;
        break;
    case FT_K_TSC:
        r->u.tsc.value = edgy(s, UINT64_MAX);
        break;
    case FT_K_MSR:
        r->u.msr.index = (v >> 40) & 1 ? 0x10 : (uint32_t)edgy(s, UINT32_MAX);
        r->u.msr.value = edgy(s, UINT64_MAX);
        break;
    case FT_K_PIO:
        r->u.pio.size = pio_sizes[(v >> 40) % 3];
        r->u.pio.port = (v >> 43) & 1 ? 0x3fd : (uint16_t)edgy(s, 0xffff);
        r->u.pio.value = (uint32_t)edgy(s, mask_for(r->u.pio.size));
        break;
    case FT_K_MMIO:
        r->u.mmio.size = mmio_sizes[(v >> 40) & 3];
        r->u.mmio.gpa = (v >> 43) & 1 ? 0xfee00000 :
                        edgy(s, (1ull << 62) - 1);
        r->u.mmio.value = edgy(s, mask_for(r->u.mmio.size));
        break;
    case FT_K_RAND:
        r->u.rand.seed = (v >> 40) & 1;
        r->u.rand.size = rand_sizes[(v >> 41) % 3];
        r->u.rand.value = edgy(s, mask_for(r->u.rand.size));
        break;
    case FT_K_DMA: {
        uint32_t len = 1 + (uint32_t)(prng_next(s) % dma_max);
        uint64_t fill = prng_next(s);

        if (((v >> 40) & 15) == 0)
            len = dma_max;
        for (uint32_t i = 0; i < len; i++)
            dma_buf[i] = (uint8_t)(fill + i * 131 + (i >> 8));
        r->u.dma.gpa = edgy(s, UINT64_MAX);
        r->u.dma.len = len;
        r->u.dma.data = dma_buf;
        r->u.dma.insn = (v >> 44) & 1;
        break;
    }
    case FT_K_SYNC:
        r->u.sync.hash = prng_next(s);
        break;
    case FT_K_OUTPUT:
        r->u.output.id = (v >> 40) & 1 ? edgy(s, UINT64_MAX) : v >> 44;
        break;
    default:
        break;
    }
}

bool record_equal(const struct ft_log_rec *a, const struct ft_log_rec *b)
{
    if (a->kind != b->kind || a->pt.count != b->pt.count ||
        a->pt.rip != b->pt.rip || a->pt.rcx != b->pt.rcx)
        return false;

    switch (a->kind) {
    case FT_K_EXTINT:
        return a->u.intr.vector == b->u.intr.vector &&
               a->u.intr.src == b->u.intr.src &&
               a->u.intr.timer == b->u.intr.timer;
    case FT_K_EVENT:
        return a->u.event.type == b->u.event.type &&
               a->u.event.vector == b->u.event.vector &&
               a->u.event.insn_len == b->u.event.insn_len &&
               a->u.event.has_errcode == b->u.event.has_errcode &&
               a->u.event.errcode == b->u.event.errcode &&
               a->u.event.has_cr2 == b->u.event.has_cr2 &&
               a->u.event.cr2 == b->u.event.cr2;
    case FT_K_TSC:
        return a->u.tsc.value == b->u.tsc.value;
    case FT_K_MSR:
        return a->u.msr.index == b->u.msr.index &&
               a->u.msr.value == b->u.msr.value;
    case FT_K_PIO:
        return a->u.pio.port == b->u.pio.port &&
               a->u.pio.size == b->u.pio.size &&
               a->u.pio.value == b->u.pio.value;
    case FT_K_MMIO:
        return a->u.mmio.gpa == b->u.mmio.gpa &&
               a->u.mmio.size == b->u.mmio.size &&
               a->u.mmio.value == b->u.mmio.value;
    case FT_K_RAND:
        return a->u.rand.seed == b->u.rand.seed &&
               a->u.rand.size == b->u.rand.size &&
               a->u.rand.value == b->u.rand.value;
    case FT_K_DMA:
        return a->u.dma.gpa == b->u.dma.gpa &&
               a->u.dma.len == b->u.dma.len &&
               a->u.dma.insn == b->u.dma.insn &&
               (!a->u.dma.data || !b->u.dma.data ||
                !memcmp(a->u.dma.data, b->u.dma.data, a->u.dma.len));
    case FT_K_SYNC:
        return a->u.sync.hash == b->u.sync.hash;
    case FT_K_OUTPUT:
        return a->u.output.id == b->u.output.id;
    default:
        return true;
    }
}
