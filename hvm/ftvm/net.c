// SPDX-License-Identifier: GPL-2.0-only
/*
 * net.c - the network behind the virtio-net function: a tap device or
 * a UDP socket on loopback, each datagram one Ethernet frame.
 *
 * Received frames wait in the host socket; one enters guest memory only
 * at a point where the interrupt can be taken, as DMA records, so the
 * copy gets it from the log at the same point.  A transmitted frame is
 * an output at the guest's notify (the device core gives it back to
 * the guest there, on both sides alike); a datagram that the host fails
 * to send is lost, as on a wire.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ftvm.h"

#define FRAME_MAX   VIO_NET_FRAME_MAX

/* "tap:NAME": a tap device of that name, created if need be. */
static int open_tap(struct ftvm *vm, const char *name)
{
    struct nic *n = &vm->nic;
    struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };

    if (!*name || strlen(name) >= IFNAMSIZ) {
        snprintf(vm->why, sizeof(vm->why), "--net tap:%s: want a device "
                 "name of 1 to %d characters", name, IFNAMSIZ - 1);
        return -EINVAL;
    }
    strcpy(ifr.ifr_name, name);
    n->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (n->fd < 0 || ioctl(n->fd, TUNSETIFF, &ifr)) {
        snprintf(vm->why, sizeof(vm->why), "--net tap:%s: %s (tap devices "
                 "need root)", name, strerror(errno));
        return -errno;
    }
    n->tap = true;
    return 0;
}

/* "udp:LPORT:PPORT": frames in on 127.0.0.1:LPORT, out to :PPORT. */
int nic_open(struct ftvm *vm, const char *spec)
{
    struct nic *n = &vm->nic;
    struct sockaddr_in a = { .sin_family = AF_INET };
    unsigned int lport, pport;
    char end;

    if (!strncmp(spec, "tap:", 4))
        return open_tap(vm, spec + 4);
    if (sscanf(spec, "udp:%u:%u%c", &lport, &pport, &end) != 2 ||
        !lport || lport > 65535 || !pport || pport > 65535) {
        snprintf(vm->why, sizeof(vm->why), "--net %s: want udp:LPORT:PPORT "
                 "(ports on 127.0.0.1)", spec);
        return -EINVAL;
    }
    n->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)lport);
    /* Frames wait here while the guest has no buffer posted: room for a
     * burst, as a NIC's FIFO and a tap's queue give. */
    if (n->fd >= 0)
        setsockopt(n->fd, SOL_SOCKET, SO_RCVBUF, &(int){ 4 << 20 },
                   sizeof(int));
    if (n->fd < 0 || bind(n->fd, (struct sockaddr *)&a, sizeof(a))) {
        snprintf(vm->why, sizeof(vm->why), "--net: cannot listen on "
                 "127.0.0.1:%u: %s", lport, strerror(errno));
        return -errno;
    }
    n->peer = a;
    n->peer.sin_port = htons((uint16_t)pport);
    return 0;
}

/*
 * A secondary keeps the frames its guest sent lately (the last RECENT_MS
 * of replay, RECENT_MAX bytes at most): the primary may have died with
 * them still in its output gate, so going live sends them again.  A
 * frame twice is what networks deliver anyway.
 */
#define RECENT_MAX  (1u << 20)
#define RECENT_MS   500u

struct recent {
    uint64_t at_ns;
    uint32_t len;
    uint8_t data[];
};

static uint64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void keep_recent(struct ftvm *vm, const void *frame, uint32_t len)
{
    struct nic *n = &vm->nic;
    uint64_t now = mono_ns();
    struct recent *r;

    /* Oldest first out: too old, or no room. */
    while (n->nrecent && (n->recent_bytes + len > RECENT_MAX ||
           ((struct recent *)n->recent[0])->at_ns + RECENT_MS * 1000000ull
           < now)) {
        n->recent_bytes -= ((struct recent *)n->recent[0])->len;
        free(n->recent[0]);
        memmove(n->recent, n->recent + 1, --n->nrecent * sizeof(void *));
    }
    if (n->nrecent == NIC_RECENT || len > RECENT_MAX)
        return;
    r = malloc(sizeof(*r) + len);
    if (!r)
        return;                 /* a frame not kept: the network's loss */
    r->at_ns = now;
    r->len = len;
    memcpy(r->data, frame, len);
    n->recent[n->nrecent++] = r;
    n->recent_bytes += len;
}

static void drop_recent(struct nic *n)
{
    for (unsigned int i = 0; i < n->nrecent; i++)
        free(n->recent[i]);
    n->nrecent = 0;
    n->recent_bytes = 0;
}

void nic_close(struct ftvm *vm)
{
    drop_recent(&vm->nic);
    if (vm->nic.fd >= 0)
        close(vm->nic.fd);
    vm->nic.fd = -1;
}

/* A frame leaves for the host's network; a lost one is the network's. */
void nic_send(struct ftvm *vm, const void *frame, size_t len)
{
    struct nic *n = &vm->nic;

    if (n->fd >= 0 && n->tap)
        (void)!write(n->fd, frame, len);
    else if (n->fd >= 0)
        (void)!sendto(n->fd, frame, len, 0, (struct sockaddr *)&n->peer,
                      sizeof(n->peer));
}

/* A frame the guest sent: an output on both sides, sent by the primary. */
void nic_transmit(struct ftvm *vm, const void *frame, uint32_t len)
{
    struct ft_log_rec r = { .kind = FT_K_OUTPUT };

    r.u.output.id = ++vm->output_id;
    if (!ftvm_input(vm, &r))
        return;
    if (vm->mode != FTVM_REPLAY && vm->nic.fd >= 0)
        ftvm_output(vm, FTVM_OUT_NET, vm->output_id, frame, len);
    else if (vm->mode == FTVM_REPLAY && vm->attached)
        keep_recent(vm, frame, len);
}

/* The guest has posted a buffer a frame could go into. */
bool nic_can_receive(struct ftvm *vm)
{
    return vm->nic.fd >= 0 && vio_net_can_rx(vm->pci, PCI_SLOT_NET);
}

/*
 * The primary, in a completion (devices.c): frames that arrived enter
 * posted receive buffers, at most a queue's worth at a time.
 */
int nic_receive(struct ftvm *vm)
{
    struct nic *n = &vm->nic;
    static uint8_t frame[FRAME_MAX];

    for (unsigned int k = 0; k < VIO_QSIZE_MAX && nic_can_receive(vm) &&
         !vm->status; k++) {
        ssize_t got = n->tap ? read(n->fd, frame, sizeof(frame))
                             : recv(n->fd, frame, sizeof(frame), 0);

        if (got < 0)
            break;
        if (vio_net_rx(vm->pci, PCI_SLOT_NET, frame, (uint32_t)got))
            break;
    }
    return vm->status ? -1 : 0;
}

/*
 * A secondary going live: what its host queued while it replayed was
 * the primary's to take (and is in the log if it did), so it goes; then
 * the guest's MAC is announced (RARP, as QEMU does after a migration) so
 * that switches send its traffic here from now on.
 */
void nic_go_live(struct ftvm *vm)
{
    static uint8_t frame[FRAME_MAX];
    uint8_t rarp[VIO_NET_ANNOUNCE];
    struct nic *n = &vm->nic;

    if (n->fd < 0)
        return;
    for (int k = 0; k < 4096; k++) {
        ssize_t got = n->tap ? read(n->fd, frame, sizeof(frame))
                             : recv(n->fd, frame, sizeof(frame),
                                    MSG_DONTWAIT);

        if (got < 0)
            break;
    }
    vio_net_announce(ftvm_mac, rarp);
    for (int k = 0; k < 3; k++)
        nic_send(vm, rarp, sizeof(rarp));
    for (unsigned int i = 0; i < n->nrecent; i++) {
        struct recent *r = n->recent[i];

        nic_send(vm, r->data, r->len);
    }
    drop_recent(n);
}

