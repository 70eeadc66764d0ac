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
 * compiler's builtins.  The 64-bit fields (sequence numbers) have their
 * own accessors: on i386 without the FPU or SSE (the hypervisor's rules
 * for this code) the only atomic 64-bit access is cmpxchg8b.
 *
 * Exported to dom0 only because ft_ring.h's inline producer path needs
 * it (ftd produces the replay ring): dom0 includes ft_ring.h, not this.
 */
#ifndef FT_ATOMIC_H
#define FT_ATOMIC_H

#if defined(__XEN__)

#include <xen/lib.h>
#include <asm/atomic.h>
#include <asm/system.h>

#if defined(CONFIG_X86)
/*
 * x86 keeps loads and stores in order with respect to a later store and
 * to an earlier load: acquire and release only restrain the compiler.
 */
#define ft_acquire_fence()      barrier()
#define ft_release_fence()      barrier()
#else
#define ft_acquire_fence()      smp_mb()
#define ft_release_fence()      smp_mb()
#endif

#define ft_load_acquire(p) ({                   \
    typeof(*(p)) v_ = read_atomic(p);           \
    ft_acquire_fence();                         \
    v_;                                         \
})
#define ft_store_release(p, v) do {             \
    ft_release_fence();                         \
    write_atomic(p, v);                         \
} while ( 0 )
#define ft_load_relaxed(p)      read_atomic(p)
#define ft_store_relaxed(p, v)  write_atomic(p, v)
#define ft_mb()                 smp_mb()

#define ft_load64(p)            read_atomic(p)
#define ft_store64(p, v)        write_atomic(p, v)
#define ft_load64_acquire(p)    ft_load_acquire(p)
#define ft_store64_release(p, v) ft_store_release(p, v)

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

#if defined(__i386__)
/* cmpxchg8b, a full barrier: read by swapping 0 for 0, write by loop. */
#define ft_load64(p)            __sync_val_compare_and_swap((p), 0, 0)
#define ft_load64_acquire(p)    ft_load64(p)
#define ft_store64(p, v) do {                                       \
    uint64_t o_ = *(volatile uint64_t *)(p), c_;                    \
    while ( (c_ = __sync_val_compare_and_swap((p), o_, (v))) != o_ ) \
        o_ = c_;                                                    \
} while ( 0 )
#define ft_store64_release(p, v) ft_store64(p, v)
#else
#define ft_load64(p)            ft_load_relaxed(p)
#define ft_store64(p, v)        ft_store_relaxed(p, v)
#define ft_load64_acquire(p)    ft_load_acquire(p)
#define ft_store64_release(p, v) ft_store_release(p, v)
#endif

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
