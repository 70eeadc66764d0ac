/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vio.h - the device core: a PCI bus with virtio 1.0 network and block
 * functions, deterministic by construction, for any hypervisor that
 * gives it the host interface below (ftvm; on Xen, ftdm).
 *
 * The lockstep rules (DEVICES.md, "What is recorded"):
 * - guest RAM is read only inside a guest access (a config cycle, an
 *   MMIO access of a BAR) or inside a completion the host logs;
 * - every write into guest RAM goes through the host's ram_write, which
 *   logs what a completion writes and does alike on both copies what an
 *   access writes;
 * - requests complete in the order they were taken; no EVENT_IDX;
 *   interrupts are MSI-X messages only, so no device read has a side
 *   effect;
 * - a copy that replays runs the same accesses with no backend and no
 *   completions of its own: the logged ones are its completions.
 * So what vio_visit() calls "state" is equal on both copies at every
 * access, and what it calls "host" (pending interrupt bits) is not part
 * of that state: it only exists where completions run.
 *
 * Nothing here uses Unicorn or Xen; the core is not thread-safe (one
 * vCPU drives it).
 */
#ifndef VIO_H
#define VIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VIO_SLOTS           4       /* PCI devices on bus 0, host bridge 0 */
#define VIO_QSIZE_MAX       256     /* descriptors per queue offered */
#define VIO_BAR_SIZE        0x4000u
#define VIO_NET_FRAME_MAX   2048u   /* Ethernet frame without virtio header */
#define VIO_NET_HDR         12u     /* struct virtio_net_hdr (VERSION_1) */
#define VIO_BLK_MAX         (1u << 20)  /* data bytes of one request */
#define VIO_BLK_SECTOR      512u

/* virtio-blk request types and statuses (virtio 1.0, 5.2.6). */
#define VIO_BLK_T_IN        0u
#define VIO_BLK_T_OUT       1u
#define VIO_BLK_T_FLUSH     4u
#define VIO_BLK_T_GET_ID    8u
#define VIO_BLK_S_OK        0u
#define VIO_BLK_S_IOERR     1u
#define VIO_BLK_S_UNSUPP    2u

enum vio_kind { VIO_NONE, VIO_NET, VIO_BLK };

/* A block request as the host performs it. */
struct vio_blk_req {
    uint32_t type;          /* VIO_BLK_T_* */
    uint32_t status;        /* VIO_BLK_S_OK: perform it; else complete so */
    uint64_t sector;
    uint32_t len;           /* data bytes to read or write */
    uint16_t head;          /* its descriptor: vio_blk_complete() */
    uint32_t epoch;         /* the device's reset count when taken */
    const void *data;       /* OUT: the data (len bytes), during the call */
};

/* What the hypervisor gives the core.  Every call gets 'opaque'. */
struct vio_host {
    void *opaque;
    /* Copy guest RAM; 0, or negative when any byte is not RAM. */
    int (*ram_read)(void *opaque, uint64_t gpa, void *buf, uint32_t len);
    /* Write guest RAM (see above); 0, or negative when not RAM. */
    int (*ram_write)(void *opaque, uint64_t gpa, const void *buf,
                     uint32_t len);
    /* Whether [gpa, gpa + len) is guest RAM. */
    bool (*ram_ok)(void *opaque, uint64_t gpa, uint32_t len);
    /* An MSI-X message: address and data as the guest programmed them. */
    void (*msi)(void *opaque, uint64_t addr, uint32_t data);
    /* A frame the guest sent, at the access that sent it. */
    void (*net_tx)(void *opaque, const void *frame, uint32_t len);
    /* A block request taken at the access that posted it; the host
     * completes it later with vio_blk_complete(), in order. */
    void (*blk_submit)(void *opaque, const struct vio_blk_req *req);
    /* A queue was notified (after the core took what it could): a
     * receive queue may have buffers now.  May be NULL. */
    void (*notified)(void *opaque, unsigned int slot, unsigned int queue);
    /* A driver's mistake, said once per kind and device.  May be NULL. */
    void (*warn)(void *opaque, const char *msg);
};

struct vio_bus;

/* A bus with the host bridge at slot 0 and nothing else. */
struct vio_bus *vio_bus_new(const struct vio_host *host);
void vio_bus_free(struct vio_bus *bus);

/*
 * Plug a function into 'slot' (1 .. VIO_SLOTS - 1) with its BAR at
 * 'bar' (what firmware would assign; the guest may move it) and memory
 * decoding on.  Net: 'mac' (6 bytes).  Blk: 'sectors' of 512 bytes and
 * the serial GET_ID answers (up to 20 bytes).  0 or -EINVAL.
 */
int vio_add_net(struct vio_bus *bus, unsigned int slot, uint32_t bar,
                const uint8_t mac[6]);
int vio_add_blk(struct vio_bus *bus, unsigned int slot, uint32_t bar,
                uint64_t sectors, const char *serial);

/* The disk's size in sectors, as the host found it (host config). */
int vio_blk_set_capacity(struct vio_bus *bus, unsigned int slot,
                         uint64_t sectors);

/* Configuration mechanism 1: 0xCF8 (4 bytes) and 0xCFC-0xCFF. */
bool vio_pio_claims(uint16_t port);
uint32_t vio_pio_read(struct vio_bus *bus, uint16_t port, unsigned int size);
void vio_pio_write(struct vio_bus *bus, uint16_t port, unsigned int size,
                   uint32_t val);

/*
 * A configuration access to the function in 'slot' at register 'reg'
 * (0-255), as a hypervisor that decodes mechanism 1 itself hands it over
 * (Xen routes each to the device model that claimed the function).  A
 * read of an empty slot floats (all ones).
 */
uint32_t vio_cfg_read(struct vio_bus *bus, unsigned int slot,
                      unsigned int reg, unsigned int size);
void vio_cfg_write(struct vio_bus *bus, unsigned int slot, unsigned int reg,
                   unsigned int size, uint32_t val);

/*
 * Where the function in 'slot' decodes its BAR (VIO_BAR_SIZE bytes) now:
 * true and its base, or false while memory decoding is off or the BAR is
 * not placed.  A hypervisor that routes MMIO by range asks after each
 * configuration write.
 */
bool vio_bar_at(const struct vio_bus *bus, unsigned int slot,
                uint32_t *base);

/* A memory access: true if a BAR claims 'gpa' (else nothing is there). */
bool vio_mmio_read(struct vio_bus *bus, uint64_t gpa, unsigned int size,
                   uint64_t *val);
bool vio_mmio_write(struct vio_bus *bus, uint64_t gpa, unsigned int size,
                    uint64_t val);

/* Receive: whether the net function in 'slot' has a buffer posted; put
 * a frame in it (a completion).  0, -EAGAIN (no buffer: the frame waits
 * on the host), or -EINVAL (no such function). */
bool vio_net_can_rx(struct vio_bus *bus, unsigned int slot);
int vio_net_rx(struct vio_bus *bus, unsigned int slot, const void *frame,
               uint32_t len);

/*
 * The frame a copy going live sends to announce the guest's MAC: RARP,
 * as QEMU announces a guest it moved, so that switches send its traffic
 * to the new host.  VIO_NET_ANNOUNCE bytes into 'frame'.
 */
#define VIO_NET_ANNOUNCE    60u
void vio_net_announce(const uint8_t mac[6],
                      uint8_t frame[VIO_NET_ANNOUNCE]);

/* Whether 'req' was taken since the device's last reset (a completion
 * of an older one would be dropped). */
bool vio_blk_current(const struct vio_bus *bus, unsigned int slot,
                     const struct vio_blk_req *req);

/* The host performed 'req' of the blk function in 'slot': the oldest
 * request in flight (a completion).  'data' holds what an IN read
 * (req->len bytes) when status is VIO_BLK_S_OK.  A completion that
 * matches no request in flight (a reset came between) is dropped. */
void vio_blk_complete(struct vio_bus *bus, unsigned int slot,
                      const struct vio_blk_req *req, uint32_t status,
                      const void *data);

/* A copy going live: block requests in flight are submitted again, in
 * order, and every queue gets one interrupt (its driver looks).  At an
 * instruction boundary, never from within a host callback. */
void vio_go_live(struct vio_bus *bus);

/*
 * Every field of the buses' state, in one fixed order: 'fn' is called
 * with its name, its value, and whether it is part of the state both
 * copies must share (host = false) or the host's alone (pending
 * interrupts).  When 'load' is set, fn's value is stored back.  One
 * definition for the state hash, snapshots and naming a difference.
 * The functions plugged in are not loaded but checked: -EINVAL if the
 * values name other ones (and the state is then partly loaded).
 * Host configuration (a disk's size, a MAC) is not state.
 */
typedef void vio_field_fn(void *ctx, const char *name, uint64_t *val,
                          bool host);
int vio_visit(struct vio_bus *bus, vio_field_fn *fn, void *ctx, bool load);

#endif /* VIO_H */
