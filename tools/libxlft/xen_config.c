// SPDX-License-Identifier: GPL-2.0-only
/*
 * xen_config.c - the FT fitness of a running domain, from the
 * configuration libxl keeps for it (xlft_xen_config.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <libxl.h>
#include <libxl_utils.h>
#include <xentoollog.h>

#include "xlft_xen_config.h"

struct refusals {
    char *buf;
    size_t len, used;
    int n;
};

static void refuse(struct refusals *r, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (r->used + 2 < r->len) {
        if (r->n) {
            r->buf[r->used++] = ';';
            r->buf[r->used++] = ' ';
            r->buf[r->used] = '\0';
        }
        va_start(ap, fmt);
        k = vsnprintf(r->buf + r->used, r->len - r->used, fmt, ap);
        va_end(ap);
        if (k > 0)
            r->used += (size_t)k < r->len - r->used ? (size_t)k
                                                   : r->len - r->used - 1;
    }
    r->n++;
}

/* Unset means libxl's default, which is 'dflt'. */
static bool defbool(libxl_defbool b, bool dflt)
{
    return libxl_defbool_is_default(b) ? dflt : libxl_defbool_val(b);
}

/* Whether 'word' is one of the space-separated words of 's'. */
static bool has_word(const char *s, const char *word)
{
    size_t n = strlen(word);

    for (const char *p = s; p && *p; p++)
        if ((p == s || p[-1] == ' ') && !strncmp(p, word, n) &&
            (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

static void check(const libxl_domain_config *c, struct refusals *r)
{
    const libxl_domain_build_info *b = &c->b_info;

    if (c->c_info.type != LIBXL_DOMAIN_TYPE_HVM) {
        /* The other checks are about HVM settings. */
        refuse(r, "not an HVM guest: set type = \"hvm\"");
        return;
    }
    if (b->max_vcpus != 1)
        refuse(r, "%d vCPUs: FT replays one, set vcpus = 1 "
               "(and maxvcpus = 1)", b->max_vcpus);
    if (defbool(c->c_info.hap, true))
        refuse(r, "hardware-assisted paging: FT needs shadow paging, "
               "set hap = 0");
    if (defbool(c->c_info.oos, true))
        refuse(r, "out-of-sync shadow page tables differ from host to "
               "host: set oos = 0");
    if (b->tsc_mode != LIBXL_TSC_MODE_ALWAYS_EMULATE)
        refuse(r, "tsc_mode \"%s\": set tsc_mode = \"always_emulate\"",
               libxl_tsc_mode_to_string(b->tsc_mode));
    if (defbool(b->u.hvm.viridian, false) ||
        !libxl_bitmap_is_empty(&b->u.hvm.viridian_enable))
        refuse(r, "viridian enlightenments write guest memory: "
               "set viridian = 0");
    if (defbool(b->u.hvm.xen_platform_pci, true))
        refuse(r, "the Xen platform device enables PV drivers: "
               "set xen_platform_pci = 0");
    /*
     * Linux finds Xen through CPUID even without the platform device, and
     * uses its clock and event channels unless told nopv.  Only a kernel
     * the tools boot shows its command line; a guest booted from its disk
     * is checked by Xen at enable, for what it has set up by then.
     */
    if (b->kernel && !has_word(b->cmdline, "nopv"))
        refuse(r, "a kernel booted without nopv uses Xen's PV clock and "
               "event channels: add nopv to cmdline");
    if (c->num_nics)
        refuse(r, "%d vif device(s): QEMU's and PV network devices write "
               "guest memory behind the log: remove vif = [...], ftdm "
               "serves the network", c->num_nics);
    if (c->num_disks)
        refuse(r, "%d disk device(s): QEMU's and PV disks write guest "
               "memory behind the log: remove disk = [...], ftdm serves "
               "the disk", c->num_disks);
    if (c->num_pcidevs)
        refuse(r, "%d passthrough PCI device(s) DMA behind Xen: remove "
               "pci = [...]", c->num_pcidevs);
}

int xlft_xen_config_check(uint32_t domid, char *err, size_t errlen)
{
    struct refusals r = { .buf = err, .len = errlen };
    xentoollog_logger_stdiostream *log;
    libxl_domain_config cfg;
    libxl_ctx *ctx = NULL;
    int rc, lrc;

    err[0] = '\0';
    /* libxl says why it fails on stderr; the caller gets our summary. */
    log = xtl_createlogger_stdiostream(stderr, XTL_ERROR, 0);
    if (!log) {
        snprintf(err, errlen, "domain %" PRIu32 ": no libxl logger",
                 domid);
        return -ENOMEM;
    }
    if (libxl_ctx_alloc(&ctx, LIBXL_VERSION, 0,
                        (xentoollog_logger *)log)) {
        snprintf(err, errlen, "domain %" PRIu32 ": cannot open libxl "
                 "(not dom0 of a Xen host?)", domid);
        xtl_logger_destroy((xentoollog_logger *)log);
        return -EIO;
    }

    libxl_domain_config_init(&cfg);
    lrc = libxl_domain_info(ctx, NULL, domid);
    if (lrc == ERROR_DOMAIN_NOTFOUND || lrc == ERROR_INVAL) {
        snprintf(err, errlen, "domain %" PRIu32 " does not exist", domid);
        rc = -ESRCH;
        goto out;
    }
    lrc = libxl_retrieve_domain_configuration(ctx, domid, &cfg, NULL);
    if (lrc) {
        snprintf(err, errlen, "domain %" PRIu32 ": libxl has no "
                 "configuration for it (error %d; not made by xl?)",
                 domid, lrc);
        rc = -EIO;
        goto out;
    }
    r.used = (size_t)snprintf(err, errlen, "domain %" PRIu32 " is not fit "
                              "for FT: ", domid);
    if (r.used >= errlen)
        r.used = errlen ? errlen - 1 : 0;
    check(&cfg, &r);
    if (r.n) {
        rc = -EINVAL;
    } else {
        snprintf(err, errlen, "domain %" PRIu32 " is fit for FT", domid);
        rc = 0;
    }
out:
    libxl_domain_config_dispose(&cfg);
    libxl_ctx_free(ctx);
    xtl_logger_destroy((xentoollog_logger *)log);
    return rc;
}
