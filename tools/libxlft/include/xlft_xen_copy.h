/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_xen_copy.h - a secondary made from a running guest, without new
 * libxl code: libxl_domain_suspend LIVE into a file descriptor, then
 * libxl_domain_resume with suspend_cancel so that the primary runs on
 * (as `xl save -c` does); on the other host libxl_domain_create_restore
 * of that stream, left paused.  The configuration travels first, taken
 * from the running guest as xl migrate takes it; the state of its ftdm
 * devices last, taken with the guest suspended.  Format: xlft_copy.h.
 *
 * 'fd' is a connected socket or a file; a socket that makes no progress
 * for XLFT_COPY_STALL_S seconds is shut down, which ends the copy.
 * Errors are negative errno values; 'err' names the domain and 'peer'.
 * libxl logs its own details on stderr.
 */
#ifndef XLFT_XEN_COPY_H
#define XLFT_XEN_COPY_H

#include <stddef.h>
#include <stdint.h>

#define XLFT_COPY_STALL_S 30
#define XLFT_XEN_COPY_DEV_MAX 8192u     /* bytes of device state */
/* Added to the copy's name where the guest's own is taken. */
#define XLFT_COPY_SUFFIX "--secondary"

/*
 * Called while the guest is suspended and the copy is consistent with
 * it, before it resumes (recording starts here): the state of its
 * devices into 'dev' (XLFT_XEN_COPY_DEV_MAX bytes), its length in
 * '*dev_len' (left 0: it has no ftdm).  0 or -errno with 'err'.
 */
typedef int xlft_copy_point_fn(void *arg, uint8_t *dev, uint32_t *dev_len,
                               char *err, size_t errlen);

/*
 * Send a copy of 'domid' into 'fd'; the guest runs on here whatever
 * happens, unless it cannot be resumed (then 'err' says so).
 */
int xlft_xen_copy_send(uint32_t domid, int fd, const char *peer,
                       xlft_copy_point_fn *at_copy, void *arg, char *err,
                       size_t errlen);

/*
 * Create the copy that 'fd' carries, paused, into '*domid', under the
 * guest's name, or with XLFT_COPY_SUFFIX if a domain here has it.
 * 'local' is this host's configuration of the guest (libxl JSON,
 * xlft_xen_local.h): a peer's configuration that differs from it in
 * anything that runs or opens something in dom0 is refused (-EPERM,
 * xlft_xen_config_allow.h) before anything is made.  The state of its
 * devices into 'dev' (XLFT_XEN_COPY_DEV_MAX bytes), its length in
 * '*dev_len' (0: no ftdm).  On failure nothing is left behind: a
 * half-restored domain is destroyed.
 */
int xlft_xen_copy_recv(int fd, const char *peer, const char *local,
                       uint32_t *domid, uint8_t *dev, uint32_t *dev_len,
                       char *err, size_t errlen);

#endif /* XLFT_XEN_COPY_H */
