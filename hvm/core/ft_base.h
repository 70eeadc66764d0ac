/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ft_base.h - types and error codes shared by every part of hvm/core.
 *
 * hvm/core is compiled into the Xen hypervisor and into user space
 * unchanged, so it takes its integer types from whichever environment
 * it is in and defines its own error codes instead of using <errno.h>.
 * The codes have the values of the Linux/Xen errno they are named after,
 * negated, so a Xen hook can hand them up as they are.
 *
 * Exported to dom0: the types and codes of the other exported headers,
 * and ft_strerror.
 */
#ifndef FT_BASE_H
#define FT_BASE_H

#if defined(__XEN__)
#include <xen/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

/*
 * 64-bit fields shared between address spaces are 8-byte aligned on
 * i386 too (where uint64_t alone is 4-byte aligned in a struct), so the
 * layout and the atomicity of their accesses do not depend on the
 * compiler's target.  Xen's public headers do the same.
 */
typedef uint64_t ft_u64 __attribute__((__aligned__(8)));

/* For the few functions on the record path that must fold per kind. */
#define ft_always_inline inline __attribute__((__always_inline__))

#define FT_OK            0
#define FT_EAGAIN      (-11)   /* nothing to do yet: wait and retry */
#define FT_EINVAL      (-22)   /* bad argument from the caller */
#define FT_EPROTO      (-71)   /* shared index or header is inconsistent */
#define FT_EBADMSG     (-74)   /* malformed record */
#define FT_EPROTONOSUPPORT (-93) /* ABI or format version not supported */
#define FT_EFULL      (-105)   /* ENOBUFS: ring full, pause and retry */
/* Not errno values: codes only the record/replay engine has. */
#define FT_EMORE     (-4001)   /* record incomplete: more bytes needed */
#define FT_EDIVERGE  (-4002)   /* the replayed vCPU left the recorded path */

/*
 * An execution point: where the vCPU was when an event happened.
 * 'count' is the progress counter (retired conditional branches on Xen,
 * retired instructions on ftvm); the core treats it as opaque and only
 * requires that it never goes backwards.  'rip' and 'rcx' disambiguate
 * points with the same count (rcx: iterations of a REP instruction).
 */
struct ft_point {
    ft_u64 count;
    ft_u64 rip;
    ft_u64 rcx;
};

const char *ft_strerror(int err);

#endif /* FT_BASE_H */
