/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ft_atomic.h - the few memory-ordering primitives the ring needs.
 *
 * The ring is shared between two address spaces (Xen and dom0, or ftvm
 * and ftd), so the indices are published with release stores and read
 * with acquire loads.  The stall flag needs a full barrier between "set
 * flag" and "re-check space" (and the mirror image on the consumer) so
 * that a wake-up can never be lost.
 *
 * Inside Xen the hypervisor's own primitives are used; elsewhere the
 * compiler's __atomic builtins, which need no library on x86 for the
 * 32-bit accesses the ring makes.
 */
#ifndef FT_ATOMIC_H
#define FT_ATOMIC_H

#if defined(__XEN__)

#include <xen/lib.h>
#include <asm/atomic.h>
#include <asm/system.h>

#define ft_load_acquire(p) ({                   \
    typeof(*(p)) v_ = read_atomic(p);           \
    smp_rmb();                                  \
    v_;                                         \
})
#define ft_store_release(p, v) do {             \
    smp_wmb();                                  \
    write_atomic(p, v);                         \
} while ( 0 )
#define ft_load_relaxed(p)      read_atomic(p)
#define ft_store_relaxed(p, v)  write_atomic(p, v)
#define ft_mb()                 smp_mb()

static inline void ft_flag_set(uint32_t *p, uint32_t bits)
{
    uint32_t old, cur = read_atomic(p);

    do {
        old = cur;
        cur = cmpxchg(p, old, old | bits);
    } while ( cur != old );
}

static inline void ft_flag_clear(uint32_t *p, uint32_t bits)
{
    uint32_t old, cur = read_atomic(p);

    do {
        old = cur;
        cur = cmpxchg(p, old, old & ~bits);
    } while ( cur != old );
}

#else /* user space */

#define ft_load_acquire(p)      __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define ft_store_release(p, v)  __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define ft_load_relaxed(p)      __atomic_load_n(p, __ATOMIC_RELAXED)
#define ft_store_relaxed(p, v)  __atomic_store_n(p, v, __ATOMIC_RELAXED)
#define ft_mb()                 __atomic_thread_fence(__ATOMIC_SEQ_CST)

static inline void ft_flag_set(uint32_t *p, uint32_t bits)
{
    __atomic_fetch_or(p, bits, __ATOMIC_SEQ_CST);
}

static inline void ft_flag_clear(uint32_t *p, uint32_t bits)
{
    __atomic_fetch_and(p, ~bits, __ATOMIC_SEQ_CST);
}

#endif

#endif /* FT_ATOMIC_H */
