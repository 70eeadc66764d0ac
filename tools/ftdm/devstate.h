/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * devstate.h - the device core's state as bytes: what the secondary's
 * ftdm starts from, taken from the primary's where its copy is made
 * (the guest suspended, no device write on its way: ctl.h's freeze).
 *
 * Version 1: "XFTDMDEV", u32 version, u32 the number of values, then
 * the values, u64 each, in vio_visit's order, of the fields both copies
 * share (its host fields, pending interrupts, are not sent).  Little-
 * endian.  The functions plugged in must be the same on both sides: the
 * values name them (vio_visit checks).  The bytes come from the peer:
 * the loader trusts nothing in them.
 */
#ifndef FTDM_DEVSTATE_H
#define FTDM_DEVSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "vio.h"

#define FTDM_DEVSTATE_VERSION   1u
#define FTDM_DEVSTATE_FIELDS    512u
#define FTDM_DEVSTATE_MAX       (16u + 8u * FTDM_DEVSTATE_FIELDS)

/* The bytes of 'bus' into 'buf' (FTDM_DEVSTATE_MAX): their length. */
size_t ftdm_devstate_save(struct vio_bus *bus, uint8_t *buf);

/*
 * Load 'len' bytes into 'bus'.  0; -EPROTO: not such bytes, or cut
 * short; -EPROTONOSUPPORT: another version; -EINVAL: they name other
 * functions than 'bus' has, or hold values no guest could have brought
 * them to (the bus is then partly loaded: not to be used).  'err' says
 * which.
 */
int ftdm_devstate_load(struct vio_bus *bus, const uint8_t *buf, size_t len,
                       char *err, size_t errlen);

#endif /* FTDM_DEVSTATE_H */
