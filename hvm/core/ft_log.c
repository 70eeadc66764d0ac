/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ft_log.c - encode and decode log records (layout: FORMAT.md; the
 * encoder itself is inline in ft_log_impl.h).
 */
#include "ft_log_impl.h"

static const struct ft_codec zero_codec;

void ft_codec_init(struct ft_codec *c)
{
    *c = zero_codec;
}

int ft_log_encode(const struct ft_codec *c, const struct ft_log_rec *r,
                  uint8_t *out)
{
    int rc = ft_log_check_inline(c, r);

    if ( rc < 0 )
        return rc;
    return (int)ft_log_encode_inline(c, r, out, ft_rip_slot(c, r->pt.rip));
}

void ft_codec_advance(struct ft_codec *c, const struct ft_log_rec *r)
{
    ft_codec_advance_inline(c, r, ft_rip_slot(c, r->pt.rip));
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
        {
            /* One encoding per value: no trailing zero groups. */
            if ( b == 0 && shift )
                s->err = s->err ? s->err : FT_EBADMSG;
            return v;
        }
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
    uint8_t src;

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
    {
        r->pt.rip = b->rip[ripmode - 1];
        r->pt.rcx = b->rcx[ripmode - 1];
    }
    else
    {
        r->pt.rip = b->rip[b->rip_last] + unzigzag(get_varint(&s));
        r->pt.rcx = b->rcx[b->rip_last];
    }
    if ( h & H_RCX )
        r->pt.rcx += unzigzag(get_varint(&s));

    switch ( r->kind )
    {
    case FT_K_EXTINT:
        if ( h & H_K )
        {
            r->u.intr.vector = b->vector;
            src = b->intr_src;
        }
        else
        {
            r->u.intr.vector = (uint8_t)get_le(&s, 1);
            src = (uint8_t)get_le(&s, 1);
        }
        r->u.intr.src = src & ~FT_INTR_TIMER;
        r->u.intr.timer = src & FT_INTR_TIMER;
        if ( r->u.intr.src >= FT_INTR_NR )
            bad(&s);
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
        r->u.dma.insn = h & H_K;
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

/* Whole records at the start of buf; with a codec, decoded in order. */
static int walk(struct ft_codec *c, const uint8_t *buf, uint32_t len,
                uint32_t *nrec)
{
    struct ft_log_rec r;
    uint32_t off = 0, n = 0;
    int rc = 0;

    while ( off < len )
    {
        int sz = ft_log_decode(c, buf + off, len - off, &r);

        if ( sz == FT_EMORE )
            break;
        if ( sz < 0 )
        {
            rc = sz;
            break;
        }
        if ( c )
            ft_codec_advance(c, &r);
        off += (uint32_t)sz;
        n++;
    }
    *nrec = n;
    return rc ? rc : (int)off;
}

int ft_log_scan(const uint8_t *buf, uint32_t len, uint32_t *nrec)
{
    return walk(NULL, buf, len, nrec);
}

int ft_log_check(struct ft_codec *c, const uint8_t *buf, uint32_t len,
                 uint32_t *nrec)
{
    return walk(c, buf, len, nrec);
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

bool ft_log_rec_is_sync(const struct ft_log_rec *r)
{
    return ft_log_kind_is_sync(r->kind) ||
           (r->kind == FT_K_DMA && r->u.dma.insn);
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
    if ( kind == FT_K_STRING )
        return "string read";
    return "nothing";
}
