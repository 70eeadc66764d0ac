/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_xen_config_allow.h - may a Xen secondary restore the guest
 * configuration its peer sent?  A libxl configuration decides what
 * runs and what is opened in dom0 (the device model and its arguments,
 * a bootloader, kernel and firmware files, hotplug scripts, disks and
 * their backends, display and serial back ends, passthrough hardware),
 * so the peer's may not choose any of it: every such setting must be
 * the one this host's own configuration of the guest gives.  The rest
 * (memory, vCPUs, timers, the guest's identity) comes from the peer, as
 * it must for the copy to be the guest.
 *
 * Both are libxl's JSON of a libxl_domain_config, as xl create --dryrun
 * writes it and libxl_domain_config_to_json makes it.  A pure function
 * of the two texts: no Xen needed, unit-tested and fuzzed.
 */
#ifndef XLFT_XEN_CONFIG_ALLOW_H
#define XLFT_XEN_CONFIG_ALLOW_H

#include <stddef.h>

/*
 * 0 if 'peer' (n bytes) is allowed next to 'local' (ln bytes).
 * -EPERM: a setting differs; 'err' names the first one, the peer's value
 * and this host's.  -EBADMSG: 'peer' is not one JSON object with plain
 * member names nested at most XLFT_JSON_DEPTH deep; -EMSGSIZE: it is
 * longer than a copy's configuration may be (XLFT_COPY_CONFIG_MAX);
 * -EINVAL: 'local' is not such an object.
 */
int xlft_xen_config_allowed(const char *peer, size_t n, const char *local,
                            size_t ln, char *err, size_t errlen);

#endif /* XLFT_XEN_CONFIG_ALLOW_H */
