// SPDX-License-Identifier: GPL-2.0-only
/*
 * ioreq.c - ftdm's ioreq server on Xen 4.17: created with no buffered
 * requests (ftdm claims neither the VGA window nor the RTC, the only
 * users of buffered ones), its synchronous page mapped as a resource,
 * enabled, and its vCPU's event channel bound.  Claimed PCI functions
 * get their configuration cycles as IOREQ_TYPE_PCI_CONFIG (Xen decodes
 * 0xcf8/0xcfc itself), claimed MMIO as IOREQ_TYPE_COPY; every enabled
 * server gets IOREQ_TYPE_INVALIDATE after the guest gave up RAM, and
 * must answer it or the vCPU waits for ever.
 */
#define __XEN_TOOLS__ 1     /* HVM_IOREQSRV_BUFIOREQ_OFF */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <xendevicemodel.h>
#include <xenevtchn.h>
#include <xenforeignmemory.h>
#include <xen/hvm/ioreq.h>
#include <xen/memory.h>

#include "ioreq.h"

struct ftdm_ioreq {
    uint32_t domid;
    ioservid_t id;
    bool created;
    xendevicemodel_handle *dm;
    xenforeignmemory_handle *fm;
    xenevtchn_handle *xce;
    xenforeignmemory_resource_handle *res;
    shared_iopage_t *page;
    evtchn_port_t port;     /* ours, bound to the vCPU's */
    bool bound;
};

static int fail(struct ftdm_ioreq *s, int rc, const char *what, char *err,
                size_t errlen)
{
    snprintf(err, errlen, "domain %u: %s: %s", s->domid, what,
             strerror(-rc));
    return rc;
}

static int neg_errno(void)
{
    return errno ? -errno : -EIO;
}

int ftdm_ioreq_open(struct ftdm_ioreq **sp, uint32_t domid, char *err,
                    size_t errlen)
{
    struct ftdm_ioreq *s = calloc(1, sizeof(*s));
    unsigned int nr;
    void *addr = NULL;
    int rc;

    *sp = NULL;
    if (!s) {
        snprintf(err, errlen, "domain %u: out of memory", domid);
        return -ENOMEM;
    }
    s->domid = domid;
    s->dm = xendevicemodel_open(NULL, 0);
    s->fm = xenforeignmemory_open(NULL, 0);
    s->xce = xenevtchn_open(NULL, 0);
    if (!s->dm || !s->fm || !s->xce) {
        rc = fail(s, neg_errno(), "cannot open libxendevicemodel, "
                  "libxenforeignmemory or libxenevtchn (is this dom0?)",
                  err, errlen);
        goto out;
    }
    if (xendevicemodel_nr_vcpus(s->dm, domid, &nr)) {
        rc = fail(s, neg_errno(), "cannot count its vCPUs (no such HVM "
                  "domain?)", err, errlen);
        goto out;
    }
    if (nr != 1) {
        snprintf(err, errlen, "domain %u: has %u vCPUs; a protected "
                 "guest has one", domid, nr);
        rc = -EINVAL;
        goto out;
    }
    if (xendevicemodel_create_ioreq_server(s->dm, domid,
                                           HVM_IOREQSRV_BUFIOREQ_OFF,
                                           &s->id)) {
        rc = fail(s, neg_errno(), "cannot create an ioreq server", err,
                  errlen);
        goto out;
    }
    s->created = true;
    s->res = xenforeignmemory_map_resource(
        s->fm, domid, XENMEM_resource_ioreq_server, s->id,
        XENMEM_resource_ioreq_server_frame_ioreq(0), 1, &addr,
        PROT_READ | PROT_WRITE, 0);
    if (!s->res) {
        rc = fail(s, neg_errno(), "cannot map its ioreq page", err, errlen);
        goto out;
    }
    s->page = addr;
    /* The vCPU's event channel is written into the page at enable. */
    if (xendevicemodel_set_ioreq_server_state(s->dm, domid, s->id, 1)) {
        rc = fail(s, neg_errno(), "cannot enable the ioreq server", err,
                  errlen);
        goto out;
    }
    rc = xenevtchn_bind_interdomain(s->xce, domid,
                                    s->page->vcpu_ioreq[0].vp_eport);
    if (rc < 0) {
        rc = fail(s, neg_errno(), "cannot bind the vCPU's event channel",
                  err, errlen);
        goto out;
    }
    s->port = (evtchn_port_t)rc;
    s->bound = true;
    *sp = s;
    return 0;
out:
    ftdm_ioreq_close(s);
    return rc;
}

void ftdm_ioreq_close(struct ftdm_ioreq *s)
{
    if (!s)
        return;
    if (s->created)
        xendevicemodel_set_ioreq_server_state(s->dm, s->domid, s->id, 0);
    if (s->bound)
        xenevtchn_unbind(s->xce, s->port);
    if (s->created)
        xendevicemodel_destroy_ioreq_server(s->dm, s->domid, s->id);
    if (s->res)
        xenforeignmemory_unmap_resource(s->fm, s->res);
    if (s->xce)
        xenevtchn_close(s->xce);
    if (s->fm)
        xenforeignmemory_close(s->fm);
    if (s->dm)
        xendevicemodel_close(s->dm);
    free(s);
}

int ftdm_ioreq_claim_pci(struct ftdm_ioreq *s, uint8_t devfn, char *err,
                         size_t errlen)
{
    char what[64];

    if (!xendevicemodel_map_pcidev_to_ioreq_server(s->dm, s->domid, s->id,
                                                   0, 0, devfn >> 3,
                                                   devfn & 7))
        return 0;
    snprintf(what, sizeof(what), "cannot claim PCI 00:%02x.%u", devfn >> 3,
             devfn & 7);
    return fail(s, neg_errno(), what, err, errlen);
}

static int mmio(struct ftdm_ioreq *s, bool claim, uint64_t start,
                uint64_t len, char *err, size_t errlen)
{
    char what[80];
    int rc = claim ?
        xendevicemodel_map_io_range_to_ioreq_server(s->dm, s->domid, s->id,
                                                    1, start, start + len - 1)
        : xendevicemodel_unmap_io_range_from_ioreq_server(s->dm, s->domid,
                                                          s->id, 1, start,
                                                          start + len - 1);

    if (!rc)
        return 0;
    snprintf(what, sizeof(what), "cannot %s MMIO %#llx-%#llx",
             claim ? "claim" : "release", (unsigned long long)start,
             (unsigned long long)(start + len - 1));
    return fail(s, neg_errno(), what, err, errlen);
}

int ftdm_ioreq_claim_mmio(struct ftdm_ioreq *s, uint64_t start,
                          uint64_t len, char *err, size_t errlen)
{
    return mmio(s, true, start, len, err, errlen);
}

int ftdm_ioreq_release_mmio(struct ftdm_ioreq *s, uint64_t start,
                            uint64_t len, char *err, size_t errlen)
{
    return mmio(s, false, start, len, err, errlen);
}

int ftdm_ioreq_fd(const struct ftdm_ioreq *s)
{
    return xenevtchn_fd(s->xce);
}

static uint64_t ones(unsigned int size)
{
    return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
}

/* One request of the page: an access for 'fn', or one ftdm refuses. */
static void handle(ioreq_t *req, ftdm_serve_fn *fn, void *opaque,
                   unsigned long *refused)
{
    struct ftdm_access a = {
        .write = req->dir == IOREQ_WRITE,
        .size = req->size,
        .data = req->dir == IOREQ_WRITE ? req->data & ones(req->size) : 0,
    };

    if (req->type == IOREQ_TYPE_INVALIDATE)
        return;                         /* ftdm keeps no mapping */
    if (req->data_is_ptr || req->count != 1 || req->size < 1 ||
        req->size > 8 || (req->type != IOREQ_TYPE_PCI_CONFIG &&
                          req->type != IOREQ_TYPE_COPY)) {
        (*refused)++;
        if (req->dir == IOREQ_READ && !req->data_is_ptr)
            req->data = ones(req->size);
        return;
    }
    if (req->type == IOREQ_TYPE_PCI_CONFIG) {
        a.kind = FTDM_CFG;
        a.devfn = (uint8_t)(req->addr >> 32);
        a.addr = req->addr & 0xfff;
    } else {
        a.kind = FTDM_MMIO;
        a.addr = req->addr;
    }
    fn(opaque, &a);
    if (!a.write)
        req->data = a.data & ones(req->size);
}

int ftdm_ioreq_serve(struct ftdm_ioreq *s, ftdm_serve_fn *fn, void *opaque,
                     unsigned long *refused)
{
    xenevtchn_port_or_error_t port = xenevtchn_pending(s->xce);
    ioreq_t *req = &s->page->vcpu_ioreq[0];

    if (port < 0)
        return neg_errno();
    xenevtchn_unmask(s->xce, port);
    /* state is a bit field: fences order it with the rest. */
    if ((evtchn_port_t)port != s->port || req->state != STATE_IOREQ_READY)
        return 0;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    req->state = STATE_IOREQ_INPROCESS;
    handle(req, fn, opaque, refused);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    req->state = STATE_IORESP_READY;
    return xenevtchn_notify(s->xce, s->port) ? neg_errno() : 0;
}

int ftdm_ioreq_msi(struct ftdm_ioreq *s, uint64_t addr, uint32_t data)
{
    return xendevicemodel_inject_msi(s->dm, s->domid, addr, data) ?
           neg_errno() : 0;
}
