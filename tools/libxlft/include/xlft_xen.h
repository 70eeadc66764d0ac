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

struct xlft_xen;

/* What XEN_DOMCTL_ft_op reports; 'state' is one of XLFT_XEN_FT_*. */
struct xlft_xen_ft_status {
    uint32_t state;
    uint32_t nr_frames;     /* frames of the ring, header included */
    uint32_t port;          /* the Xen-bound event channel, 0 when off */
    uint32_t abi_version;   /* of the ring layout (hvm/core/ft_abi.h) */
    uint32_t log_version;   /* of the records */
    uint64_t seq;           /* last record produced or consumed */
};

#define XLFT_XEN_FT_OFF     0
#define XLFT_XEN_FT_RECORD  1
#define XLFT_XEN_FT_REPLAY  2

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

/* "off", "record", "replay" or "unknown". */
const char *xlft_xen_ft_state_name(uint32_t state);

#endif /* XLFT_XEN_H */
