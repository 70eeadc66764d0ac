/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ft_abi.h - the xenft ring ABI: the only interface shared by the
 * hypervisor side (Xen with xen-patches, or ftvm) and dom0 (ftd).
 *
 * A ring is one header page followed by a power-of-two data area of
 * log records (hvm/core/FORMAT.md).  It has exactly one producer and
 * one consumer:
 *
 *   record ring (FT_RING_RECORD): the hypervisor produces, ftd consumes;
 *   replay ring (FT_RING_REPLAY): ftd produces, the hypervisor consumes.
 *
 * The hypervisor side owns the memory and initialises the header; ftd
 * maps it and checks magic, version and sizes before touching it.
 *
 * Indices are free-running 32-bit byte counters; the offset in the data
 * area is index & (data_size - 1).  prod - cons (mod 2^32) is the number
 * of bytes held and never exceeds data_size.  The producer publishes only
 * whole records (prod moves past the last byte of a record, never into
 * it), so the consumer never sees half a record.  A record may straddle
 * the end of the data area; its bytes simply continue at offset 0.
 *
 * Full ring: the producer sets FT_RING_F_STALLED and stops (the vCPU
 * pauses); the consumer, after freeing space, sees the flag and notifies
 * it.  Nothing is ever overwritten or dropped.  Empty replay ring: the
 * consumer sets FT_RING_F_WAITING and the producer notifies after the
 * next publish.  Each flag is set, then the condition re-checked after a
 * full barrier, so no wake-up is lost.
 *
 * Each field is written by one side only (noted per field).  A reader
 * never trusts a value written by the other side without checking it:
 * an impossible index is FT_EPROTO, never a wild access.
 *
 * Versioning: FT_ABI_VERSION changes whenever this layout or its rules
 * change.  A side that finds another version refuses the ring with
 * FT_EPROTONOSUPPORT; there is no partial compatibility.
 *
 * Exported to dom0: the layout both halves share (ABI.md, "What dom0
 * sees").
 */
#ifndef FT_ABI_H
#define FT_ABI_H

#include "ft_base.h"

#define FT_RING_MAGIC       0x52544658u   /* "XFTR" in memory order */
#define FT_ABI_VERSION      2u

#define FT_RING_HDR_SIZE    4096u         /* one page */
#define FT_RING_MIN_DATA    (128u << 10)  /* holds the largest record */
#define FT_RING_MAX_DATA    (1u << 30)
#define FT_RING_DEFAULT_DATA (1u << 20)   /* 1 MiB: ~1 min of idle guest */

#define FT_RING_RECORD      1u
#define FT_RING_REPLAY      2u

/*
 * What the count of an execution point counts (ft_ring_hdr.counter).
 * A log replays only where the same thing is counted on the same kind
 * of CPU (ft_ring_hdr.cpu): counts of another are not comparable.
 */
#define FT_COUNTER_NONE     0u  /* nothing: the log cannot be replayed */
#define FT_COUNTER_BRANCHES 1u  /* guest's retired conditional branches */
#define FT_COUNTER_STEPS    2u  /* guest's instructions, one trap each */
#define FT_COUNTER_MAX      2u

#define FT_CPU_UNKNOWN      0u  /* not set by the owner: refused */
#define FT_CPU_INTEL        1u
#define FT_CPU_AMD          2u
#define FT_CPU_FTVM         3u  /* ftvm's software CPU */
#define FT_CPU_MAX          3u

/* Flag bits in ft_ring_hdr.flags (set and cleared atomically). */
#define FT_RING_F_STALLED   (1u << 0)  /* producer waits for space */
#define FT_RING_F_WAITING   (1u << 1)  /* consumer waits for records */
#define FT_RING_F_DIVERGED  (1u << 2)  /* replay stopped: see diag */
#define FT_RING_F_BADLOG    (1u << 3)  /* replay stopped: malformed log */
#define FT_RING_F_GOLIVE    (1u << 4)  /* ftd: drain the ring, go live */
#define FT_RING_F_ALL       0x1fu

/* Why replay stopped (ft_diag.reason). */
#define FT_DIAG_NONE        0u
#define FT_DIAG_KIND        1u  /* the vCPU did another kind of event */
#define FT_DIAG_POINT       2u  /* same kind at another execution point */
#define FT_DIAG_PARAM       3u  /* same kind and point, other port/gpa/... */
#define FT_DIAG_HASH        4u  /* state hash differs at a sync record */
#define FT_DIAG_MALFORMED   5u  /* the log itself is malformed */

/* Which parameter differs (ft_diag.param) for FT_DIAG_PARAM. */
#define FT_DIAG_P_NONE      0u
#define FT_DIAG_P_PORT      1u
#define FT_DIAG_P_SIZE      2u
#define FT_DIAG_P_GPA       3u
#define FT_DIAG_P_INDEX     4u  /* MSR index */
#define FT_DIAG_P_SEED      5u  /* RDSEED (1) or RDRAND (0) */
#define FT_DIAG_P_ID        6u  /* output id */
#define FT_DIAG_P_DMA       7u  /* DMA could not be applied at gpa */

/*
 * What replay saw when it stopped.  "log" is what the record says,
 * "vcpu" what the replayed vCPU actually did.  For FT_DIAG_PARAM the
 * values are the port, gpa, MSR index, size or output id that differ;
 * for FT_DIAG_HASH they are the two state hashes.
 */
struct ft_diag {
    ft_u64 seq;              /* sequence number of the record (1-based) */
    uint32_t reason;         /* FT_DIAG_* */
    int32_t error;           /* FT_E* code the replayer returned */
    uint8_t log_kind;        /* FT_K_* (0xff: none) */
    uint8_t vcpu_kind;
    uint8_t param;           /* FT_DIAG_P_*: what log_val/vcpu_val are */
    uint8_t pad[5];
    struct ft_point log_pt;
    struct ft_point vcpu_pt;
    ft_u64 log_val;
    ft_u64 vcpu_val;
};

struct ft_ring_hdr {
    /* Written once by the owner (hypervisor side) before magic. */
    uint32_t magic;          /* FT_RING_MAGIC, written last */
    uint32_t abi_version;    /* FT_ABI_VERSION */
    uint32_t log_version;    /* FT_LOG_VERSION of the records */
    uint32_t role;           /* FT_RING_RECORD or FT_RING_REPLAY */
    uint32_t hdr_size;       /* FT_RING_HDR_SIZE */
    uint32_t data_size;      /* bytes, power of two */
    uint32_t counter;        /* FT_COUNTER_* of the points */
    uint32_t cpu;            /* FT_CPU_* that counted them */
    uint8_t pad0[32];

    /* Producer's cache line. */
    uint32_t prod;           /* free-running byte index */
    uint32_t pad1;
    ft_u64 prod_seq;         /* sequence number of the last record */
    uint8_t pad2[48];

    /* Consumer's cache line. */
    uint32_t cons;           /* free-running byte index */
    uint32_t pad3;
    ft_u64 cons_seq;         /* sequence number of the last consumed */
    uint8_t pad4[48];

    /* Written by ftd only. */
    ft_u64 ack_seq;          /* highest record held by the secondary */
    uint8_t pad5[56];

    uint32_t flags;          /* FT_RING_F_*, either side */
    uint32_t pad6;
    struct ft_diag diag;     /* written by the replayer before a flag */
};

/* Offsets are ABI: a change to any of them needs a new FT_ABI_VERSION. */
#define FT_ABI_CHECK(name, cond) \
    typedef char ft_abi_check_##name[(cond) ? 1 : -1]
FT_ABI_CHECK(point, sizeof(struct ft_point) == 24);
FT_ABI_CHECK(diag, sizeof(struct ft_diag) == 88);
FT_ABI_CHECK(counter, offsetof(struct ft_ring_hdr, counter) == 24);
FT_ABI_CHECK(prod, offsetof(struct ft_ring_hdr, prod) == 64);
FT_ABI_CHECK(cons, offsetof(struct ft_ring_hdr, cons) == 128);
FT_ABI_CHECK(ack, offsetof(struct ft_ring_hdr, ack_seq) == 192);
FT_ABI_CHECK(flags, offsetof(struct ft_ring_hdr, flags) == 256);
FT_ABI_CHECK(hdr, sizeof(struct ft_ring_hdr) == 352);

#endif /* FT_ABI_H */
