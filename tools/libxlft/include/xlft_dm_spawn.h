/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_dm_spawn.h - starting ftdm, the device model of an FT guest, for
 * a domain that exists, paused: `xl-ft create` for a new guest, ftd for
 * the copy it restores on the secondary.  ftdm runs in a session of its
 * own (it outlives its starter and ends with the domain), its output in
 * a log named for the guest.
 */
#ifndef XLFT_DM_SPAWN_H
#define XLFT_DM_SPAWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "xlft_xen_cfg_file.h"

#define XLFT_DM_SERVE_MS 30000  /* how long ftdm may take to serve */

/* /var/log/xen/ftdm-NAME.log (/var/log without /var/log/xen). */
void xlft_dm_log_path(const char *name, char *path, size_t len);

/*
 * Start ftdm (the one beside this program, else on PATH) for 'domid'
 * with the ftdm keys of 'f', and for a copy '--copy STATE'; wait until
 * it says it serves.  Its pid, or -1 with 'err' naming the domain and
 * the log, ftdm's last words appended; no ftdm is left then (one that
 * did not serve in time is killed).
 */
pid_t xlft_dm_spawn(const struct xlft_xen_cfg_file *f, uint32_t domid,
                    const char *copy_state, const char *log, char *err,
                    size_t errlen);

#endif /* XLFT_DM_SPAWN_H */
