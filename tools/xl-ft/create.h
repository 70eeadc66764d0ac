/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * create.h - an FT guest's life on Xen begins here: `xl-ft check CFG`
 * says whether its xl configuration is fit for FT, naming each line to
 * change; `xl-ft create CFG` checks it, creates the guest paused
 * (xl create -p), starts ftdm for its devices as the file's ftdm_* keys
 * say, and unpauses it once ftdm serves (hvmloader looks for devices
 * once, at boot).
 */
#ifndef XLFT_CLI_CREATE_H
#define XLFT_CLI_CREATE_H

/* Exit statuses: 0 done, 1 refused or failed (said on stderr). */
int create_check(const char *cfg);
int create_run(const char *cfg);

#endif /* XLFT_CLI_CREATE_H */
