/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_dm_ctl.h - ftd's word to the device model of a Xen guest (ftdm)
 * while it makes the guest's copy on the secondary, version 1.
 *
 * The guest's RAM goes to the secondary while it runs (log-dirty), then
 * once more with it suspended; recording starts once the guest resumes.
 * A device model that wrote guest RAM between the last pass and the
 * start of recording (a disk read completing, a frame received) would
 * leave the copy without bytes the primary has, and no log to bring
 * them.  So ftd freezes the device model before the copy starts: from
 * its answer on, nothing is written into guest RAM except by the
 * guest's own accesses, which a suspended guest makes none of;
 * completions and received frames wait.  Once the guest is suspended,
 * ftd asks for the devices' state (the copy's ftdm starts from it);
 * closing the connection thaws the device model, so that an ftd that
 * dies never leaves a guest's devices frozen.
 *
 * One SOCK_SEQPACKET connection to XLFT_ACK_WAKE_DIR/dm-DOMID, one
 * message each way per step:
 *   "freeze 1" -> "frozen", or "refused: WHY" (another version, say)
 *   "state"    -> the state: "XFTDMDEV" and its bytes (ftdm's
 *                 devstate.h), at most XLFT_DM_STATE_MAX
 */
#ifndef XLFT_DM_CTL_H
#define XLFT_DM_CTL_H

#include <stddef.h>
#include <stdint.h>

#define XLFT_DM_CTL_VERSION 1
#define XLFT_DM_STATE_MAX   8192u
#define XLFT_DM_CTL_MS      5000    /* the device model answers within */

/* The device model's side: the listening socket (non-blocking), or
 * -errno with 'err'; close with xlft_dm_ctl_close. */
int xlft_dm_ctl_listen(const char *dir, uint32_t domid, char *err,
                       size_t errlen);
void xlft_dm_ctl_close(const char *dir, uint32_t domid, int fd);

/*
 * ftd's side.  Freeze the device model of 'domid': the connection, to
 * keep open while frozen, or -errno with 'err': -ENOENT when no device
 * model listens (the guest has none of ftdm's devices: nothing to
 * freeze), -ETIMEDOUT when it did not answer within XLFT_DM_CTL_MS,
 * -EPROTO when it refused.
 */
int xlft_dm_freeze(const char *dir, uint32_t domid, char *err,
                   size_t errlen);
/* The devices' state into 'buf' (XLFT_DM_STATE_MAX): its length, or
 * -errno with 'err'. */
int xlft_dm_state(int fd, uint32_t domid, uint8_t *buf, char *err,
                  size_t errlen);

#endif /* XLFT_DM_CTL_H */
