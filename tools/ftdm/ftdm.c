// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftdm.c - the device model of a protected guest on Xen: the device core
 * that ftvm runs (hvm/devices: virtio 1.0 over PCI, MSI-X), served from
 * dom0 on an ioreq server of its own beside the guest's QEMU.
 *
 *   ftdm [--slot DEV] [--mac MAC] DOMID
 *
 * One process per guest, started while the guest is created paused
 * (hvmloader scans the bus once, at boot).  This version has the
 * virtio-net function alone, with no network backend: what the guest
 * sends is counted and dropped, nothing is received.  It runs until the
 * guest is gone, or SIGTERM or SIGINT.  Exit 0, 1 on an error (said
 * once, naming the domain), 2 on bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <xenstore.h>

#include "ioreq.h"
#include "ram.h"
#include "vio.h"

#define NET_SLOT    1           /* the function's slot in the core */
#define DEFAULT_DEV 5           /* its device number on Xen's bus 0 */

struct ftdm {
    uint32_t domid;
    uint8_t devfn;
    uint8_t mac[6];
    struct ftdm_ioreq *io;
    struct ftdm_ram *ram;
    struct vio_bus *bus;
    struct event_base *base;
    struct xs_handle *xs;       /* watching the domain's xenstore home */
    char home[32];              /* /local/domain/DOMID */
    uint32_t bar;               /* the MMIO range claimed (0: none) */
    int rc;                     /* why the loop ended: 0 or -errno */
    const char *why;            /* the end of a loop that ended well */
    unsigned long refused, frames, bytes, msis;
    char err[256];
};

static void stop(struct ftdm *d, int rc)
{
    if (!d->rc)
        d->rc = rc;
    event_base_loopexit(d->base, NULL);
}

static int ram_read(void *opaque, uint64_t gpa, void *buf, uint32_t len)
{
    struct ftdm *d = opaque;

    return ftdm_ram_read(d->ram, gpa, buf, len);
}

static bool ram_ok(void *opaque, uint64_t gpa, uint32_t len)
{
    struct ftdm *d = opaque;

    return ftdm_ram_ok(d->ram, gpa, len);
}

static int ram_write(void *opaque, uint64_t gpa, const void *buf,
                     uint32_t len)
{
    struct ftdm *d = opaque;
    int rc = ftdm_ram_write(d->ram, gpa, buf, len, d->err, sizeof(d->err));

    if (rc)
        stop(d, rc);
    return rc;
}

static void msi(void *opaque, uint64_t addr, uint32_t data)
{
    struct ftdm *d = opaque;
    int rc = ftdm_ioreq_msi(d->io, addr, data);

    d->msis++;
    if (rc) {
        snprintf(d->err, sizeof(d->err), "domain %u: cannot raise the MSI "
                 "%#llx/%#x: %s", d->domid, (unsigned long long)addr, data,
                 strerror(-rc));
        stop(d, rc);
    }
}

static void net_tx(void *opaque, const void *frame, uint32_t len)
{
    struct ftdm *d = opaque;

    (void)frame;
    d->frames++;
    d->bytes += len;
}

static void warn(void *opaque, const char *msg)
{
    struct ftdm *d = opaque;

    fprintf(stderr, "ftdm: domain %u: guest driver: %s\n", d->domid, msg);
}

/* Route the BAR's MMIO to ftdm where the guest placed it, and only then. */
static void follow_bar(struct ftdm *d)
{
    uint32_t base;
    bool on = vio_bar_at(d->bus, NET_SLOT, &base);
    int rc = 0;

    if (on && base == d->bar)
        return;
    if (d->bar)
        rc = ftdm_ioreq_release_mmio(d->io, d->bar, VIO_BAR_SIZE, d->err,
                                     sizeof(d->err));
    d->bar = 0;
    if (!rc && on) {
        rc = ftdm_ioreq_claim_mmio(d->io, base, VIO_BAR_SIZE, d->err,
                                   sizeof(d->err));
        if (!rc)
            d->bar = base;
    }
    if (rc)
        stop(d, rc);
}

static void serve(void *opaque, struct ftdm_access *a)
{
    struct ftdm *d = opaque;

    if (a->kind == FTDM_CFG) {
        if (a->devfn != d->devfn || a->addr > 255 || a->size > 4) {
            a->data = ~0ull;
        } else if (a->write) {
            vio_cfg_write(d->bus, NET_SLOT, (unsigned int)a->addr, a->size,
                          (uint32_t)a->data);
            follow_bar(d);
        } else {
            a->data = vio_cfg_read(d->bus, NET_SLOT, (unsigned int)a->addr,
                                   a->size);
        }
        return;
    }
    if (a->write)
        vio_mmio_write(d->bus, a->addr, a->size, a->data);
    else if (!vio_mmio_read(d->bus, a->addr, a->size, &a->data))
        a->data = ~0ull;
}

static void on_ioreq(evutil_socket_t fd, short what, void *opaque)
{
    struct ftdm *d = opaque;
    int rc = ftdm_ioreq_serve(d->io, serve, d, &d->refused);

    (void)fd;
    (void)what;
    if (rc) {
        snprintf(d->err, sizeof(d->err), "domain %u: serving its ioreq "
                 "server: %s", d->domid, strerror(-rc));
        stop(d, rc);
    }
}

/*
 * The toolstack removes the domain's home as it destroys it: the domain
 * itself cannot go while ftdm maps its ioreq page, so its release never
 * comes first.
 */
static bool home_gone(struct ftdm *d)
{
    unsigned int len;
    void *v = xs_read(d->xs, XBT_NULL, d->home, &len);

    free(v);
    return !v && errno == ENOENT;
}

static void on_home(evutil_socket_t fd, short what, void *opaque)
{
    struct ftdm *d = opaque;

    (void)fd;
    (void)what;
    free(xs_check_watch(d->xs));
    if (home_gone(d)) {
        d->why = "the domain is gone";
        stop(d, 0);
    }
}

static void on_signal(evutil_socket_t sig, short what, void *opaque)
{
    struct ftdm *d = opaque;

    (void)what;
    d->why = sig == SIGTERM ? "SIGTERM" : "SIGINT";
    stop(d, 0);
}

static int parse_mac(const char *s, uint8_t mac[6])
{
    unsigned int b[6];
    char end;

    if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
               &b[4], &b[5], &end) != 6 || (b[0] & 1))
        return -EINVAL;
    for (int i = 0; i < 6; i++)
        mac[i] = (uint8_t)b[i];
    return 0;
}

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "ftdm: %s\n", why);
    fprintf(stderr, "usage: ftdm [--slot DEV] [--mac MAC] DOMID\n");
    return 2;
}

/*
 * The bus: virtio-net, its BAR unplaced and decoding off until firmware
 * places it, as a function is at reset.
 */
static int bus_new(struct ftdm *d)
{
    const struct vio_host host = {
        .opaque = d, .ram_read = ram_read, .ram_write = ram_write,
        .ram_ok = ram_ok, .msi = msi, .net_tx = net_tx, .warn = warn,
    };

    d->bus = vio_bus_new(&host);
    if (!d->bus || vio_add_net(d->bus, NET_SLOT, VIO_BAR_SIZE, d->mac)) {
        snprintf(d->err, sizeof(d->err), "domain %u: cannot make its "
                 "virtio-net function", d->domid);
        return -ENOMEM;
    }
    vio_cfg_write(d->bus, NET_SLOT, 0x04, 2, 0);
    vio_cfg_write(d->bus, NET_SLOT, 0x10, 4, 0);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "slot", required_argument, NULL, 's' },
        { "mac", required_argument, NULL, 'm' },
        { "help", no_argument, NULL, 'h' },
        { 0 },
    };
    struct ftdm d = { .mac = { 0x00, 0x16, 0x3e, 0x46, 0x54, 0x01 } };
    struct event *ev_io = NULL, *ev_xs = NULL, *sigs[2] = { NULL, NULL };
    unsigned long dev = DEFAULT_DEV, domid;
    char *end;
    int c, rc = -1;

    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            dev = strtoul(optarg, &end, 0);
            if (*end || !dev || dev > 31)
                return usage("--slot: a device number 1 to 31");
            break;
        case 'm':
            if (parse_mac(optarg, d.mac))
                return usage("--mac: six hex bytes, unicast "
                             "(00:16:3e:46:54:01)");
            break;
        case 'h':
            usage(NULL);
            return 0;
        default:
            return usage(NULL);
        }
    }
    if (optind != argc - 1)
        return usage("one DOMID");
    domid = strtoul(argv[optind], &end, 10);
    if (*end || !domid || domid >= 0x7ff0)
        return usage("DOMID: a guest's domain number");
    d.domid = (uint32_t)domid;
    d.devfn = (uint8_t)(dev << 3);

    d.base = event_base_new();
    if (!d.base) {
        snprintf(d.err, sizeof(d.err), "domain %u: no event loop", d.domid);
        goto out;
    }
    if (bus_new(&d) || ftdm_ram_open(&d.ram, d.domid, d.err,
                                     sizeof(d.err)) ||
        ftdm_ioreq_open(&d.io, d.domid, d.err, sizeof(d.err)) ||
        ftdm_ioreq_claim_pci(d.io, d.devfn, d.err, sizeof(d.err)))
        goto out;
    snprintf(d.home, sizeof(d.home), "/local/domain/%u", d.domid);
    d.xs = xs_open(0);
    if (!d.xs || home_gone(&d) || !xs_watch(d.xs, d.home, "ftdm")) {
        snprintf(d.err, sizeof(d.err), "domain %u: cannot watch %s in "
                 "xenstore (no such domain?)", d.domid, d.home);
        goto out;
    }
    ev_io = event_new(d.base, ftdm_ioreq_fd(d.io), EV_READ | EV_PERSIST,
                      on_ioreq, &d);
    ev_xs = event_new(d.base, xs_fileno(d.xs), EV_READ | EV_PERSIST,
                      on_home, &d);
    sigs[0] = evsignal_new(d.base, SIGTERM, on_signal, &d);
    sigs[1] = evsignal_new(d.base, SIGINT, on_signal, &d);
    if (!ev_io || !ev_xs || !sigs[0] || !sigs[1] || event_add(ev_io, NULL) ||
        event_add(ev_xs, NULL) || event_add(sigs[0], NULL) ||
        event_add(sigs[1], NULL)) {
        snprintf(d.err, sizeof(d.err), "domain %u: cannot set up its "
                 "events", d.domid);
        goto out;
    }
    printf("ftdm: domain %u: virtio-net at 00:%02x.0, MAC "
           "%02x:%02x:%02x:%02x:%02x:%02x, no network backend; serving\n",
           d.domid, (unsigned int)dev, d.mac[0], d.mac[1], d.mac[2],
           d.mac[3], d.mac[4], d.mac[5]);
    fflush(stdout);
    event_base_dispatch(d.base);
    if (d.rc)
        goto out;
    printf("ftdm: domain %u: stopped (%s); the guest sent %lu frames (%lu "
           "bytes), dropped: no network backend; %lu MSIs raised; %lu "
           "accesses refused\n", d.domid, d.why ? d.why : "its loop ended",
           d.frames, d.bytes, d.msis, d.refused);
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "ftdm: %s\n", d.err[0] ? d.err : "failed");
    for (int i = 0; i < 2; i++)
        if (sigs[i])
            event_free(sigs[i]);
    if (ev_xs)
        event_free(ev_xs);
    if (ev_io)
        event_free(ev_io);
    if (d.xs)
        xs_close(d.xs);
    ftdm_ioreq_close(d.io);
    ftdm_ram_close(d.ram);
    if (d.bus)
        vio_bus_free(d.bus);
    if (d.base)
        event_base_free(d.base);
    return rc ? 1 : 0;
}
