/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_xen.h - ftd's xen backend: the FT domctl (XEN_DOMCTL_ft_op of
 * xen-patches) issued through libxencall, so that it builds against
 * Debian's stock libxen-dev and runs on any 4.17 hypervisor; on one
 * without the series every operation fails with a message saying so.
 * The twin of xlft_ftvm.h.
 *
 * Errors are negative errno values; 'err' gets a message naming the
 * domain.
 */
#ifndef XLFT_XEN_H
#define XLFT_XEN_H

#include <stddef.h>
#include <stdint.h>

#include <xenforeignmemory.h>

#include "ft_ring.h"

struct xlft_xen;

/* What XEN_DOMCTL_ft_op reports; 'state' is one of XLFT_XEN_FT_*. */
struct xlft_xen_ft_status {
    uint32_t state;
    uint32_t nr_frames;     /* frames of the ring, header included */
    uint32_t port;          /* the Xen-bound event channel, 0 when off */
    uint32_t abi_version;   /* of the ring layout (hvm/core/ft_abi.h) */
    uint32_t log_version;   /* of the records */
    uint64_t seq;           /* last record produced or consumed */
    int32_t stopped;        /* 0, or -errno: why the vCPU was stopped */
    uint32_t counter;       /* XLFT_XEN_COUNTER_* */
    uint64_t count;         /* the vCPU's count now (0: a Xen before it) */
    uint64_t log_id;        /* which log, never twice per boot; 0: off */
};

/* What the count of the ring's execution points counts. */
#define XLFT_XEN_COUNTER_NONE      0  /* nothing (unsafe lab mode) */
#define XLFT_XEN_COUNTER_BRANCHES  1  /* retired conditional branches */
#define XLFT_XEN_COUNTER_STEPS     2  /* instructions, by single-stepping */

/*
 * enable_record flag, for test hypervisors only: record on a CPU with no
 * usable branch counter (AMD, emulated CPUs).  The points carry no count
 * and the log cannot be replayed exactly.
 */
#define XLFT_XEN_FT_UNSAFE_NO_COUNTER  (1u << 0)
/*
 * enable_record and enable_replay: count the guest's instructions by
 * single-stepping it (exact, no PMU needed, an exit per instruction): what
 * an AMD host counts, where Xen has no branch counter.
 */
#define XLFT_XEN_FT_STEPS              (1u << 1)

#define XLFT_XEN_FT_OFF     0
#define XLFT_XEN_FT_RECORD  1
#define XLFT_XEN_FT_REPLAY  2
#define XLFT_XEN_FT_LIVE    3   /* replayed all after go-live, runs alone */

/* Open libxencall, libxenforeignmemory and libxenevtchn. */
int xlft_xen_open(struct xlft_xen **x, char *err, size_t errlen);
void xlft_xen_close(struct xlft_xen *x);

/*
 * XEN_DOMCTL_ft_status for 'domid'.  -ENOSYS: the hypervisor has no FT
 * support; -EOPNOTSUPP: it has the series but not CONFIG_HVM_FT;
 * -ESRCH: no such domain.
 */
int xlft_xen_ft_status(struct xlft_xen *x, uint32_t domid,
                       struct xlft_xen_ft_status *st, char *err,
                       size_t errlen);

/*
 * Start recording into a new ring of 'ring_data' bytes (0: 1 MiB, at
 * most 64 MiB), with 'flags' XLFT_XEN_FT_*.  -EDOM: the guest is unfit
 * (vCPUs, paging, CPUID, TSC mode, viridian, passthrough, PV interfaces:
 * 'err' names the setting when it can tell); -EINVAL: no vCPU yet, or a
 * bad ring size; -E2BIG: a ring above 64 MiB; -ENODEV: the host cannot
 * count branches (or, with XLFT_XEN_FT_STEPS, steps) or runs apicv;
 * -EBUSY: its counter is taken (vPMU, NMI watchdog); -EEXIST: FT is on.
 */
int xlft_xen_ft_enable_record(struct xlft_xen *x, uint32_t domid,
                              uint32_t ring_data, uint32_t flags,
                              struct xlft_xen_ft_status *st, char *err,
                              size_t errlen);
/*
 * On the secondary host, a paused copy of the primary (as it was when
 * recording started) replays from a new ring, counting what the log
 * counts: 'flags' XLFT_XEN_FT_STEPS for steps, 0 for branches.  -ENODEV:
 * the host cannot (branches need Intel VT-x, steps a vendor that
 * single-steps); -EBUSY: the copy is not paused.
 */
int xlft_xen_ft_enable_replay(struct xlft_xen *x, uint32_t domid,
                              uint32_t ring_data, uint32_t flags,
                              struct xlft_xen_ft_status *st, char *err,
                              size_t errlen);
/*
 * Set the TSC mode of 'domid' to always emulate (XEN_DOMCTL_settscinfo),
 * keeping its TSC's frequency and offset.  -EBUSY: FT is on, and Xen
 * refuses to change the mode under it.
 */
int xlft_xen_set_tsc_emulated(struct xlft_xen *x, uint32_t domid,
                              char *err, size_t errlen);
/* Replay what the ring holds, then run live (state becomes "live"). */
int xlft_xen_ft_go_live(struct xlft_xen *x, uint32_t domid, char *err,
                        size_t errlen);
/*
 * What a device model does for DMA into a protected guest
 * (XEN_DMOP_ft_write): Xen writes the 'len' bytes (at most 64 KiB) at
 * 'gpa' with the vCPU paused and, while it records the guest, logs them
 * at that point.  While the record ring is too full for them the write
 * is tried again for XLFT_XEN_DM_WRITE_WAIT_S, then fails with -EBUSY,
 * nothing written.  A hypervisor without xen-patches answers
 * -EOPNOTSUPP.
 */
#define XLFT_XEN_DM_WRITE_WAIT_S 5
#define XLFT_XEN_DM_WRITE_MAX 65536u   /* bytes of one write */
int xlft_xen_dm_write(struct xlft_xen *x, uint32_t domid, uint64_t gpa,
                      const void *data, uint32_t len, char *err,
                      size_t errlen);

/* Stop recording or replaying; the hypervisor frees the ring. */
int xlft_xen_ft_disable(struct xlft_xen *x, uint32_t domid, char *err,
                        size_t errlen);

/* The Xen-owned ring, mapped into dom0 with acquire_resource. */
struct xlft_xen_ring {
    xenforeignmemory_resource_handle *res;
    void *mem;
    uint32_t size;
    struct ft_ring ring;
};

/*
 * Map the ring 'st' describes and check it for 'role' (FT_RING_RECORD or
 * FT_RING_REPLAY): -EPROTO or -EPROTONOSUPPORT if it is not a ring this
 * side reads.
 */
int xlft_xen_ring_map(struct xlft_xen *x, uint32_t domid,
                      const struct xlft_xen_ft_status *st, uint32_t role,
                      struct xlft_xen_ring *r, char *err, size_t errlen);
void xlft_xen_ring_unmap(struct xlft_xen *x, struct xlft_xen_ring *r);

/*
 * The ring's Xen-bound event channel (st->port: the guest's end, Xen its
 * consumer), bound to a dom0 port of this handle.  Unbind it before the
 * FT domctl's disable, which frees Xen's end.
 */
struct xlft_xen_evtchn {
    uint32_t domid;
    uint32_t remote;            /* the guest's port, Xen-bound */
    int local;                  /* dom0's port, -1 when unbound */
};

/* Bind 'port' of 'domid'; 'err' names both when it cannot. */
int xlft_xen_evtchn_bind(struct xlft_xen *x, uint32_t domid, uint32_t port,
                         struct xlft_xen_evtchn *e, char *err,
                         size_t errlen);
void xlft_xen_evtchn_unbind(struct xlft_xen *x, struct xlft_xen_evtchn *e);

/* Signal Xen: the ring has moved on dom0's side. */
int xlft_xen_evtchn_notify(struct xlft_xen *x,
                           const struct xlft_xen_evtchn *e);

/* The handle's file descriptor, for poll(): readable once Xen signals. */
int xlft_xen_evtchn_fd(struct xlft_xen *x);

/*
 * Take one notification without blocking and unmask its port again: 1
 * if it was for 'e', 0 if none was pending, -EPROTO if it came for
 * another port, or -errno.
 */
int xlft_xen_evtchn_pending(struct xlft_xen *x,
                            const struct xlft_xen_evtchn *e);

/* "off", "record", "replay" or "unknown". */
const char *xlft_xen_ft_state_name(uint32_t state);

#endif /* XLFT_XEN_H */
