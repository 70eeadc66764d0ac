// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device core stands alone: its own headers, the C library, and no
 * hypervisor's, so that ftvm and Xen's device model link it alike.
 *
 * layer: hvm/devices
 */
#include "vio.h"
#include "vio_impl.h"

int probe(struct vio_bus *bus)
{
    return vio_pio_claims(0xcf8) && bus != NULL;
}
