// SPDX-License-Identifier: GPL-2.0-only
/*
 * vio_state.c - the devices' state, field by field (vio_visit).  What
 * is loaded comes from a peer: values the device could not have reached
 * by itself (wider than their field, a queue larger than offered, a
 * vector it lacks) are refused, since the code trusts them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vio_impl.h"

struct visit {
    vio_field_fn *fn;
    void *ctx;
    bool load;
    bool bad;                   /* a loaded value wider than its field */
    char name[48];
};

static uint64_t field(struct visit *v, uint64_t val, bool host,
                      const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static uint64_t field(struct visit *v, uint64_t val, bool host,
                      const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(v->name, sizeof(v->name), fmt, ap);
    va_end(ap);
    v->fn(v->ctx, v->name, &val, host);
    return val;
}

#define F(x, host, ...) do {                                            \
    uint64_t _v = field(&vi, (uint64_t)(x), host, __VA_ARGS__);         \
    if (load) {                                                         \
        (x) = (__typeof__(x))_v;                                        \
        if ((uint64_t)(x) != _v)                                        \
            vi.bad = true;                                              \
    }                                                                   \
} while (0)

static bool vector_ok(const struct vio_fn *f, uint16_t v)
{
    return v < f->nvectors || v == VIO_NO_VECTOR;
}

/* What a device can reach by guest accesses alone. */
static int sane(const struct vio_fn *f)
{
    if (!vector_ok(f, f->config_vector))
        return -EINVAL;
    for (unsigned int i = 0; i < f->nqueues; i++) {
        const struct vio_queue *q = &f->q[i];

        if (!q->size || q->size > VIO_QSIZE_MAX || (q->size & (q->size - 1))
            || !vector_ok(f, q->vector) || q->enable > 1)
            return -EINVAL;
    }
    return 0;
}

static int visit_fn(struct vio_fn *f, vio_field_fn *fn, void *ctx,
                    bool load)
{
    struct visit vi = { fn, ctx, load, false, "" };
    unsigned int s = f->slot;
    uint64_t kind = f->kind;

    F(kind, false, "pci%u.kind", s);
    if (kind != (uint64_t)f->kind)
        return -EINVAL;
    for (unsigned int i = 0; i < sizeof(f->cfg); i += 8) {
        uint64_t w;

        memcpy(&w, f->cfg + i, 8);
        F(w, false, "pci%u.config[0x%02x]", s, i);
        if (load)
            memcpy(f->cfg + i, &w, 8);
    }
    if (f->kind == VIO_NONE)
        return 0;
    F(f->dfsel, false, "pci%u.device_feature_select", s);
    F(f->gfsel, false, "pci%u.driver_feature_select", s);
    F(f->gfeatures, false, "pci%u.driver_features", s);
    F(f->config_vector, false, "pci%u.msix_config", s);
    F(f->status, false, "pci%u.device_status", s);
    F(f->qsel, false, "pci%u.queue_select", s);
    F(f->epoch, false, "pci%u.resets", s);
    F(f->broken, false, "pci%u.needs_reset", s);
    for (unsigned int i = 0; i < f->nqueues; i++) {
        struct vio_queue *q = &f->q[i];

        F(q->size, false, "pci%u.queue%u.size", s, i);
        F(q->vector, false, "pci%u.queue%u.msix_vector", s, i);
        F(q->enable, false, "pci%u.queue%u.enable", s, i);
        F(q->desc, false, "pci%u.queue%u.desc", s, i);
        F(q->avail, false, "pci%u.queue%u.avail", s, i);
        F(q->used, false, "pci%u.queue%u.used", s, i);
        F(q->taken, false, "pci%u.queue%u.taken", s, i);
    }
    for (unsigned int i = 0; i < f->nvectors; i++) {
        struct vio_msix *m = &f->msix[i];

        F(m->addr_lo, false, "pci%u.msix%u.addr_lo", s, i);
        F(m->addr_hi, false, "pci%u.msix%u.addr_hi", s, i);
        F(m->data, false, "pci%u.msix%u.data", s, i);
        F(m->ctrl, false, "pci%u.msix%u.ctrl", s, i);
    }
    F(f->pending, true, "pci%u.msix_pending", s);
    if (vi.bad)
        return -EINVAL;
    return load ? sane(f) : 0;
}

int vio_visit(struct vio_bus *bus, vio_field_fn *fn, void *ctx, bool load)
{
    struct visit vi = { fn, ctx, load, false, "" };
    uint64_t present = 0;

    for (unsigned int i = 0; i < VIO_SLOTS; i++)
        present |= (uint64_t)(bus->fn[i] != NULL) << i;
    {
        uint64_t was = present;

        F(present, false, "pci.slots");
        if (present != was)
            return -EINVAL;
    }
    F(bus->cf8, false, "pci.address");
    if (vi.bad)
        return -EINVAL;
    for (unsigned int i = 0; i < VIO_SLOTS; i++) {
        if (bus->fn[i] && visit_fn(bus->fn[i], fn, ctx, load))
            return -EINVAL;
    }
    return 0;
}
