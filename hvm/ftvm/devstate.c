// SPDX-License-Identifier: GPL-2.0-only
/*
 * devstate.c - the devices' fields in the log (FORMAT.md, "Device
 * state"): a copy whose devices came to differ from its primary's is
 * told which field differs and how, where a state hash could only say
 * that something does.
 *
 * The primary logs, just before each state hash, the fields that
 * changed since it last did (all of them the first time); devices
 * change rarely, so this costs a few bytes a second.  The copy keeps the
 * primary's values and compares them with its own devices' there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftvm.h"

#define FIELDS  512u

struct devstate {
    unsigned int n;
    uint64_t cur[FIELDS];       /* this copy's, as collected */
    uint64_t peer[FIELDS];      /* primary: as last logged; copy: the
                                   primary's as the log says */
    bool known[FIELDS];         /* copy: peer[i] came in the log */
    bool logged;                /* primary: the first record is out */
    uint8_t buf[FT_DMA_MAX];    /* a record being written or read */
    const char *want;           /* collect(): the name to look up */
    unsigned int want_at;
    char name[48];
};

/* vio_visit's shared fields into cur[], or the name of field want_at. */
static void collect(void *ctx, const char *name, uint64_t *val, bool host)
{
    struct devstate *d = ctx;

    if (host)
        return;
    if (d->want && d->n == d->want_at)
        snprintf(d->name, sizeof(d->name), "%s", name);
    if (d->n < FIELDS)
        d->cur[d->n] = *val;
    d->n++;
}

static int gather(struct ftvm *vm, struct devstate *d)
{
    d->n = 0;
    d->want = NULL;
    vio_visit(vm->pci, collect, d, false);
    return d->n <= FIELDS ? 0 : -E2BIG;
}

static const char *name_of(struct ftvm *vm, struct devstate *d,
                           unsigned int i)
{
    d->n = 0;
    d->want = "";
    d->want_at = i;
    strcpy(d->name, "?");
    vio_visit(vm->pci, collect, d, false);
    d->want = NULL;
    return d->name;
}

void ftvm_devstate_reset(struct ftvm *vm)
{
    if (vm->dev) {
        vm->dev->logged = false;
        memset(vm->dev->known, 0, sizeof(vm->dev->known));
    }
}

static struct devstate *dev(struct ftvm *vm)
{
    if (!vm->dev)
        vm->dev = calloc(1, sizeof(*vm->dev));
    if (!vm->dev)
        ftvm_fail(vm, FTVM_EXIT_ERROR, "out of memory");
    return vm->dev;
}

void ftvm_devstate_free(struct ftvm *vm)
{
    free(vm->dev);
    vm->dev = NULL;
}

static void le(uint8_t *p, uint64_t v, unsigned int n)
{
    for (unsigned int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned int n)
{
    uint64_t v = 0;

    for (unsigned int i = n; i--; )
        v = v << 8 | p[i];
    return v;
}

/* The primary, recording: what changed goes into the log, at this point. */
int ftvm_devstate_record(struct ftvm *vm)
{
    struct devstate *d = dev(vm);
    struct ft_log_rec r = { .kind = FT_K_DMA, .pt = ftvm_point(vm) };
    uint32_t len = 2;

    if (!d)
        return -ENOMEM;
    if (gather(vm, d)) {
        ftvm_fail(vm, FTVM_EXIT_ERROR, "the devices have more than %u "
                  "fields", FIELDS);
        return -E2BIG;
    }
    le(d->buf, d->n, 2);
    for (unsigned int i = 0; i < d->n; i++) {
        if (d->logged && d->cur[i] == d->peer[i])
            continue;
        le(d->buf + len, i, 2);
        le(d->buf + len + 2, d->cur[i], 8);
        len += 10;
        d->peer[i] = d->cur[i];
    }
    if (len == 2)
        return 0;                       /* nothing changed */
    d->logged = true;
    r.u.dma.gpa = FT_DMA_DEVICE;
    r.u.dma.len = len;
    r.u.dma.data = d->buf;
    return ftvm_ft_append(vm, &r) == FT_OK ? 0 : -EIO;
}

/* The copy: a part of the record's data (a ring may cut it in two). */
int ftvm_devstate_put(struct ftvm *vm, uint64_t off, const uint8_t *data,
                      uint32_t len)
{
    struct devstate *d = dev(vm);

    if (!d || off > FT_DMA_MAX || len > FT_DMA_MAX - off)
        return FT_EINVAL;
    memcpy(d->buf + off, data, len);
    return FT_OK;
}

/* A field of this copy's that is not the primary's, named: -EINVAL. */
static int differs(struct ftvm *vm, struct devstate *d,
                   unsigned long long seq)
{
    for (unsigned int i = 0; i < d->n; i++) {
        if (!d->known[i] || d->peer[i] == d->cur[i])
            continue;
        ftvm_fail(vm, FTVM_EXIT_DIVERGED, "divergence at record %llu: "
                  "device field %s is 0x%llx here, 0x%llx on the primary",
                  seq, name_of(vm, d, i), (unsigned long long)d->cur[i],
                  (unsigned long long)d->peer[i]);
        return -EINVAL;
    }
    return 0;
}

/* The copy, at the record's point: its devices against the primary's. */
int ftvm_devstate_check(struct ftvm *vm, uint32_t len)
{
    struct devstate *d = dev(vm);
    unsigned long long seq = (unsigned long long)ft_replay_seq(&vm->rp);
    unsigned int n;

    if (!d)
        return -ENOMEM;
    if (gather(vm, d) || len < 2 || (len - 2) % 10) {
        ftvm_fail(vm, FTVM_EXIT_DIVERGED, "divergence at record %llu: a "
                  "device state of %u bytes, not 2 + 10 per field", seq,
                  len);
        return -EINVAL;
    }
    n = (unsigned int)get_le(d->buf, 2);
    if (n != d->n) {
        ftvm_fail(vm, FTVM_EXIT_DIVERGED, "divergence at record %llu: the "
                  "primary's devices have %u fields, this ftvm's %u", seq,
                  n, d->n);
        return -EINVAL;
    }
    for (uint32_t at = 2; at < len; at += 10) {
        unsigned int i = (unsigned int)get_le(d->buf + at, 2);

        if (i >= n) {
            ftvm_fail(vm, FTVM_EXIT_DIVERGED, "divergence at record %llu: "
                      "device field %u of %u", seq, i, n);
            return -EINVAL;
        }
        d->peer[i] = get_le(d->buf + at + 2, 8);
        d->known[i] = true;
    }
    return differs(vm, d, seq);
}

/* The copy, at a state hash that differs: a device field, if one does. */
int ftvm_devstate_compare(struct ftvm *vm)
{
    struct devstate *d = vm->dev;

    if (!d || gather(vm, d))
        return 0;
    return differs(vm, d, (unsigned long long)ft_replay_seq(&vm->rp));
}
