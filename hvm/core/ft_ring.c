/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ft_ring.c - the shared-memory record ring (ABI: ft_abi.h).
 */
#include "ft_ring.h"
#include "ft_atomic.h"
#include "ft_log.h"

static inline void copy_bytes(uint8_t *dst, const uint8_t *src, uint32_t n)
{
    while ( n-- )
        *dst++ = *src++;
}

static inline uint32_t ring_off(const struct ft_ring *r, uint32_t idx)
{
    return idx & (r->size - 1);
}

static inline bool is_pow2(uint32_t x)
{
    return x && !(x & (x - 1));
}

/* The side that produces into a ring of this role is its owner? */
static inline bool owner_produces(uint32_t role)
{
    return role == FT_RING_RECORD;
}

int ft_ring_init(struct ft_ring *r, void *mem, uint32_t mem_size,
                 uint32_t role)
{
    struct ft_ring_hdr *h = mem;
    uint8_t *p = mem;
    uint32_t avail, size, i;

    if ( (role != FT_RING_RECORD && role != FT_RING_REPLAY) ||
         mem_size < FT_RING_HDR_SIZE + FT_RING_MIN_DATA )
        return FT_EINVAL;

    avail = mem_size - FT_RING_HDR_SIZE;
    if ( avail > FT_RING_MAX_DATA )
        avail = FT_RING_MAX_DATA;
    for ( size = FT_RING_MIN_DATA; size <= avail / 2; size <<= 1 )
        ;

    for ( i = 0; i < FT_RING_HDR_SIZE; i++ )
        p[i] = 0;
    h->abi_version = FT_ABI_VERSION;
    h->log_version = FT_LOG_VERSION;
    h->role = role;
    h->hdr_size = FT_RING_HDR_SIZE;
    h->data_size = size;
    ft_store_release(&h->magic, FT_RING_MAGIC);

    r->hdr = h;
    r->data = p + FT_RING_HDR_SIZE;
    r->size = size;
    r->prod = r->cons = 0;
    r->room = 0;
    r->seq = 0;
    r->waiting = 0;
    r->counter = FT_COUNTER_NONE;
    r->cpu = FT_CPU_UNKNOWN;
    return FT_OK;
}

bool ft_kind_defined(uint32_t counter, uint32_t cpu)
{
    return counter <= FT_COUNTER_MAX && cpu != FT_CPU_UNKNOWN &&
           cpu <= FT_CPU_MAX;
}

int ft_ring_set_kind(struct ft_ring *r, uint32_t counter, uint32_t cpu)
{
    if ( !ft_kind_defined(counter, cpu) )
        return FT_EINVAL;
    r->hdr->counter = counter;
    r->hdr->cpu = cpu;
    r->counter = counter;
    r->cpu = cpu;
    return FT_OK;
}

const char *ft_counter_name(uint32_t counter)
{
    switch ( counter )
    {
    case FT_COUNTER_NONE:
        return "none";
    case FT_COUNTER_BRANCHES:
        return "branches";
    case FT_COUNTER_STEPS:
        return "steps";
    }
    return "?";
}

const char *ft_cpu_name(uint32_t cpu)
{
    switch ( cpu )
    {
    case FT_CPU_INTEL:
        return "Intel";
    case FT_CPU_AMD:
        return "AMD";
    case FT_CPU_FTVM:
        return "ftvm";
    }
    return "?";
}

int ft_ring_attach(struct ft_ring *r, void *mem, uint32_t mem_size,
                   uint32_t role)
{
    struct ft_ring_hdr *h = mem;
    uint32_t size, prod, cons, counter, cpu;

    if ( mem_size < FT_RING_HDR_SIZE )
        return FT_EPROTO;
    if ( ft_load_acquire(&h->magic) != FT_RING_MAGIC )
        return FT_EPROTO;
    if ( h->abi_version != FT_ABI_VERSION ||
         h->log_version != FT_LOG_VERSION )
        return FT_EPROTONOSUPPORT;

    /* Each read once: the other side could change them meanwhile. */
    size = h->data_size;
    counter = h->counter;
    cpu = h->cpu;
    if ( h->role != role || h->hdr_size != FT_RING_HDR_SIZE ||
         !ft_kind_defined(counter, cpu) ||
         !is_pow2(size) || size < FT_RING_MIN_DATA ||
         size > FT_RING_MAX_DATA ||
         size > mem_size - FT_RING_HDR_SIZE )
        return FT_EPROTO;

    prod = ft_load_acquire(&h->prod);
    cons = ft_load_acquire(&h->cons);
    if ( prod - cons > size )
        return FT_EPROTO;

    r->hdr = h;
    r->data = (uint8_t *)mem + FT_RING_HDR_SIZE;
    r->size = size;
    r->prod = prod;
    r->cons = cons;
    r->waiting = 0;
    r->room = 0;
    r->counter = counter;
    r->cpu = cpu;
    /* The attaching side consumes a record ring and produces a replay ring. */
    r->seq = owner_produces(role) ? ft_load64(&h->cons_seq)
                                  : ft_load64(&h->prod_seq);
    return FT_OK;
}

void ft_ring_write(struct ft_ring *r, uint32_t off, const void *src,
                   uint32_t len)
{
    uint32_t pos = ring_off(r, r->prod + off);
    uint32_t first = r->size - pos;

    if ( first > len )
        first = len;
    copy_bytes(r->data + pos, src, first);
    copy_bytes(r->data, (const uint8_t *)src + first, len - first);
}

int ft_ring_stall(struct ft_ring *r, uint32_t need)
{
    int space;

    ft_flag_set(&r->hdr->flags, FT_RING_F_STALLED);
    ft_mb();
    space = ft_ring_space(r);
    if ( space < 0 )
        return space;
    if ( (uint32_t)space < need )
    {
        r->waiting = FT_RING_F_STALLED;
        return FT_EFULL;
    }
    ft_flag_clear(&r->hdr->flags, FT_RING_F_STALLED);
    return FT_OK;
}

bool ft_ring_consumer_waiting(struct ft_ring *r)
{
    ft_mb();
    return ft_load_relaxed(&r->hdr->flags) & FT_RING_F_WAITING;
}

int ft_ring_unread(const struct ft_ring *r)
{
    uint32_t prod = ft_load_acquire(&r->hdr->prod);

    if ( prod - r->cons > r->size )
        return FT_EPROTO;
    return (int)(prod - r->cons);
}

int ft_ring_avail(struct ft_ring *r)
{
    int avail = ft_ring_unread(r);

    /* Woken (or not yet asleep): records are here, stop asking for them. */
    if ( avail > 0 && r->waiting )
    {
        ft_flag_clear(&r->hdr->flags, r->waiting);
        r->waiting = 0;
    }
    return avail;
}

void ft_ring_peek(const struct ft_ring *r, uint32_t off, void *dst,
                  uint32_t len)
{
    const uint8_t *p1, *p2;
    uint32_t l1, l2;

    ft_ring_span(r, off, len, &p1, &l1, &p2, &l2);
    copy_bytes(dst, p1, l1);
    copy_bytes((uint8_t *)dst + l1, p2, l2);
}

void ft_ring_span(const struct ft_ring *r, uint32_t off, uint32_t len,
                  const uint8_t **p1, uint32_t *len1,
                  const uint8_t **p2, uint32_t *len2)
{
    uint32_t pos = ring_off(r, r->cons + off);
    uint32_t first = r->size - pos;

    if ( first > len )
        first = len;
    *p1 = r->data + pos;
    *len1 = first;
    *p2 = r->data;
    *len2 = len - first;
}

bool ft_ring_consume(struct ft_ring *r, uint32_t len, uint32_t nrec)
{
    r->cons += len;
    r->seq += nrec;
    ft_store64(&r->hdr->cons_seq, r->seq);
    ft_store_release(&r->hdr->cons, r->cons);
    if ( r->waiting )
    {
        ft_flag_clear(&r->hdr->flags, r->waiting);
        r->waiting = 0;
    }
    ft_mb();
    return ft_load_relaxed(&r->hdr->flags) & FT_RING_F_STALLED;
}

int ft_ring_read_records(struct ft_ring *r, uint8_t *dst, uint32_t cap,
                         uint32_t *nrec, bool *notify)
{
    int avail = ft_ring_avail(r);
    int bytes;
    uint32_t n;

    *nrec = 0;
    *notify = false;
    if ( cap < FT_LOG_REC_MAX )
        return FT_EINVAL;
    if ( avail <= 0 )
        return avail;

    n = (uint32_t)avail < cap ? (uint32_t)avail : cap;
    ft_ring_peek(r, 0, dst, n);
    bytes = ft_log_scan(dst, n, nrec);
    if ( bytes < 0 )
    {
        *nrec = 0;
        return bytes;
    }
    /*
     * Whatever is left over must be a record cut by 'cap', not a half
     * record the producer published against the rules.
     */
    if ( (uint32_t)bytes < n && n == (uint32_t)avail )
    {
        *nrec = 0;
        return FT_EPROTO;
    }
    *notify = ft_ring_consume(r, (uint32_t)bytes, *nrec);
    return bytes;
}

int ft_ring_wait(struct ft_ring *r)
{
    int avail;

    ft_flag_set(&r->hdr->flags, FT_RING_F_WAITING);
    ft_mb();
    avail = ft_ring_avail(r);
    if ( avail == 0 )
    {
        r->waiting = FT_RING_F_WAITING;
        return FT_EAGAIN;
    }
    ft_flag_clear(&r->hdr->flags, FT_RING_F_WAITING);
    return avail < 0 ? avail : FT_OK;
}

uint32_t ft_ring_flags(const struct ft_ring *r)
{
    return ft_load_acquire(&r->hdr->flags);
}

void ft_ring_set_flags(struct ft_ring *r, uint32_t bits)
{
    ft_flag_set(&r->hdr->flags, bits);
}

void ft_ring_clear_flags(struct ft_ring *r, uint32_t bits)
{
    ft_flag_clear(&r->hdr->flags, bits);
}

void ft_ring_set_ack(struct ft_ring *r, uint64_t seq)
{
    ft_store64_release(&r->hdr->ack_seq, seq);
}

uint64_t ft_ring_ack(const struct ft_ring *r)
{
    return ft_load64_acquire(&r->hdr->ack_seq);
}

uint64_t ft_ring_cons_seq(const struct ft_ring *r)
{
    return ft_load64(&r->hdr->cons_seq);
}
