// SPDX-License-Identifier: GPL-2.0-only
/*
 * devstate.c - the device core's shared fields as bytes (devstate.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "devstate.h"

#define MAGIC   "XFTDMDEV"
#define HDR     16u

struct walk {
    uint64_t *v;                /* values, FTDM_DEVSTATE_FIELDS at most */
    unsigned int n;             /* shared fields visited */
    bool load;
};

static void field(void *ctx, const char *name, uint64_t *val, bool host)
{
    struct walk *w = ctx;

    (void)name;
    if (host)
        return;
    if (w->n < FTDM_DEVSTATE_FIELDS) {
        if (w->load)
            *val = w->v[w->n];
        else
            w->v[w->n] = *val;
    }
    w->n++;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

size_t ftdm_devstate_save(struct vio_bus *bus, uint8_t *buf)
{
    uint64_t v[FTDM_DEVSTATE_FIELDS];
    struct walk w = { v, 0, false };

    vio_visit(bus, field, &w, false);
    /* The core has a fixed number of fields, well below the bound. */
    if (w.n > FTDM_DEVSTATE_FIELDS)
        w.n = FTDM_DEVSTATE_FIELDS;
    memcpy(buf, MAGIC, 8);
    put32(buf + 8, FTDM_DEVSTATE_VERSION);
    put32(buf + 12, w.n);
    for (unsigned int i = 0; i < w.n; i++) {
        for (int b = 0; b < 8; b++)
            buf[HDR + 8 * i + b] = (uint8_t)(v[i] >> (8 * b));
    }
    return HDR + 8u * w.n;
}

int ftdm_devstate_load(struct vio_bus *bus, const uint8_t *buf, size_t len,
                       char *err, size_t errlen)
{
    uint64_t v[FTDM_DEVSTATE_FIELDS];
    struct walk w = { v, 0, false };
    uint32_t n;

    if (len < HDR || memcmp(buf, MAGIC, 8)) {
        snprintf(err, errlen, "not a device state of ftdm");
        return -EPROTO;
    }
    if (get32(buf + 8) != FTDM_DEVSTATE_VERSION) {
        snprintf(err, errlen, "a device state of version %u, this ftdm "
                 "reads version %u", get32(buf + 8), FTDM_DEVSTATE_VERSION);
        return -EPROTONOSUPPORT;
    }
    vio_visit(bus, field, &w, false);
    n = get32(buf + 12);
    if (n != w.n || n > FTDM_DEVSTATE_FIELDS ||
        len != HDR + 8u * (size_t)n) {
        snprintf(err, errlen, "a device state of %u values in %zu bytes; "
                 "these devices have %u", n, len, w.n);
        return -EPROTO;
    }
    for (unsigned int i = 0; i < n; i++) {
        v[i] = 0;
        for (int b = 7; b >= 0; b--)
            v[i] = v[i] << 8 | buf[HDR + 8 * i + (unsigned int)b];
    }
    w = (struct walk){ v, 0, true };
    if (vio_visit(bus, field, &w, true)) {
        snprintf(err, errlen, "a device state for other functions, or "
                 "with values no guest could have set");
        return -EINVAL;
    }
    return 0;
}
