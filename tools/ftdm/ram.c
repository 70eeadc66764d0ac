// SPDX-License-Identifier: GPL-2.0-only
/*
 * ram.c - guest RAM for ftdm's device core: reads through read-only
 * foreign mappings (which take no page-type reference, so the shadow
 * code that FT guests run under has nothing to miss), writes through
 * libxlft's XEN_DMOP_ft_write.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <xenforeignmemory.h>

#include "ram.h"
#include "xlft_xen.h"

#define PAGE        4096u
#define MAP_PAGES   64u         /* pages mapped at once */

struct ftdm_ram {
    uint32_t domid;
    xenforeignmemory_handle *fm;
    struct xlft_xen *xen;
};

int ftdm_ram_open(struct ftdm_ram **rp, uint32_t domid, char *err,
                  size_t errlen)
{
    struct ftdm_ram *r = calloc(1, sizeof(*r));
    int rc;

    *rp = NULL;
    if (!r) {
        snprintf(err, errlen, "domain %u: out of memory", domid);
        return -ENOMEM;
    }
    r->domid = domid;
    r->fm = xenforeignmemory_open(NULL, 0);
    if (!r->fm) {
        rc = errno ? -errno : -EIO;
        snprintf(err, errlen, "domain %u: cannot open libxenforeignmemory: "
                 "%s", domid, strerror(-rc));
        goto out;
    }
    rc = xlft_xen_open(&r->xen, err, errlen);
    if (rc)
        goto out;
    *rp = r;
    return 0;
out:
    ftdm_ram_close(r);
    return rc;
}

void ftdm_ram_close(struct ftdm_ram *r)
{
    if (!r)
        return;
    if (r->xen)
        xlft_xen_close(r->xen);
    if (r->fm)
        xenforeignmemory_close(r->fm);
    free(r);
}

/*
 * Map the pages of [gpa, gpa + len), at most MAP_PAGES of them, read
 * only: their address, or NULL when one is not RAM.
 */
static void *map(struct ftdm_ram *r, uint64_t gpa, uint32_t len,
                 unsigned int *n)
{
    xen_pfn_t pfn[MAP_PAGES];
    int errs[MAP_PAGES];
    void *p;

    *n = (unsigned int)(((gpa & (PAGE - 1)) + len + PAGE - 1) / PAGE);
    for (unsigned int i = 0; i < *n; i++)
        pfn[i] = (gpa / PAGE) + i;
    p = xenforeignmemory_map(r->fm, r->domid, PROT_READ, *n, pfn, errs);
    if (!p)
        return NULL;
    for (unsigned int i = 0; i < *n; i++)
        if (errs[i]) {
            xenforeignmemory_unmap(r->fm, p, *n);
            return NULL;
        }
    return p;
}

/* Each piece of [gpa, gpa + len) that MAP_PAGES pages hold. */
static uint32_t piece(uint64_t gpa, uint32_t len)
{
    uint64_t room = (uint64_t)MAP_PAGES * PAGE - (gpa & (PAGE - 1));

    return len < room ? len : (uint32_t)room;
}

int ftdm_ram_read(struct ftdm_ram *r, uint64_t gpa, void *buf, uint32_t len)
{
    uint8_t *out = buf;

    if (gpa + len < gpa)
        return -EFAULT;
    while (len) {
        uint32_t k = piece(gpa, len);
        unsigned int n;
        uint8_t *p = map(r, gpa, k, &n);

        if (!p)
            return -EFAULT;
        memcpy(out, p + (gpa & (PAGE - 1)), k);
        xenforeignmemory_unmap(r->fm, p, n);
        gpa += k;
        out += k;
        len -= k;
    }
    return 0;
}

bool ftdm_ram_ok(struct ftdm_ram *r, uint64_t gpa, uint32_t len)
{
    if (gpa + len < gpa)
        return false;
    while (len) {
        uint32_t k = piece(gpa, len);
        unsigned int n;
        void *p = map(r, gpa, k, &n);

        if (!p)
            return false;
        xenforeignmemory_unmap(r->fm, p, n);
        gpa += k;
        len -= k;
    }
    return true;
}

int ftdm_ram_write(struct ftdm_ram *r, uint64_t gpa, const void *buf,
                   uint32_t len, char *err, size_t errlen)
{
    const uint8_t *in = buf;

    if (gpa + len < gpa) {
        snprintf(err, errlen, "domain %u: a DMA write of %u bytes at %#llx "
                 "wraps", r->domid, len, (unsigned long long)gpa);
        return -EFAULT;
    }
    while (len) {
        uint32_t k = len < XLFT_XEN_DM_WRITE_MAX ? len
                                                 : XLFT_XEN_DM_WRITE_MAX;
        int rc = xlft_xen_dm_write(r->xen, r->domid, gpa, in, k, err,
                                   errlen);

        if (rc)
            return rc;
        gpa += k;
        in += k;
        len -= k;
    }
    return 0;
}
