// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_devstate.c - libFuzzer target: the device state a copy's ftdm
 * loads (tools/ftdm/devstate.h), which comes from the other host in the
 * copy stream.  A refusal always says why; an accepted state saves back
 * to the same bytes, and the devices then take a guest's accesses (a
 * BAR read and write, a notify of each queue) without harm.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devstate.h"
#include "fakeram.h"
#include "vio.h"

#define RAM (1u << 16)

static uint8_t ram[RAM];
static struct fakeram fram = { ram, RAM };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct vio_host h = {
        .opaque = &fram, .ram_read = fakeram_read,
        .ram_write = fakeram_write, .ram_ok = fakeram_ok,
    };
    static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
    static uint8_t back[FTDM_DEVSTATE_MAX];
    struct vio_bus *bus = vio_bus_new(&h);
    char msg[200] = "";
    uint32_t base;
    uint64_t v;

    if (!bus || vio_add_net(bus, 1, 0xfeb00000u, mac) ||
        vio_add_blk(bus, 2, 0xfeb04000u, 64, "fuzz"))
        abort();
    memset(ram, 0, sizeof(ram));
    if (ftdm_devstate_load(bus, data, size, msg, sizeof(msg))) {
        if (!msg[0])
            abort();
    } else {
        if (ftdm_devstate_save(bus, back) != size ||
            memcmp(back, data, size))
            abort();
        for (unsigned int slot = 1; slot <= 2; slot++) {
            if (!vio_bar_at(bus, slot, &base))
                continue;
            vio_mmio_read(bus, base, 4, &v);
            vio_mmio_write(bus, base + 0x3000, 2, 0);
            vio_mmio_write(bus, base + 0x3004, 2, 1);
        }
        vio_go_live(bus);
    }
    vio_bus_free(bus);
    return 0;
}
