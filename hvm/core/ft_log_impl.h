/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ft_log_impl.h - the record encoder and the codec state update, inline.
 *
 * Internal to hvm/core: ft_log.c wraps these for every caller, and the
 * recorder includes them directly so that each per-kind call compiles
 * to straight-line code for its kind (the record path runs on every
 * interrupt and TSC read of the guest).  Layout: FORMAT.md.  Not
 * exported to dom0, which encodes and decodes through ft_log.h.
 *
 * The first byte of a record is
 *
 *   bit 0-3  kind
 *   bit 4-5  rip: 0 = zigzag varint delta from the last record's rip
 *                 follows, 1..3 = the rip cached in slot 0..2
 *   bit 6    rcx: 1 = zigzag varint delta follows from the rcx of the
 *                 last record at that rip (at the last record's if new)
 *   bit 7    k: a per-kind "same as last time" bit
 *
 * then the progress count as a varint delta from the last record's,
 * the rip and rcx deltas if any, and the kind's payload.
 */
#ifndef FT_LOG_IMPL_H
#define FT_LOG_IMPL_H

#include "ft_log.h"

#define H_KIND_MASK     0x0fu
#define H_RIP_SHIFT     4
#define H_RIP_MASK      0x30u
#define H_RCX           0x40u
#define H_K             0x80u

#define EV_CR2          0x80u   /* FT_K_EVENT type byte: cr2 follows */

static ft_always_inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while ( v >= 0x80 )
    {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline uint64_t zigzag(uint64_t d)
{
    return (d << 1) ^ (0 - (d >> 63));
}

static inline uint64_t unzigzag(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

static inline uint8_t *put_le(uint8_t *p, uint64_t v, unsigned int n)
{
    unsigned int i;

    for ( i = 0; i < n; i++ )
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

/* Size codes: PIO 1/2/4, MMIO 1/2/4/8, RAND 2/4/8. */
static inline int size_code(unsigned int size, unsigned int smallest,
                            unsigned int largest)
{
    int code = 0;
    unsigned int s;

    for ( s = smallest; s <= largest; s <<= 1, code++ )
        if ( s == size )
            return code;
    return -1;
}

/* An FT_K_EXTINT's source byte: its controller and whether a timer's. */
static inline uint8_t intr_src_byte(const struct ft_log_rec *r)
{
    return r->u.intr.src | (r->u.intr.timer ? FT_INTR_TIMER : 0);
}

static inline bool fits(uint64_t v, unsigned int size)
{
    return size >= 8 || (v >> (8 * size)) == 0;
}

/* Which of the three cached rips 'rip' is, or -1. */
static ft_always_inline int ft_rip_slot(const struct ft_codec *c,
                                        uint64_t rip)
{
    if ( rip == c->rip[0] )
        return 0;
    if ( rip == c->rip[1] )
        return 1;
    if ( rip == c->rip[2] )
        return 2;
    return -1;
}

/*
 * FT_OK if 'r' can follow the records 'c' has seen, else FT_EINVAL.
 * Apart from the encoder so that the record path refuses before it
 * writes a byte, and the encoder has no failure left to report.
 */
static ft_always_inline int ft_log_check_inline(const struct ft_codec *c,
                                                const struct ft_log_rec *r)
{
    if ( r->kind >= FT_K_NR || r->pt.count < c->count )
        return FT_EINVAL;

    switch ( r->kind )
    {
    case FT_K_EXTINT:
        if ( r->u.intr.src >= FT_INTR_NR )
            return FT_EINVAL;
        break;
    case FT_K_EVENT:
        if ( r->u.event.type > FT_EV_TYPE_MAX )
            return FT_EINVAL;
        break;
    case FT_K_PIO:
        if ( size_code(r->u.pio.size, 1, 4) < 0 ||
             !fits(r->u.pio.value, r->u.pio.size) )
            return FT_EINVAL;
        break;
    case FT_K_MMIO:
        if ( size_code(r->u.mmio.size, 1, 8) < 0 || (r->u.mmio.gpa >> 62) ||
             !fits(r->u.mmio.value, r->u.mmio.size) )
            return FT_EINVAL;
        break;
    case FT_K_RAND:
        if ( size_code(r->u.rand.size, 2, 8) < 0 ||
             !fits(r->u.rand.value, r->u.rand.size) )
            return FT_EINVAL;
        break;
    case FT_K_DMA:
        if ( r->u.dma.len == 0 || r->u.dma.len > FT_DMA_MAX )
            return FT_EINVAL;
        break;
    default:
        break;
    }
    return FT_OK;
}

/*
 * The encoded size of 'r', which ft_log_check_inline accepted; 'slot'
 * is ft_rip_slot(c, r->pt.rip).
 */
static ft_always_inline unsigned int
ft_log_encode_inline(const struct ft_codec *c, const struct ft_log_rec *r,
                     uint8_t *out, int slot)
{
    uint8_t *p = out + 1;
    unsigned int h = r->kind;
    uint64_t rcx;
    unsigned int code;

    p = put_varint(p, r->pt.count - c->count);
    /* rcx is coded against its value the last time at this rip. */
    if ( slot >= 0 )
    {
        h |= (unsigned int)(slot + 1) << H_RIP_SHIFT;
        rcx = c->rcx[slot];
    }
    else
    {
        p = put_varint(p, zigzag(r->pt.rip - c->rip[c->rip_last]));
        rcx = c->rcx[c->rip_last];
    }
    if ( r->pt.rcx != rcx )
    {
        h |= H_RCX;
        p = put_varint(p, zigzag(r->pt.rcx - rcx));
    }

    switch ( r->kind )
    {
    case FT_K_EXTINT:
    {
        uint8_t src = intr_src_byte(r);

        if ( r->u.intr.vector == c->vector && src == c->intr_src )
            h |= H_K;
        else
        {
            *p++ = r->u.intr.vector;
            *p++ = src;
        }
        break;
    }

    case FT_K_EVENT:
        *p++ = r->u.event.type | (r->u.event.has_cr2 ? EV_CR2 : 0);
        *p++ = r->u.event.vector;
        *p++ = r->u.event.insn_len;
        if ( r->u.event.has_errcode )
        {
            h |= H_K;
            p = put_varint(p, r->u.event.errcode);
        }
        if ( r->u.event.has_cr2 )
            p = put_varint(p, r->u.event.cr2);
        break;

    case FT_K_TSC:
    {
        uint64_t d1 = r->u.tsc.value - c->tsc;
        uint64_t z1 = zigzag(d1), z2 = zigzag(d1 - c->tsc_delta);

        if ( z2 < z1 )
        {
            h |= H_K;
            z1 = z2;
        }
        p = put_varint(p, z1);
        break;
    }

    case FT_K_MSR:
        if ( r->u.msr.index == c->msr_index )
            h |= H_K;
        else
            p = put_varint(p, r->u.msr.index);
        p = put_varint(p, r->u.msr.value);
        break;

    case FT_K_PIO:
        code = (unsigned int)size_code(r->u.pio.size, 1, 4);
        if ( r->u.pio.port == c->pio_port && r->u.pio.size == c->pio_size )
            h |= H_K;
        else
            p = put_varint(p, ((uint64_t)r->u.pio.port << 2) | code);
        p = put_varint(p, r->u.pio.value);
        break;

    case FT_K_MMIO:
        code = (unsigned int)size_code(r->u.mmio.size, 1, 8);
        if ( r->u.mmio.gpa == c->mmio_gpa &&
             r->u.mmio.size == c->mmio_size )
            h |= H_K;
        else
            p = put_varint(p, (r->u.mmio.gpa << 2) | code);
        p = put_varint(p, r->u.mmio.value);
        break;

    case FT_K_RAND:
        code = (unsigned int)size_code(r->u.rand.size, 2, 8);
        if ( r->u.rand.seed )
            h |= H_K;
        *p++ = (uint8_t)code;
        p = put_le(p, r->u.rand.value, r->u.rand.size);
        break;

    case FT_K_DMA:
        if ( r->u.dma.insn )
            h |= H_K;
        p = put_varint(p, r->u.dma.gpa);
        p = put_varint(p, r->u.dma.len);
        break;

    case FT_K_SYNC:
        p = put_le(p, r->u.sync.hash, 8);
        break;

    case FT_K_OUTPUT:
        if ( r->u.output.id == c->output_id + 1 )
            h |= H_K;
        else
            p = put_varint(p, r->u.output.id);
        break;

    default: /* NMI, HLT_WAKE, PROGRESS: the point is all there is. */
        break;
    }

    out[0] = (uint8_t)h;
    return (unsigned int)(p - out);
}

/* 'slot' is ft_rip_slot(c, r->pt.rip). */
static ft_always_inline void ft_codec_advance_inline(struct ft_codec *c,
                                                     const struct ft_log_rec *r,
                                                     int slot)
{
    c->count = r->pt.count;
    /* A new rip takes the slots in turn; cached ones stay where they are. */
    if ( slot < 0 )
    {
        slot = c->rip_next;
        c->rip_next = slot == 2 ? 0 : (uint8_t)(slot + 1);
        c->rip[slot] = r->pt.rip;
    }
    c->rcx[slot] = r->pt.rcx;
    c->rip_last = (uint8_t)slot;

    switch ( r->kind )
    {
    case FT_K_EXTINT:
        c->vector = r->u.intr.vector;
        c->intr_src = intr_src_byte(r);
        break;
    case FT_K_TSC:
        c->tsc_delta = r->u.tsc.value - c->tsc;
        c->tsc = r->u.tsc.value;
        break;
    case FT_K_MSR:
        c->msr_index = r->u.msr.index;
        break;
    case FT_K_PIO:
        c->pio_port = r->u.pio.port;
        c->pio_size = r->u.pio.size;
        break;
    case FT_K_MMIO:
        c->mmio_gpa = r->u.mmio.gpa;
        c->mmio_size = r->u.mmio.size;
        break;
    case FT_K_OUTPUT:
        c->output_id = r->u.output.id;
        break;
    default:
        break;
    }
}

#endif /* FT_LOG_IMPL_H */
