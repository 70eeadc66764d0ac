// SPDX-License-Identifier: GPL-2.0-only
/*
 * xen_config_allow.c - the peer's libxl configuration against this
 * host's (xlft_xen_config_allow.h).
 *
 * The settings compared are those of libxl's IDL (libxl_types.idl,
 * Xen 4.17) that make dom0 run, open or hand over something; every
 * device class but disks and network cards is compared whole, so that a
 * device this host has not configured never gets in.  Values are
 * compared as libxl writes them (the caller passes both texts through
 * libxl first), so two spellings of one value count as different: the
 * copy is refused rather than guessed about.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "xlft_copy.h"
#include "xlft_json.h"
#include "xlft_xen_config_allow.h"

enum scope { TOP, C_INFO, B_INFO, B_HVM, NSCOPES };

static const char *const scope_name[NSCOPES] = {
    "", "c_info.", "b_info.", "b_info.type.hvm.",
};

struct field {
    enum scope in;
    const char *name;
};

static const struct field fields[] = {
    /* What kind of domain, under which security label, with what help. */
    { C_INFO, "type" }, { C_INFO, "ssidref" }, { C_INFO, "ssid_label" },
    { C_INFO, "xsdata" }, { C_INFO, "platformdata" },
    { C_INFO, "run_hotplug_scripts" }, { C_INFO, "driver_domain" },
    { C_INFO, "passthrough" },
    { B_INFO, "exec_ssidref" }, { B_INFO, "exec_ssid_label" },
    /* The device model: which program, as whom, with what arguments. */
    { B_INFO, "device_model_version" }, { B_INFO, "device_model_stubdomain" },
    { B_INFO, "stubdomain_kernel" }, { B_INFO, "stubdomain_ramdisk" },
    { B_INFO, "stubdomain_cmdline" }, { B_INFO, "device_model" },
    { B_INFO, "device_model_ssidref" }, { B_INFO, "device_model_ssid_label" },
    { B_INFO, "device_model_user" }, { B_INFO, "dm_restrict" },
    { B_INFO, "extra" }, { B_INFO, "extra_pv" }, { B_INFO, "extra_hvm" },
    /* Files dom0 reads for the guest, programs it runs to boot it. */
    { B_INFO, "kernel" }, { B_INFO, "ramdisk" }, { B_INFO, "device_tree" },
    { B_INFO, "bootloader" }, { B_INFO, "bootloader_args" },
    /* Hardware handed to the guest. */
    { B_INFO, "ioports" }, { B_INFO, "irqs" }, { B_INFO, "iomem" },
    { B_INFO, "tee" },
    /* Another kind of guest than an HVM one (libxl takes the last). */
    { B_INFO, "type.pv" }, { B_INFO, "type.pvh" }, { B_INFO, "type.invalid" },
    /* Firmware files, and what the device model emulates and opens. */
    { B_HVM, "firmware" }, { B_HVM, "bios" }, { B_HVM, "system_firmware" },
    { B_HVM, "smbios_firmware" }, { B_HVM, "acpi_firmware" },
    { B_HVM, "vga" }, { B_HVM, "vnc" }, { B_HVM, "sdl" }, { B_HVM, "spice" },
    { B_HVM, "nographic" }, { B_HVM, "keymap" }, { B_HVM, "serial" },
    { B_HVM, "serial_list" }, { B_HVM, "usb" }, { B_HVM, "usbversion" },
    { B_HVM, "usbdevice" }, { B_HVM, "usbdevice_list" },
    { B_HVM, "soundhw" }, { B_HVM, "vkb_device" },
    { B_HVM, "gfx_passthru" }, { B_HVM, "gfx_passthru_kind" },
    { B_HVM, "rdm" },
    /* Devices compared whole: passthrough, back ends, channels. */
    { TOP, "pcidevs" }, { TOP, "rdms" }, { TOP, "dtdevs" },
    { TOP, "vfbs" }, { TOP, "vkbs" }, { TOP, "vtpms" }, { TOP, "p9s" },
    { TOP, "pvcallsifs" }, { TOP, "vdispls" }, { TOP, "vsnds" },
    { TOP, "channels" }, { TOP, "usbctrls" }, { TOP, "usbdevs" },
};

/* What a network card may have of its own: the guest's identity. */
static const char *const nic_own[] = { "mac", "devid", "nictype", NULL };

struct cfg {
    struct xlft_json doc;
    struct xlft_json scope[NSCOPES];
    bool has[NSCOPES];
};

struct ctx {
    char *err;
    size_t errlen;
};

static bool key_is(const struct xlft_json *k, const char *name, size_t n)
{
    return k->n == n && !memcmp(k->p, name, n);
}

/* Member 'name' of 'obj', not null; member names are plain (checked). */
static bool find_n(const struct xlft_json *obj, bool has, const char *name,
                   size_t n, struct xlft_json *v)
{
    struct xlft_json k;
    const char *pos = NULL;

    if (!has || obj->type != XLFT_JSON_OBJECT)
        return false;
    while (xlft_json_next(obj, &pos, &k, v))
        if (key_is(&k, name, n))
            return v->type != XLFT_JSON_NULL;
    return false;
}

static bool find(const struct xlft_json *obj, bool has, const char *name,
                 struct xlft_json *v)
{
    return find_n(obj, has, name, strlen(name), v);
}

/* One value, as libxl wrote it: the same text, or the same members. */
static bool same(const struct xlft_json *a, const struct xlft_json *b)
{
    struct xlft_json ka, va, kb, vb;
    const char *pa = NULL, *pb = NULL;
    bool found;

    if (a->type != b->type)
        return false;
    if (a->type == XLFT_JSON_ARRAY) {
        for (;;) {
            bool more_a = xlft_json_next(a, &pa, NULL, &va);
            bool more_b = xlft_json_next(b, &pb, NULL, &vb);

            if (more_a != more_b)
                return false;
            if (!more_a)
                return true;
            if (!same(&va, &vb))
                return false;
        }
    }
    if (a->type != XLFT_JSON_OBJECT)
        return a->n == b->n && !memcmp(a->p, b->p, a->n);
    /* Members in any order; each side's must all be on the other. */
    for (int side = 0; side < 2; side++) {
        const struct xlft_json *x = side ? b : a, *y = side ? a : b;

        pa = NULL;
        while (xlft_json_next(x, &pa, &ka, &va)) {
            pb = NULL;
            found = false;
            while (!found && xlft_json_next(y, &pb, &kb, &vb))
                found = ka.n == kb.n && !memcmp(ka.p, kb.p, ka.n);
            if (!found || !same(&va, &vb))
                return false;
        }
    }
    return true;
}

/* A value for a message: short, printable, quoted if a string. */
static void show_q(const struct xlft_json *v, bool has, bool quote,
                   char *out, size_t len)
{
    size_t o = 0, max = 60;
    bool str = quote && has && v->type == XLFT_JSON_STRING;

    if (!has) {
        snprintf(out, len, "nothing");
        return;
    }
    if (len < max + 8)
        max = len > 8 ? len - 8 : 0;
    if (str)
        out[o++] = '\'';
    for (size_t i = 0; i < v->n && i < max; i++) {
        unsigned char c = (unsigned char)v->p[i];

        out[o++] = c >= 0x20 && c < 0x7f && c != '\'' ? (char)c : '?';
    }
    if (v->n > max) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    if (str)
        out[o++] = '\'';
    out[o] = '\0';
}

static void show(const struct xlft_json *v, bool has, char *out, size_t len)
{
    show_q(v, has, true, out, len);
}

static int differs(struct ctx *c, const char *path, const char *sub,
                   const struct xlft_json *pv, bool ph,
                   const struct xlft_json *lv, bool lh)
{
    char p[72], l[72];

    show(pv, ph, p, sizeof(p));
    show(lv, lh, l, sizeof(l));
    if (!ph)
        snprintf(c->err, c->errlen, "the peer's configuration has no %s%s; "
                 "this host's sets it to %s", path, sub, l);
    else if (!lh)
        snprintf(c->err, c->errlen, "the peer's configuration sets %s%s to "
                 "%s; this host does not allow it", path, sub, p);
    else
        snprintf(c->err, c->errlen, "the peer's configuration sets %s%s to "
                 "%s; this host allows only %s", path, sub, p, l);
    return -EPERM;
}

/* Every member of two devices the same, except the device's own. */
static int same_device(struct ctx *c, const char *what,
                       const struct xlft_json *pd, const struct xlft_json *ld,
                       const char *const *own)
{
    const struct xlft_json *objs[2] = { pd, ld };
    struct xlft_json k, v, pv, lv;
    const char *pos;
    char name[48];

    for (int side = 0; side < 2; side++) {
        pos = NULL;
        while (xlft_json_next(objs[side], &pos, &k, &v)) {
            bool skip = false, ph, lh;

            for (int i = 0; own && own[i]; i++)
                skip = skip || key_is(&k, own[i], strlen(own[i]));
            if (skip)
                continue;
            ph = find_n(pd, true, k.p, k.n, &pv);
            lh = find_n(ld, true, k.p, k.n, &lv);
            if (ph != lh || (ph && !same(&pv, &lv))) {
                show_q(&k, true, false, name, sizeof(name));
                return differs(c, what, name, &pv, ph, &lv, lh);
            }
        }
    }
    return 0;
}

/* Disks: each of the peer's is one configured here, by its vdev. */
static int check_disks(struct ctx *c, const struct cfg *peer,
                       const struct cfg *local)
{
    struct xlft_json pa, la, pd, ld, pv, lv;
    bool ph = find(&peer->doc, true, "disks", &pa);
    bool lh = find(&local->doc, true, "disks", &la);
    const char *pp = NULL, *lp;
    unsigned int np = 0, nl = 0;
    char what[90], vdev[72];
    int rc;

    if (ph && pa.type != XLFT_JSON_ARRAY)
        return differs(c, "disks", "", &pa, ph, &la, lh);
    while (ph && xlft_json_next(&pa, &pp, NULL, &pd)) {
        bool found = false;

        np++;
        if (pd.type != XLFT_JSON_OBJECT || !find(&pd, true, "vdev", &pv) ||
            pv.type != XLFT_JSON_STRING)
            return differs(c, "disks", " (a disk without a vdev)", &pd, true,
                           NULL, false);
        lp = NULL;
        while (lh && !found && xlft_json_next(&la, &lp, NULL, &ld))
            found = ld.type == XLFT_JSON_OBJECT &&
                    find(&ld, true, "vdev", &lv) && same(&pv, &lv);
        show_q(&pv, true, false, vdev, sizeof(vdev));
        snprintf(what, sizeof(what), "disks.%s.", vdev);
        if (!found) {
            char path[72];

            show(&lv, find(&pd, true, "pdev_path", &lv), path, sizeof(path));
            snprintf(c->err, c->errlen, "the peer's configuration has "
                     "disk %s (%s), not configured on this host", vdev,
                     path);
            return -EPERM;
        }
        rc = same_device(c, what, &pd, &ld, NULL);
        if (rc)
            return rc;
    }
    lp = NULL;
    while (lh && la.type == XLFT_JSON_ARRAY &&
           xlft_json_next(&la, &lp, NULL, &ld))
        nl++;
    if (np != nl) {
        snprintf(c->err, c->errlen, "the peer's configuration has %u "
                 "disk(s), this host's %u", np, nl);
        return -EPERM;
    }
    return 0;
}

/* Network cards, in order: the same back end, bridge and script. */
static int check_nics(struct ctx *c, const struct cfg *peer,
                      const struct cfg *local)
{
    struct xlft_json pa, la, pd, ld;
    bool ph = find(&peer->doc, true, "nics", &pa);
    bool lh = find(&local->doc, true, "nics", &la);
    const char *pp = NULL, *lp = NULL;
    char what[40];
    int rc;

    if ((ph && pa.type != XLFT_JSON_ARRAY) ||
        (lh && la.type != XLFT_JSON_ARRAY))
        return differs(c, "nics", "", &pa, ph, &la, lh);
    for (unsigned int i = 0;; i++) {
        bool more_p = ph && xlft_json_next(&pa, &pp, NULL, &pd);
        bool more_l = lh && xlft_json_next(&la, &lp, NULL, &ld);

        if (!more_p && !more_l)
            return 0;
        snprintf(what, sizeof(what), "nics.%u", i);
        if (!more_p || !more_l || pd.type != XLFT_JSON_OBJECT ||
            ld.type != XLFT_JSON_OBJECT)
            return differs(c, what, "", &pd, more_p, &ld, more_l);
        snprintf(what, sizeof(what), "nics.%u.", i);
        rc = same_device(c, what, &pd, &ld, nic_own);
        if (rc)
            return rc;
    }
}

/* libxl unescapes member names; a name here is compared as written. */
static bool plain_names(const struct xlft_json *v)
{
    struct xlft_json k, m;
    const char *pos = NULL;

    if (v->type != XLFT_JSON_OBJECT && v->type != XLFT_JSON_ARRAY)
        return true;
    while (xlft_json_next(v, &pos, &k, &m)) {
        if (v->type == XLFT_JSON_OBJECT && memchr(k.p, '\\', k.n))
            return false;
        if (!plain_names(&m))
            return false;
    }
    return true;
}

static bool load(struct cfg *c, const char *s, size_t n)
{
    memset(c, 0, sizeof(*c));
    if (xlft_json_check(s, n) || !xlft_json_get(s, n, "", &c->doc) ||
        c->doc.type != XLFT_JSON_OBJECT || !plain_names(&c->doc))
        return false;
    c->scope[TOP] = c->doc;
    c->has[TOP] = true;
    c->has[C_INFO] = find(&c->doc, true, "c_info", &c->scope[C_INFO]);
    c->has[B_INFO] = find(&c->doc, true, "b_info", &c->scope[B_INFO]);
    c->has[B_HVM] = find(&c->scope[B_INFO], c->has[B_INFO], "type.hvm",
                         &c->scope[B_HVM]);
    for (int i = C_INFO; i < NSCOPES; i++)
        if (c->has[i] && c->scope[i].type != XLFT_JSON_OBJECT)
            return false;
    return true;
}

int xlft_xen_config_allowed(const char *peer, size_t n, const char *local,
                            size_t ln, char *err, size_t errlen)
{
    struct ctx c = { err, errlen };
    struct cfg p, l;
    int rc;

    if (n > XLFT_COPY_CONFIG_MAX) {
        snprintf(err, errlen, "the peer's configuration is %zu bytes, more "
                 "than %u", n, XLFT_COPY_CONFIG_MAX);
        return -EMSGSIZE;
    }
    if (!load(&p, peer, n)) {
        snprintf(err, errlen, "the peer's configuration is not libxl's "
                 "JSON (one object, plain member names, at most %d deep)",
                 XLFT_JSON_DEPTH);
        return -EBADMSG;
    }
    if (!load(&l, local, ln)) {
        snprintf(err, errlen, "this host's configuration of the guest is "
                 "not libxl's JSON");
        return -EINVAL;
    }
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        const struct field *f = &fields[i];
        struct xlft_json pv, lv;
        bool ph = find(&p.scope[f->in], p.has[f->in], f->name, &pv);
        bool lh = find(&l.scope[f->in], l.has[f->in], f->name, &lv);

        if (ph != lh || (ph && !same(&pv, &lv)))
            return differs(&c, scope_name[f->in], f->name, &pv, ph, &lv, lh);
    }
    rc = check_disks(&c, &p, &l);
    if (!rc)
        rc = check_nics(&c, &p, &l);
    return rc;
}
