// SPDX-License-Identifier: GPL-2.0-only
/*
 * xen_ft.c - the FT domctl through libxencall (xlft_xen.h).
 *
 * libxenctrl's xc_ft_* wrappers exist only in a patched Xen tree; a
 * domctl issued through libxencall needs nothing but the structure,
 * which comes from the series itself (xlft_ft_domctl.h is generated from
 * xen-patches by gen-ft-domctl.sh), against the stock public headers of
 * the same interface version.
 */
#define __XEN_TOOLS__ 1
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xencall.h>
#include <xenevtchn.h>
#include <xenforeignmemory.h>
#include <xen/domctl.h>
#include <xen/hvm/dm_op.h>
#include <xen/hvm/hvm_op.h>
#include <xen/hvm/params.h>
#include <xen/xen.h>

#include "xlft_ft_domctl.h"
#include "xlft_xen.h"

_Static_assert(XLFT_XEN_DM_WRITE_MAX == XEN_DMOP_FT_WRITE_MAX,
               "xlft_xen.h says another size than the series");

/*
 * The op travels in the domctl's union; its layout is the same for
 * 32- and 64-bit callers (seq is 8-aligned), as the public ABI needs.
 */
_Static_assert(sizeof(struct xen_domctl_ft_op) == 64,
               "xen_domctl_ft_op: 64 bytes in the public ABI");
_Static_assert(offsetof(struct xen_domctl_ft_op, seq) == 32,
               "xen_domctl_ft_op: seq at 32");
_Static_assert(offsetof(struct xen_domctl_ft_op, counter) == 44,
               "xen_domctl_ft_op: counter at 44");
_Static_assert(offsetof(struct xen_domctl_ft_op, count) == 48,
               "xen_domctl_ft_op: count at 48");
_Static_assert(offsetof(struct xen_domctl_ft_op, log_id) == 56,
               "xen_domctl_ft_op: log_id at 56");
_Static_assert(sizeof(struct xen_domctl_ft_op) <=
               sizeof(((struct xen_domctl *)0)->u.pad),
               "xen_domctl_ft_op fits the domctl union");

struct xlft_xen {
    xencall_handle *call;
    xenforeignmemory_handle *fmem;
    xenevtchn_handle *evtchn;
};

int xlft_xen_open(struct xlft_xen **xp, char *err, size_t errlen)
{
    struct xlft_xen *x = calloc(1, sizeof(*x));
    const char *what;
    int rc;

    *xp = NULL;
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    what = "libxencall";
    x->call = xencall_open(NULL, 0);
    if (!x->call)
        goto fail;
    what = "libxenforeignmemory";
    x->fmem = xenforeignmemory_open(NULL, 0);
    if (!x->fmem)
        goto fail;
    what = "libxenevtchn";
    x->evtchn = xenevtchn_open(NULL, 0);
    if (!x->evtchn)
        goto fail;
    /* An event loop drains it: xenevtchn_pending must never block. */
    rc = fcntl(xenevtchn_fd(x->evtchn), F_GETFL);
    if (rc < 0 || fcntl(xenevtchn_fd(x->evtchn), F_SETFL,
                        rc | O_NONBLOCK) < 0)
        goto fail;
    *xp = x;
    return 0;

fail:
    rc = errno ? -errno : -EIO;
    snprintf(err, errlen, "cannot open %s: %s (not dom0 of a Xen host, "
             "or the xen-privcmd/xen-evtchn modules are not loaded?)",
             what, strerror(-rc));
    xlft_xen_close(x);
    return rc;
}

void xlft_xen_close(struct xlft_xen *x)
{
    if (!x)
        return;
    if (x->evtchn)
        xenevtchn_close(x->evtchn);
    if (x->fmem)
        xenforeignmemory_close(x->fmem);
    if (x->call)
        xencall_close(x->call);
    free(x);
}

/*
 * Issue domctl 'cmd' for 'domid' with 'len' bytes of 'u' as its payload;
 * what Xen writes back is copied to 'u'.  0 or -errno, without a message.
 */
static int domctl(struct xlft_xen *x, uint32_t domid, uint32_t cmd, void *u,
                  size_t len)
{
    struct xen_domctl *d;
    int rc;

    /* Hypercall arguments must live in memory the kernel can lock. */
    d = xencall_alloc_buffer(x->call, sizeof(*d));
    if (!d)
        return -ENOMEM;
    memset(d, 0, sizeof(*d));
    d->cmd = cmd;
    d->interface_version = XEN_DOMCTL_INTERFACE_VERSION;
    d->domain = (domid_t)domid;
    memcpy(&d->u, u, len);

    rc = xencall1(x->call, __HYPERVISOR_domctl, (uint64_t)(uintptr_t)d);
    if (rc < 0) {
        rc = errno ? -errno : -EIO;
    } else {
        memcpy(u, &d->u, len);
        rc = 0;
    }
    xencall_free_buffer(x->call, d);
    return rc;
}

/* Issue the op in 'op' for 'domid'; the OUT fields come back in it. */
static int ft_op(struct xlft_xen *x, uint32_t domid,
                 struct xen_domctl_ft_op *op, char *err, size_t errlen)
{
    int rc;

    if (domid >= DOMID_FIRST_RESERVED) {
        snprintf(err, errlen, "domain %u: not a domain id", domid);
        return -EINVAL;
    }
    rc = domctl(x, domid, XEN_DOMCTL_ft_op, op, sizeof(*op));
    switch (rc) {
    case 0:
        break;
    case -ENOMEM:
        snprintf(err, errlen, "domain %u: no hypercall buffer", domid);
        break;
    case -ENOSYS:
        snprintf(err, errlen, "domain %u: hypervisor has no FT support "
                 "(apply xen-patches)", domid);
        break;
    case -EOPNOTSUPP:
        snprintf(err, errlen, "domain %u: hypervisor built without FT "
                 "support (CONFIG_HVM_FT)", domid);
        break;
    case -ESRCH:
        snprintf(err, errlen, "domain %u does not exist", domid);
        break;
    case -EACCES:
        snprintf(err, errlen, "domain %u: the hypervisor refused the "
                 "domctl (interface version %#x, not dom0?)", domid,
                 XEN_DOMCTL_INTERFACE_VERSION);
        break;
    default:
        snprintf(err, errlen, "domain %u: FT domctl failed: %s", domid,
                 strerror(-rc));
    }
    return rc;
}

/* Xen's TSC_MODE_ALWAYS_EMULATE (libxl's tsc_mode "always_emulate"). */
#define XEN_TSC_MODE_ALWAYS_EMULATE 1

/* HVMOP_get_param for 'domid': 0 or -errno. */
static int hvm_param(struct xlft_xen *x, uint32_t domid, uint32_t index,
                     uint64_t *value)
{
    struct xen_hvm_param *p = xencall_alloc_buffer(x->call, sizeof(*p));
    int rc;

    if (!p)
        return -ENOMEM;
    memset(p, 0, sizeof(*p));
    p->domid = (domid_t)domid;
    p->index = index;
    rc = xencall2(x->call, __HYPERVISOR_hvm_op, HVMOP_get_param,
                  (uint64_t)(uintptr_t)p);
    if (rc < 0)
        rc = errno ? -errno : -EIO;
    else
        *value = p->value;
    xencall_free_buffer(x->call, p);
    return rc;
}

/*
 * Xen refused to enable FT with -EDOM ('what': "recording" or "replay")
 * and logged why; name the reason here too when the domain's settings
 * show it, else list what Xen checks.
 */
static void unfit(struct xlft_xen *x, uint32_t domid, const char *what,
                  char *err, size_t errlen)
{
    struct xen_domctl_tsc_info tsc = { 0 };
    uint64_t v;

    if (!domctl(x, domid, XEN_DOMCTL_gettscinfo, &tsc, sizeof(tsc)) &&
        tsc.tsc_mode != XEN_TSC_MODE_ALWAYS_EMULATE) {
        snprintf(err, errlen, "domain %u: Xen refuses FT: TSC is not "
                 "emulated (tsc_mode must be always_emulate)", domid);
        return;
    }
    if (!hvm_param(x, domid, HVM_PARAM_VIRIDIAN, &v) && v) {
        snprintf(err, errlen, "domain %u: Xen refuses FT: viridian "
                 "enlightenments are on (viridian must be 0)", domid);
        return;
    }
    if (!hvm_param(x, domid, HVM_PARAM_CALLBACK_IRQ, &v) && v) {
        snprintf(err, errlen, "domain %u: Xen refuses FT: the guest uses "
                 "PV interfaces (an event channel callback; boot it with "
                 "nopv and xen_platform_pci = 0)", domid);
        return;
    }
    snprintf(err, errlen, "domain %u is unfit for %s: it needs vcpus=1, "
             "hap=0, oos=0, no nested HVM, tsc_mode=\"always_emulate\", "
             "viridian=0, no passthrough, no PV interfaces in use (nopv, "
             "xen_platform_pci=0), and RDRAND, RDSEED and TSX hidden where "
             "they cannot be intercepted (cpuid=\"host,rdrand=0,rdseed=0,"
             "rtm=0,hle=0\"), and, counting steps, SYSCALL not enabled; "
             "Xen's log (xl dmesg) says which", domid,
             what);
}

/* The enable errors both sub-ops share; false if 'rc' is not one. */
static bool enable_error(struct xlft_xen *x, uint32_t domid, int rc,
                         uint32_t ring_data, const char *what, char *err,
                         size_t errlen)
{
    switch (rc) {
    case -EDOM:
        unfit(x, domid, what, err, errlen);
        return true;
    case -E2BIG:
        snprintf(err, errlen, "domain %u: Xen refuses a ring of %u bytes: "
                 "it takes at most 64 MiB", domid, ring_data);
        return true;
    case -EINVAL:
        if (ring_data)
            snprintf(err, errlen, "domain %u: Xen refuses FT: the domain "
                     "has no vCPU yet, or the ring size %u is not a power "
                     "of two of at least 128 KiB", domid, ring_data);
        else
            snprintf(err, errlen, "domain %u: Xen refuses FT: the domain "
                     "has no vCPU yet", domid);
        return true;
    case -EEXIST:
        snprintf(err, errlen, "domain %u: FT is on already", domid);
        return true;
    }
    return false;
}

int xlft_xen_set_tsc_emulated(struct xlft_xen *x, uint32_t domid,
                              char *err, size_t errlen)
{
    struct xen_domctl_tsc_info tsc = { 0 };
    int rc;

    rc = domctl(x, domid, XEN_DOMCTL_gettscinfo, &tsc, sizeof(tsc));
    if (rc) {
        snprintf(err, errlen, "domain %u: cannot read its TSC mode: %s",
                 domid, strerror(-rc));
        return rc;
    }
    tsc.tsc_mode = XEN_TSC_MODE_ALWAYS_EMULATE;
    rc = domctl(x, domid, XEN_DOMCTL_settscinfo, &tsc, sizeof(tsc));
    if (rc == -EBUSY)
        snprintf(err, errlen, "domain %u: Xen refuses to change its TSC "
                 "mode while FT is on", domid);
    else if (rc)
        snprintf(err, errlen, "domain %u: cannot set its TSC mode: %s",
                 domid, strerror(-rc));
    return rc;
}

int xlft_xen_ft_status(struct xlft_xen *x, uint32_t domid,
                       struct xlft_xen_ft_status *st, char *err,
                       size_t errlen)
{
    struct xen_domctl_ft_op op = { .cmd = XEN_DOMCTL_ft_status };
    int rc = ft_op(x, domid, &op, err, errlen);

    if (rc)
        return rc;
    st->state = op.state;
    st->nr_frames = op.nr_frames;
    st->port = op.port;
    st->abi_version = op.abi_version;
    st->log_version = op.log_version;
    st->seq = op.seq;
    st->stopped = op.stopped;
    st->counter = op.counter;
    st->count = op.count;
    st->log_id = op.log_id;
    return 0;
}

int xlft_xen_ft_enable_record(struct xlft_xen *x, uint32_t domid,
                              uint32_t ring_data, uint32_t flags,
                              struct xlft_xen_ft_status *st, char *err,
                              size_t errlen)
{
    struct xen_domctl_ft_op op = { .cmd = XEN_DOMCTL_ft_enable_record,
                                   .flags = flags,
                                   .ring_data = ring_data };
    int rc;

    if ((flags & ~(XLFT_XEN_FT_UNSAFE_NO_COUNTER | XLFT_XEN_FT_STEPS)) ||
        (flags & XLFT_XEN_FT_UNSAFE_NO_COUNTER && flags & XLFT_XEN_FT_STEPS)) {
        snprintf(err, errlen, "domain %u: bad FT flags %#x", domid, flags);
        return -EINVAL;
    }
    rc = ft_op(x, domid, &op, err, errlen);
    if (enable_error(x, domid, rc, ring_data, "recording", err, errlen))
        return rc;
    switch (rc) {
    case 0:
        break;
    case -ENODEV:
        if (flags & XLFT_XEN_FT_STEPS)
            snprintf(err, errlen, "domain %u: this host cannot count "
                     "steps: its Xen cannot single-step the guest on this "
                     "vendor, or apicv is on (boot Xen with apicv=0)",
                     domid);
        else
            snprintf(err, errlen, "domain %u: this host cannot record "
                     "exactly: its CPU has no usable branch counter (AMD, "
                     "or no architectural PMU), or apicv is on (boot Xen "
                     "with apicv=0)", domid);
        return rc;
    case -EBUSY:
        snprintf(err, errlen, "domain %u: it is being saved or migrated "
                 "(log-dirty on), or the branch counter is in use (boot "
                 "Xen without vpmu= and with watchdog=0); Xen's log (xl "
                 "dmesg) says which", domid);
        return rc;
    default:
        return rc;
    }
    /* What the ring now is, as status reports it. */
    return xlft_xen_ft_status(x, domid, st, err, errlen);
}

int xlft_xen_ft_enable_replay(struct xlft_xen *x, uint32_t domid,
                              uint32_t ring_data, uint32_t flags,
                              struct xlft_xen_ft_status *st, char *err,
                              size_t errlen)
{
    struct xen_domctl_ft_op op = { .cmd = XEN_DOMCTL_ft_enable_replay,
                                   .flags = flags,
                                   .ring_data = ring_data };
    int rc;

    if (flags & ~XLFT_XEN_FT_STEPS) {
        snprintf(err, errlen, "domain %u: bad FT replay flags %#x", domid,
                 flags);
        return -EINVAL;
    }
    rc = ft_op(x, domid, &op, err, errlen);
    if (enable_error(x, domid, rc, ring_data, "replay", err, errlen))
        return rc;
    switch (rc) {
    case 0:
        return xlft_xen_ft_status(x, domid, st, err, errlen);
    case -ENODEV:
        if (flags & XLFT_XEN_FT_STEPS)
            snprintf(err, errlen, "domain %u: this host cannot replay "
                     "steps: its Xen cannot single-step the guest on this "
                     "vendor, or apicv is on (boot Xen with apicv=0)",
                     domid);
        else
            snprintf(err, errlen, "domain %u: this host cannot replay: "
                     "replay needs Intel VT-x with the monitor trap flag "
                     "and a usable branch counter, and apicv off (boot "
                     "Xen with apicv=0)", domid);
        break;
    case -EBUSY:
        snprintf(err, errlen, "domain %u: replay needs the copy paused "
                 "before it ever ran, not being saved or migrated, and the "
                 "branch counter free (no vpmu= and watchdog=0 on Xen's "
                 "command line)", domid);
        break;
    }
    return rc;
}

int xlft_xen_ft_go_live(struct xlft_xen *x, uint32_t domid, char *err,
                        size_t errlen)
{
    struct xen_domctl_ft_op op = { .cmd = XEN_DOMCTL_ft_go_live };
    int rc = ft_op(x, domid, &op, err, errlen);

    if (rc == -ENOENT)
        snprintf(err, errlen, "domain %u does not replay: nothing to take "
                 "live", domid);
    return rc;
}

/* XEN_DMOP_ft_write's first buffer: struct xen_dm_op with that member. */
struct dm_ft_write {
    uint32_t op;
    uint32_t pad;
    struct xen_dm_op_ft_write w;
};
_Static_assert(offsetof(struct dm_ft_write, w) ==
               offsetof(struct xen_dm_op, u),
               "the op follows struct xen_dm_op's header");

/*
 * Xen refuses the write (-EBUSY) while the record ring lacks room for it,
 * rather than hold this thread in the hypercall, where a dom0 kernel that
 * does not preempt it would never run ftd, which drains the ring: try
 * again, backing off to 50 ms, for XLFT_XEN_DM_WRITE_WAIT_S.
 */
static int dm_write_call(struct xlft_xen *x, uint32_t domid,
                         xen_dm_op_buf_t *bufs)
{
    struct timespec now, end, pause = { .tv_nsec = 1000 * 1000 };
    int rc;

    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += XLFT_XEN_DM_WRITE_WAIT_S;
    for (;;) {
        if (xencall3(x->call, __HYPERVISOR_dm_op, domid, 2,
                     (uint64_t)(uintptr_t)bufs) >= 0)
            return 0;
        rc = errno ? -errno : -EIO;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (rc != -EBUSY || now.tv_sec > end.tv_sec ||
            (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
            return rc;
        nanosleep(&pause, NULL);
        if (pause.tv_nsec < 50 * 1000 * 1000)
            pause.tv_nsec *= 2;
    }
}

int xlft_xen_dm_write(struct xlft_xen *x, uint32_t domid, uint64_t gpa,
                      const void *data, uint32_t len, char *err,
                      size_t errlen)
{
    struct dm_ft_write *op;
    xen_dm_op_buf_t *bufs;
    void *bytes;
    int rc = -ENOMEM;

    if (!len || len > XEN_DMOP_FT_WRITE_MAX) {
        snprintf(err, errlen, "domain %u: a DMA write of %u bytes (1 to %u)",
                 domid, len, XEN_DMOP_FT_WRITE_MAX);
        return -EINVAL;
    }
    op = xencall_alloc_buffer(x->call, sizeof(*op));
    bufs = xencall_alloc_buffer(x->call, 2 * sizeof(*bufs));
    bytes = xencall_alloc_buffer(x->call, len);
    if (!op || !bufs || !bytes) {
        snprintf(err, errlen, "domain %u: no hypercall buffer", domid);
        goto out;
    }
    memset(op, 0, sizeof(*op));
    op->op = XEN_DMOP_ft_write;
    op->w.gpa = gpa;
    op->w.len = len;
    memcpy(bytes, data, len);
    memset(bufs, 0, 2 * sizeof(*bufs));
    set_xen_guest_handle_raw(bufs[0].h, op);
    bufs[0].size = sizeof(*op);
    set_xen_guest_handle_raw(bufs[1].h, bytes);
    bufs[1].size = len;

    rc = dm_write_call(x, domid, bufs);
    if (rc == -EOPNOTSUPP)
        snprintf(err, errlen, "domain %u: the hypervisor has no FT DMA op "
                 "(apply xen-patches)", domid);
    else if (rc == -EBUSY)
        snprintf(err, errlen, "domain %u: DMA write of %u bytes at %#" PRIx64
                 ": the FT record ring stayed full for %d s (is ftd "
                 "draining it?); nothing written", domid, len, gpa,
                 XLFT_XEN_DM_WRITE_WAIT_S);
    else if (rc)
        snprintf(err, errlen, "domain %u: DMA write of %u bytes at %#" PRIx64
                 ": %s", domid, len, gpa, strerror(-rc));
out:
    xencall_free_buffer(x->call, bytes);
    xencall_free_buffer(x->call, bufs);
    xencall_free_buffer(x->call, op);
    return rc;
}

int xlft_xen_ft_disable(struct xlft_xen *x, uint32_t domid, char *err,
                        size_t errlen)
{
    struct xen_domctl_ft_op op = { .cmd = XEN_DOMCTL_ft_disable };

    return ft_op(x, domid, &op, err, errlen);
}

int xlft_xen_ring_map(struct xlft_xen *x, uint32_t domid,
                      const struct xlft_xen_ft_status *st, uint32_t role,
                      struct xlft_xen_ring *r, char *err, size_t errlen)
{
    int rc;

    memset(r, 0, sizeof(*r));
    r->res = xenforeignmemory_map_resource(x->fmem, domid,
                                           XENMEM_resource_ft, 0, 0,
                                           st->nr_frames, &r->mem,
                                           PROT_READ | PROT_WRITE, 0);
    if (!r->res) {
        rc = -errno;
        snprintf(err, errlen, "domain %u: cannot map the FT ring (%u "
                 "frames): %s", domid, st->nr_frames, strerror(errno));
        return rc;
    }
    r->size = st->nr_frames * 4096u;
    rc = ft_ring_attach(&r->ring, r->mem, r->size, role);
    if (rc) {
        snprintf(err, errlen, "domain %u: the hypervisor's ring is not one "
                 "this libxlft reads: %s", domid, ft_strerror(rc));
        xlft_xen_ring_unmap(x, r);
        return rc == FT_EPROTONOSUPPORT ? -EPROTONOSUPPORT : -EPROTO;
    }
    return 0;
}

void xlft_xen_ring_unmap(struct xlft_xen *x, struct xlft_xen_ring *r)
{
    (void)x;
    if (r->res)
        xenforeignmemory_unmap_resource(x->fmem, r->res);
    memset(r, 0, sizeof(*r));
}

int xlft_xen_evtchn_bind(struct xlft_xen *x, uint32_t domid, uint32_t port,
                         struct xlft_xen_evtchn *e, char *err,
                         size_t errlen)
{
    xenevtchn_port_or_error_t local;
    int rc;

    e->domid = domid;
    e->remote = port;
    e->local = -1;
    if (!port) {
        snprintf(err, errlen, "domain %u: no FT event channel to bind "
                 "(port 0: FT is off)", domid);
        return -EINVAL;
    }
    local = xenevtchn_bind_interdomain(x->evtchn, domid, port);
    if (local < 0) {
        rc = errno ? -errno : -EIO;
        snprintf(err, errlen, "domain %u: cannot bind its event channel "
                 "port %u: %s%s", domid, port, strerror(-rc),
                 rc == -EINVAL ? " (not a channel left unbound for dom0)"
                               : "");
        return rc;
    }
    e->local = local;
    return 0;
}

void xlft_xen_evtchn_unbind(struct xlft_xen *x, struct xlft_xen_evtchn *e)
{
    if (e->local >= 0)
        xenevtchn_unbind(x->evtchn, (evtchn_port_t)e->local);
    e->local = -1;
}

int xlft_xen_evtchn_notify(struct xlft_xen *x,
                           const struct xlft_xen_evtchn *e)
{
    if (e->local < 0)
        return -ENOTCONN;
    return xenevtchn_notify(x->evtchn, (evtchn_port_t)e->local) ?
           (errno ? -errno : -EIO) : 0;
}

int xlft_xen_evtchn_fd(struct xlft_xen *x)
{
    return xenevtchn_fd(x->evtchn);
}

int xlft_xen_evtchn_pending(struct xlft_xen *x,
                            const struct xlft_xen_evtchn *e)
{
    xenevtchn_port_or_error_t port = xenevtchn_pending(x->evtchn);

    if (port < 0)
        return errno == EAGAIN ? 0 : (errno ? -errno : -EIO);
    if (xenevtchn_unmask(x->evtchn, (evtchn_port_t)port))
        return errno ? -errno : -EIO;
    return port == e->local ? 1 : -EPROTO;
}

const char *xlft_xen_ft_state_name(uint32_t state)
{
    switch (state) {
    case XLFT_XEN_FT_OFF:
        return "off";
    case XLFT_XEN_FT_RECORD:
        return "record";
    case XLFT_XEN_FT_REPLAY:
        return "replay";
    case XLFT_XEN_FT_LIVE:
        return "live";
    }
    return "unknown";
}

_Static_assert(XLFT_XEN_FT_OFF == XEN_DOMCTL_ft_state_off &&
               XLFT_XEN_FT_RECORD == XEN_DOMCTL_ft_state_record &&
               XLFT_XEN_FT_REPLAY == XEN_DOMCTL_ft_state_replay &&
               XLFT_XEN_FT_LIVE == XEN_DOMCTL_ft_state_live &&
               XLFT_XEN_COUNTER_NONE == XEN_DOMCTL_ft_counter_none &&
               XLFT_XEN_COUNTER_BRANCHES == XEN_DOMCTL_ft_counter_branches &&
               XLFT_XEN_COUNTER_STEPS == XEN_DOMCTL_ft_counter_steps &&
               XLFT_XEN_FT_UNSAFE_NO_COUNTER ==
               XEN_DOMCTL_ft_flag_no_counter &&
               XLFT_XEN_FT_STEPS == XEN_DOMCTL_ft_flag_steps,
               "xlft_xen.h constants are the domctl's");
