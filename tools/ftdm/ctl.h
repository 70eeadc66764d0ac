/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ctl.h - ftdm's side of ftd's word while the guest's copy is made
 * (xlft_dm_ctl.h): one connection at a time; freeze on its word, thaw
 * when it closes, however it closes.
 */
#ifndef FTDM_CTL_H
#define FTDM_CTL_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

struct ftdm_ctl;

struct ftdm_ctl_ops {
    void *opaque;
    void (*freeze)(void *opaque);
    void (*thaw)(void *opaque);
    /* The devices' state into 'buf' (XLFT_DM_STATE_MAX): its length. */
    size_t (*state)(void *opaque, uint8_t *buf);
};

int ftdm_ctl_open(struct ftdm_ctl **c, uint32_t domid,
                  struct event_base *base, const char *dir,
                  const struct ftdm_ctl_ops *ops, char *err, size_t errlen);
/* Thaws first if frozen. */
void ftdm_ctl_close(struct ftdm_ctl *c);

#endif /* FTDM_CTL_H */
