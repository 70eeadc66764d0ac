/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_xen_config.h - is a running Xen domain fit for FT?  Its libxl
 * configuration must give it one vCPU, HVM with shadow paging,
 * emulated TSC, no viridian, no PV drivers, no network or disk device
 * of QEMU's (ftdm serves those) and no passthrough (xen-hooks.md): the
 * rest of the guest's inputs then go through the hooks Xen records.
 * xlft_xen_cfg_file.h checks the same of a configuration file.
 */
#ifndef XLFT_XEN_CONFIG_H
#define XLFT_XEN_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/*
 * 0 if 'domid' is fit.  -EINVAL if not: 'err' lists every refusal with
 * the xl configuration setting to change.  -ESRCH: no such domain;
 * other negative errno values: libxl could not be asked.
 */
int xlft_xen_config_check(uint32_t domid, char *err, size_t errlen);

#endif /* XLFT_XEN_CONFIG_H */
