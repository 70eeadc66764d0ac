/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ft_log.c - encode and decode log records (layout: FORMAT.md).
 *
 * The first byte of a record is
 *
 *   bit 0-3  kind
 *   bit 4-5  rip: 0 = zigzag varint delta from the last rip follows,
 *                 1..3 = same as the 1st..3rd most recently used rip
 *   bit 6    rcx: 1 = zigzag varint delta from the last rcx follows
 *   bit 7    k: a per-kind "same as last time" bit
 *
 * then the progress count as a varint delta from the last record's,
 * the rip and rcx deltas if any, and the kind's payload.
 */
#include "ft_log.h"

#define H_KIND_MASK     0x0fu
#define H_RIP_SHIFT     4
#define H_RIP_MASK      0x30u
#define H_RCX           0x40u
#define H_K             0x80u

#define EV_CR2          0x80u   /* FT_K_EVENT type byte: cr2 follows */

static const struct ft_codec zero_codec;

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
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

static inline bool fits(uint64_t v, unsigned int size)
{
    return size >= 8 || (v >> (8 * size)) == 0;
}

void ft_codec_init(struct ft_codec *c)
{
    *c = zero_codec;
}

int ft_log_encode(const struct ft_codec *c, const struct ft_log_rec *r,
                  uint8_t *out)
{
    uint8_t *p = out + 1;
    unsigned int h = r->kind;
    int code;

    if ( r->kind >= FT_K_NR || r->pt.count < c->count )
        return FT_EINVAL;

    p = put_varint(p, r->pt.count - c->count);
    if ( r->pt.rip == c->rip[0] )
        h |= 1u << H_RIP_SHIFT;
    else if ( r->pt.rip == c->rip[1] )
        h |= 2u << H_RIP_SHIFT;
    else if ( r->pt.rip == c->rip[2] )
        h |= 3u << H_RIP_SHIFT;
    else
        p = put_varint(p, zigzag(r->pt.rip - c->rip[0]));
    if ( r->pt.rcx != c->rcx )
    {
        h |= H_RCX;
        p = put_varint(p, zigzag(r->pt.rcx - c->rcx));
    }

    switch ( r->kind )
    {
    case FT_K_EXTINT:
        if ( r->u.intr.vector == c->vector )
            h |= H_K;
        else
            *p++ = r->u.intr.vector;
        break;

    case FT_K_EVENT:
        if ( r->u.event.type > FT_EV_TYPE_MAX )
            return FT_EINVAL;
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
        code = size_code(r->u.pio.size, 1, 4);
        if ( code < 0 || !fits(r->u.pio.value, r->u.pio.size) )
            return FT_EINVAL;
        if ( r->u.pio.port == c->pio_port && r->u.pio.size == c->pio_size )
            h |= H_K;
        else
            p = put_varint(p, ((uint64_t)r->u.pio.port << 2) | code);
        p = put_varint(p, r->u.pio.value);
        break;

    case FT_K_MMIO:
        code = size_code(r->u.mmio.size, 1, 8);
        if ( code < 0 || (r->u.mmio.gpa >> 62) ||
             !fits(r->u.mmio.value, r->u.mmio.size) )
            return FT_EINVAL;
        if ( r->u.mmio.gpa == c->mmio_gpa &&
             r->u.mmio.size == c->mmio_size )
            h |= H_K;
        else
            p = put_varint(p, (r->u.mmio.gpa << 2) | code);
        p = put_varint(p, r->u.mmio.value);
        break;

    case FT_K_RAND:
        code = size_code(r->u.rand.size, 2, 8);
        if ( code < 0 || !fits(r->u.rand.value, r->u.rand.size) )
            return FT_EINVAL;
        if ( r->u.rand.seed )
            h |= H_K;
        *p++ = (uint8_t)code;
        p = put_le(p, r->u.rand.value, r->u.rand.size);
        break;

    case FT_K_DMA:
        if ( r->u.dma.len == 0 || r->u.dma.len > FT_DMA_MAX )
            return FT_EINVAL;
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
    return (int)(p - out);
}

/* Decoding: a cursor over the input that never reads past its end. */
struct cur {
    const uint8_t *p, *end;
    int err;                     /* first error, sticky */
};

static uint64_t get_varint(struct cur *s)
{
    uint64_t v = 0;
    unsigned int shift;

    for ( shift = 0; ; shift += 7 )
    {
        uint8_t b;

        if ( s->p == s->end )
        {
            s->err = s->err ? s->err : FT_EMORE;
            return 0;
        }
        b = *s->p++;
        /* The tenth byte holds bit 63 alone: anything more overflows. */
        if ( shift == 63 && b > 1 )
        {
            s->err = s->err ? s->err : FT_EBADMSG;
            return 0;
        }
        v |= (uint64_t)(b & 0x7f) << shift;
        if ( !(b & 0x80) )
            return v;
    }
}

static uint64_t get_le(struct cur *s, unsigned int n)
{
    uint64_t v = 0;
    unsigned int i;

    if ( (uint32_t)(s->end - s->p) < n )
    {
        s->err = s->err ? s->err : FT_EMORE;
        return 0;
    }
    for ( i = 0; i < n; i++ )
        v |= (uint64_t)*s->p++ << (8 * i);
    return v;
}

static inline void bad(struct cur *s)
{
    s->err = s->err ? s->err : FT_EBADMSG;
}

int ft_log_decode_head(const struct ft_codec *c, const uint8_t *buf,
                       uint32_t len, struct ft_log_rec *r)
{
    struct cur s = { buf, buf + len, 0 };
    const struct ft_codec *b = c ? c : &zero_codec;
    unsigned int h, ripmode;
    uint64_t v;

    if ( len == 0 )
        return FT_EMORE;
    h = *s.p++;
    r->kind = h & H_KIND_MASK;
    if ( r->kind >= FT_K_NR )
        return FT_EBADMSG;

    v = get_varint(&s);
    r->pt.count = b->count + v;
    if ( r->pt.count < b->count )
        bad(&s);
    ripmode = (h & H_RIP_MASK) >> H_RIP_SHIFT;
    if ( ripmode )
        r->pt.rip = b->rip[ripmode - 1];
    else
        r->pt.rip = b->rip[0] + unzigzag(get_varint(&s));
    r->pt.rcx = b->rcx;
    if ( h & H_RCX )
        r->pt.rcx += unzigzag(get_varint(&s));

    switch ( r->kind )
    {
    case FT_K_EXTINT:
        r->u.intr.vector = (h & H_K) ? b->vector : (uint8_t)get_le(&s, 1);
        break;

    case FT_K_EVENT:
    {
        uint8_t t = (uint8_t)get_le(&s, 1);

        if ( (t & ~EV_CR2) > FT_EV_TYPE_MAX )
            bad(&s);
        r->u.event.type = t & ~EV_CR2;
        r->u.event.has_cr2 = t & EV_CR2;
        r->u.event.vector = (uint8_t)get_le(&s, 1);
        r->u.event.insn_len = (uint8_t)get_le(&s, 1);
        r->u.event.has_errcode = h & H_K;
        r->u.event.errcode = 0;
        r->u.event.cr2 = 0;
        if ( h & H_K )
        {
            v = get_varint(&s);
            if ( v >> 32 )
                bad(&s);
            r->u.event.errcode = (uint32_t)v;
        }
        if ( t & EV_CR2 )
            r->u.event.cr2 = get_varint(&s);
        break;
    }

    case FT_K_TSC:
        v = unzigzag(get_varint(&s));
        if ( h & H_K )
            v += b->tsc_delta;
        r->u.tsc.value = b->tsc + v;
        break;

    case FT_K_MSR:
        if ( h & H_K )
            r->u.msr.index = b->msr_index;
        else
        {
            v = get_varint(&s);
            if ( v >> 32 )
                bad(&s);
            r->u.msr.index = (uint32_t)v;
        }
        r->u.msr.value = get_varint(&s);
        break;

    case FT_K_PIO:
        if ( h & H_K )
        {
            r->u.pio.port = b->pio_port;
            r->u.pio.size = c ? b->pio_size : 4;
            if ( r->u.pio.size == 0 )   /* no earlier PIO record */
                bad(&s);
        }
        else
        {
            v = get_varint(&s);
            if ( (v >> 18) || (v & 3) == 3 )
                bad(&s);
            r->u.pio.port = (uint16_t)(v >> 2);
            r->u.pio.size = (uint8_t)(1u << (v & 3));
        }
        v = get_varint(&s);
        if ( !fits(v, r->u.pio.size) )
            bad(&s);
        r->u.pio.value = (uint32_t)v;
        break;

    case FT_K_MMIO:
        if ( h & H_K )
        {
            r->u.mmio.gpa = b->mmio_gpa;
            r->u.mmio.size = c ? b->mmio_size : 8;
            if ( r->u.mmio.size == 0 )
                bad(&s);
        }
        else
        {
            v = get_varint(&s);
            r->u.mmio.gpa = v >> 2;
            r->u.mmio.size = (uint8_t)(1u << (v & 3));
        }
        r->u.mmio.value = get_varint(&s);
        if ( !fits(r->u.mmio.value, r->u.mmio.size) )
            bad(&s);
        break;

    case FT_K_RAND:
        v = get_le(&s, 1);
        if ( v > 2 )
        {
            bad(&s);
            v = 0;
        }
        r->u.rand.seed = h & H_K;
        r->u.rand.size = (uint8_t)(2u << v);
        r->u.rand.value = get_le(&s, r->u.rand.size);
        break;

    case FT_K_DMA:
        if ( h & H_K )
            bad(&s);
        r->u.dma.gpa = get_varint(&s);
        v = get_varint(&s);
        if ( v == 0 || v > FT_DMA_MAX )
            bad(&s);
        r->u.dma.len = (uint32_t)(v > FT_DMA_MAX ? 0 : v);
        r->u.dma.data = NULL;
        break;

    case FT_K_SYNC:
        if ( h & H_K )
            bad(&s);
        r->u.sync.hash = get_le(&s, 8);
        break;

    case FT_K_OUTPUT:
        r->u.output.id = (h & H_K) ? b->output_id + 1 : get_varint(&s);
        break;

    default: /* NMI, HLT_WAKE, PROGRESS carry nothing: k must be clear. */
        if ( h & H_K )
            bad(&s);
        break;
    }

    if ( s.err )
        return s.err;
    r->head = (uint32_t)(s.p - buf);
    r->size = r->head;
    if ( r->kind == FT_K_DMA )
    {
        r->size += r->u.dma.len;
        if ( len >= r->size )
            r->u.dma.data = s.p;
    }
    return (int)r->size;
}

int ft_log_decode(const struct ft_codec *c, const uint8_t *buf,
                  uint32_t len, struct ft_log_rec *r)
{
    int n = ft_log_decode_head(c, buf, len, r);

    if ( n > 0 && (uint32_t)n > len )
        return FT_EMORE;
    return n;
}

void ft_codec_advance(struct ft_codec *c, const struct ft_log_rec *r)
{
    uint64_t rip = r->pt.rip;

    c->count = r->pt.count;
    if ( rip != c->rip[0] )
    {
        if ( rip != c->rip[1] )
            c->rip[2] = c->rip[1];
        c->rip[1] = c->rip[0];
        c->rip[0] = rip;
    }
    c->rcx = r->pt.rcx;

    switch ( r->kind )
    {
    case FT_K_EXTINT:
        c->vector = r->u.intr.vector;
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

int ft_log_scan(const uint8_t *buf, uint32_t len, uint32_t *nrec)
{
    struct ft_log_rec r;
    uint32_t off = 0, n = 0;

    while ( off < len )
    {
        int sz = ft_log_decode(NULL, buf + off, len - off, &r);

        if ( sz == FT_EMORE )
            break;
        if ( sz < 0 )
        {
            *nrec = n;
            return sz;
        }
        off += (uint32_t)sz;
        n++;
    }
    *nrec = n;
    return (int)off;
}

bool ft_log_kind_is_sync(unsigned int kind)
{
    switch ( kind )
    {
    case FT_K_TSC:
    case FT_K_MSR:
    case FT_K_PIO:
    case FT_K_MMIO:
    case FT_K_RAND:
    case FT_K_OUTPUT:
        return true;
    default:
        return false;
    }
}

const char *ft_log_kind_name(unsigned int kind)
{
    static const char *const names[FT_K_NR] = {
        [FT_K_EXTINT] = "external interrupt",
        [FT_K_NMI] = "NMI",
        [FT_K_EVENT] = "injected event",
        [FT_K_TSC] = "TSC read",
        [FT_K_MSR] = "MSR read",
        [FT_K_PIO] = "port read",
        [FT_K_MMIO] = "MMIO read",
        [FT_K_RAND] = "RDRAND/RDSEED",
        [FT_K_DMA] = "DMA",
        [FT_K_HLT_WAKE] = "halt wake-up",
        [FT_K_PROGRESS] = "progress",
        [FT_K_SYNC] = "state sync",
        [FT_K_OUTPUT] = "output",
    };

    if ( kind < FT_K_NR )
        return names[kind];
    if ( kind == FT_K_HALTED )
        return "halt";
    return "nothing";
}
