/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_xen_cfg_file.h - is the xl configuration file of a guest fit for
 * FT, before the guest exists?  The same rules as xlft_xen_config.h
 * checks of a running domain, and those of its devices: no network or
 * disk device of QEMU's or of Xen's PV drivers (they write guest memory
 * behind the log); ftdm serves them, as the file's ftdm_* keys say.
 * The file is read with libxlutil, xl's own parser; each refusal names
 * the file, the line of the setting when it is there, and what to write.
 *
 * The keys for ftdm (xl ignores keys it does not know):
 *   ftdm_tap = "NAME"      the tap device of the guest's virtio-net
 *   ftdm_bridge = "BR"     the bridge to add it to
 *   ftdm_mac = "MAC"       virtio-net's MAC address
 *   ftdm_disk = "PATH"     the file or block device of its virtio-blk
 */
#ifndef XLFT_XEN_CFG_FILE_H
#define XLFT_XEN_CFG_FILE_H

#include <stddef.h>

struct xlft_xen_cfg_file {
    char name[128];             /* name = */
    char tap[16];               /* "" when not given */
    char bridge[16];
    char mac[18];
    char disk[4096];
};

/*
 * 0 if the file at 'path' describes a guest fit for FT, its name and
 * ftdm keys in 'out'.  -EINVAL if not: 'err' lists every refusal, one
 * per line ("PATH:LINE: ...").  -EBADMSG: it does not parse ('err'
 * says what xl would).  -ENOENT and other -errno: it cannot be read.
 */
int xlft_xen_cfg_file_check(const char *path, struct xlft_xen_cfg_file *out,
                            char *err, size_t errlen);

#endif /* XLFT_XEN_CFG_FILE_H */
