// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftdm sees the device core through vio.h, libxlft's xen backend, and
 * its own headers.
 *
 * layer: tools/ftdm
 */
#include "ioreq.h"
#include "ram.h"
#include "vio.h"
#include "xlft_xen.h"

bool probe(struct vio_bus *bus)
{
    uint32_t base;

    return vio_bar_at(bus, 1, &base);
}
