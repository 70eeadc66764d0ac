// SPDX-License-Identifier: GPL-2.0-only
/*
 * xen_cfg_file.c - the FT fitness of a guest's xl configuration file
 * (xlft_xen_cfg_file.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxlutil.h>

#include "xlft_xen_cfg_file.h"

struct check {
    const char *path;
    char *text;                 /* the file, to find a key's line */
    XLU_Config *cfg;
    char *err;
    size_t errlen, used;
    int n;
};

/* The line of the last "KEY =" in the file; 0 if there is none. */
static int line_of(const struct check *c, const char *key)
{
    size_t k = strlen(key);
    int line = 1, found = 0;

    for (const char *p = c->text; p && *p; line++) {
        const char *q = p;

        while (*q == ' ' || *q == '\t')
            q++;
        if (!strncmp(q, key, k)) {
            q += k;
            while (*q == ' ' || *q == '\t')
                q++;
            if (*q == '=')
                found = line;
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return found;
}

/* One refusal, on a line of its own, at KEY's line when it is there. */
static void refuse(struct check *c, const char *key, const char *fmt, ...)
{
    int line = key ? line_of(c, key) : 0, k;
    va_list ap;

    c->n++;
    if (c->used + 1 >= c->errlen)
        return;
    k = line ? snprintf(c->err + c->used, c->errlen - c->used, "%s%s:%d: ",
                        c->used ? "\n" : "", c->path, line)
             : snprintf(c->err + c->used, c->errlen - c->used, "%s%s: ",
                        c->used ? "\n" : "", c->path);
    if (k > 0)
        c->used += (size_t)k;
    if (c->used + 1 >= c->errlen) {
        c->used = c->errlen - 1;
        return;
    }
    va_start(ap, fmt);
    k = vsnprintf(c->err + c->used, c->errlen - c->used, fmt, ap);
    va_end(ap);
    if (k > 0)
        c->used += (size_t)k < c->errlen - c->used ? (size_t)k
                                                   : c->errlen - c->used - 1;
}

static bool has_key(const struct check *c, const char *key)
{
    XLU_ConfigList *l;
    const char *s;
    long v;

    return !xlu_cfg_get_string(c->cfg, key, &s, 1) ||
           !xlu_cfg_get_long(c->cfg, key, &v, 1) ||
           !xlu_cfg_get_list(c->cfg, key, &l, NULL, 1);
}

/* KEY must be the number 'want'; 'dflt' is xl's value when unset. */
static void want_long(struct check *c, const char *key, long want,
                      long dflt, const char *why)
{
    long v = dflt;

    if (has_key(c, key) && xlu_cfg_get_long(c->cfg, key, &v, 1))
        v = want + 1;           /* not a number: wrong */
    if (v != want)
        refuse(c, key, "%s: set %s = %ld", why, key, want);
}

/* A device list must be absent or empty. */
static void no_devices(struct check *c, const char *key, const char *why)
{
    XLU_ConfigList *l;
    int n = 0;

    if (!xlu_cfg_get_list(c->cfg, key, &l, &n, 1) && n)
        refuse(c, key, "%d %s device(s): %s", n, key, why);
    else if (has_key(c, key) && xlu_cfg_get_list(c->cfg, key, &l, &n, 1))
        refuse(c, key, "%s is not a list: remove it", key);
}

static bool has_word(const char *s, const char *word)
{
    size_t n = strlen(word);

    for (const char *p = s; p && *p; p++)
        if ((p == s || isspace((unsigned char)p[-1])) &&
            !strncmp(p, word, n) &&
            (!p[n] || isspace((unsigned char)p[n])))
            return true;
    return false;
}

/* An ftdm key: a string of at most 'max' - 1 bytes, copied to 'out'. */
static void ftdm_key(struct check *c, const char *key, char *out,
                     size_t max)
{
    const char *s;

    out[0] = '\0';
    if (!has_key(c, key))
        return;
    if (xlu_cfg_get_string(c->cfg, key, &s, 1) || !*s) {
        refuse(c, key, "%s is a string, not empty", key);
        return;
    }
    if (strlen(s) >= max) {
        refuse(c, key, "%s: at most %zu bytes", key, max - 1);
        return;
    }
    strcpy(out, s);
}

static void check(struct check *c, struct xlft_xen_cfg_file *out)
{
    const char *type = NULL, *s, *kernel = NULL, *cmdline = "";
    long v;

    if (xlu_cfg_get_string(c->cfg, "type", &type, 1))
        xlu_cfg_get_string(c->cfg, "builder", &type, 1);
    if (!type || strcmp(type, "hvm")) {
        refuse(c, type ? "type" : NULL, "not an HVM guest: set type = "
               "\"hvm\"");
        return;             /* the rest are about HVM settings */
    }
    if (xlu_cfg_get_string(c->cfg, "name", &s, 1) || !*s ||
        strlen(s) >= sizeof(out->name))
        refuse(c, "name", "no name: set name = \"...\"");
    else
        strcpy(out->name, s);
    want_long(c, "vcpus", 1, 1, "FT replays one vCPU");
    if (has_key(c, "maxvcpus"))
        want_long(c, "maxvcpus", 1, 1, "FT replays one vCPU");
    want_long(c, "hap", 0, 1, "FT needs shadow paging");
    want_long(c, "oos", 0, 1, "out-of-sync shadow page tables differ "
              "from host to host");
    /* xl takes the name, or the number of libxl's enum (1). */
    if ((xlu_cfg_get_string(c->cfg, "tsc_mode", &s, 1) ||
         strcmp(s, "always_emulate")) &&
        (xlu_cfg_get_long(c->cfg, "tsc_mode", &v, 1) || v != 1))
        refuse(c, has_key(c, "tsc_mode") ? "tsc_mode" : NULL, "the TSC "
               "must be emulated: set tsc_mode = \"always_emulate\"");
    if (has_key(c, "viridian") &&
        (xlu_cfg_get_long(c->cfg, "viridian", &v, 1) || v))
        refuse(c, "viridian", "viridian enlightenments write guest "
               "memory: set viridian = 0");
    want_long(c, "xen_platform_pci", 0, 1, "the Xen platform device "
              "enables PV drivers");
    /*
     * Linux finds Xen through CPUID even without the platform device,
     * and uses its clock and event channels unless told nopv.
     */
    xlu_cfg_get_string(c->cfg, "kernel", &kernel, 1);
    xlu_cfg_get_string(c->cfg, "cmdline", &cmdline, 1);
    if (kernel && !has_word(cmdline, "nopv"))
        refuse(c, has_key(c, "cmdline") ? "cmdline" : "kernel", "a kernel "
               "booted without nopv uses Xen's PV clock and event "
               "channels: add nopv to cmdline");
    /* A reboot that xl restarts makes a new domain, with no ftdm. */
    if (xlu_cfg_get_string(c->cfg, "on_reboot", &s, 1) ||
        strcmp(s, "destroy"))
        refuse(c, has_key(c, "on_reboot") ? "on_reboot" : NULL, "a reboot "
               "xl restarts is a new domain without ftdm: set on_reboot = "
               "\"destroy\" (and create it again with xl-ft create)");
    no_devices(c, "vif", "QEMU's and PV network devices write guest "
               "memory behind the log: remove vif = [...], ftdm serves "
               "the network (ftdm_tap)");
    no_devices(c, "disk", "QEMU's and PV disks write guest memory behind "
               "the log: remove disk = [...], ftdm serves the disk "
               "(ftdm_disk)");
    no_devices(c, "pci", "passthrough devices DMA behind Xen: remove "
               "pci = [...]");
    ftdm_key(c, "ftdm_tap", out->tap, sizeof(out->tap));
    ftdm_key(c, "ftdm_bridge", out->bridge, sizeof(out->bridge));
    ftdm_key(c, "ftdm_mac", out->mac, sizeof(out->mac));
    ftdm_key(c, "ftdm_disk", out->disk, sizeof(out->disk));
    if (out->bridge[0] && !out->tap[0])
        refuse(c, "ftdm_bridge", "ftdm_bridge without ftdm_tap: name the "
               "tap to bridge");
}

/* The whole file, NUL-terminated (a configuration is small). */
static int slurp(const char *path, char **text)
{
    FILE *f = fopen(path, "r");
    size_t len = 0, cap = 0;
    char *b = NULL;
    int rc = 0;

    *text = NULL;
    if (!f)
        return -errno;
    for (;;) {
        size_t got;

        if (cap - len < 4096) {
            char *nb = cap < (1u << 20) ? realloc(b, cap + 8192) : NULL;

            if (!nb) {
                rc = cap < (1u << 20) ? -ENOMEM : -EFBIG;
                break;
            }
            b = nb;
            cap += 8192;
        }
        got = fread(b + len, 1, cap - len - 1, f);
        len += got;
        if (!got) {
            if (ferror(f))
                rc = -EIO;
            break;
        }
    }
    fclose(f);
    if (rc) {
        free(b);
        return rc;
    }
    b[len] = '\0';
    *text = b;
    return 0;
}

int xlft_xen_cfg_file_check(const char *path, struct xlft_xen_cfg_file *out,
                            char *err, size_t errlen)
{
    struct check c = { .path = path, .err = err, .errlen = errlen };
    char *said = NULL;
    size_t saidlen = 0;
    FILE *report = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    err[0] = '\0';
    rc = slurp(path, &c.text);
    if (rc) {
        snprintf(err, errlen, "%s: %s", path, rc == -EFBIG ?
                 "larger than 1 MiB: not an xl configuration" :
                 strerror(-rc));
        goto out;
    }
    /* What the parser says goes to 'err', not to our stderr. */
    report = open_memstream(&said, &saidlen);
    c.cfg = report ? xlu_cfg_init(report, path) : NULL;
    if (!c.cfg) {
        snprintf(err, errlen, "%s: cannot start xl's parser", path);
        rc = -ENOMEM;
        goto out;
    }
    rc = xlu_cfg_readfile(c.cfg, path);
    if (rc) {
        fflush(report);
        snprintf(err, errlen, "%s: not an xl configuration: %s", path,
                 said && *said ? said : strerror(rc));
        rc = -EBADMSG;
        goto out;
    }
    check(&c, out);
    rc = c.n ? -EINVAL : 0;
out:
    if (c.cfg)
        xlu_cfg_destroy(c.cfg);
    if (report)
        fclose(report);
    free(said);
    free(c.text);
    if (err[0]) {
        size_t n = strlen(err);

        while (n && err[n - 1] == '\n')
            err[--n] = '\0';
    }
    return rc;
}
