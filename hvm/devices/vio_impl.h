/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vio_impl.h - what the device core's files share.  Internal to
 * hvm/devices.
 */
#ifndef VIO_IMPL_H
#define VIO_IMPL_H

#include "vio.h"

#define VIO_QUEUES      2
#define VIO_VECTORS     3       /* MSI-X: config change and each queue */
#define VIO_NO_VECTOR   0xffffu

/* BAR 0 layout (DEVICES.md). */
#define BAR_COMMON      0x0000u
#define BAR_COMMON_LEN  0x38u
#define BAR_MSIX        0x0800u
#define BAR_PBA         0x0c00u
#define BAR_ISR         0x1000u
#define BAR_DEVCFG      0x2000u
#define BAR_DEVCFG_LEN  0x100u
#define BAR_NOTIFY      0x3000u
#define NOTIFY_MULT     4u

/* device_status bits (virtio 1.0, 2.1). */
#define ST_ACKNOWLEDGE  1u
#define ST_DRIVER       2u
#define ST_DRIVER_OK    4u
#define ST_FEATURES_OK  8u
#define ST_NEEDS_RESET  0x40u
#define ST_FAILED       0x80u

#define F_VERSION_1     (1ull << 32)

struct vio_queue {
    uint16_t size;              /* as the driver set it */
    uint16_t vector;
    uint16_t enable;
    uint64_t desc, avail, used;
    uint16_t taken;             /* blk: requests taken (mod 2^16) */
};

struct vio_msix {
    uint32_t addr_lo, addr_hi, data, ctrl;
};

struct vio_fn {
    enum vio_kind kind;
    struct vio_bus *bus;
    unsigned int slot;
    uint8_t cfg[256];           /* configuration space */
    uint8_t wmask[256];         /* its bits a guest may write */
    uint64_t features;          /* offered */
    unsigned int nqueues, nvectors;

    /* Common configuration. */
    uint32_t dfsel, gfsel;      /* device/driver feature select */
    uint64_t gfeatures;         /* what the driver wrote */
    uint16_t config_vector;
    uint8_t status;
    uint16_t qsel;
    struct vio_queue q[VIO_QUEUES];
    struct vio_msix msix[VIO_VECTORS];
    uint32_t epoch;             /* resets so far */
    bool broken;                /* NEEDS_RESET: no queue is served */
    uint64_t pending;           /* host: MSI-X pending bits (PBA) */

    /* Device configuration. */
    uint8_t mac[6];
    uint64_t sectors;
    char serial[20];
    unsigned int warned;        /* bit per kind of warning said */
};

/* A descriptor chain: readable segments first, then writable ones. */
struct vio_seg {
    uint64_t gpa;
    uint32_t len;
};

struct vio_chain {
    uint16_t head;
    unsigned int nr, nw;        /* readable, writable segments */
    uint64_t rlen, wlen;        /* their bytes */
    struct vio_seg seg[VIO_QSIZE_MAX];
};

/* Scratch space of the device paths, one each: a host's callback may
 * come back into the core (another device's access) while one is used. */
struct vio_scratch {
    struct vio_chain tx, rx, submit, complete;
    uint8_t frame[VIO_NET_FRAME_MAX];
    uint8_t rx_buf[VIO_NET_HDR + VIO_NET_FRAME_MAX];
    uint8_t blk_data[VIO_BLK_MAX];
};

struct vio_bus {
    struct vio_host host;
    uint32_t cf8;
    struct vio_fn *fn[VIO_SLOTS];
    struct vio_scratch *s;
};

/* pci.c */
void vio_cfg_init(struct vio_fn *f, uint16_t device_id, uint32_t class,
                  uint32_t bar);
bool vio_msix_enabled(const struct vio_fn *f);
void vio_msix_unmasked(struct vio_fn *f);

/* virtio.c */
void vio_fn_reset(struct vio_fn *f);
uint64_t vio_bar_read(struct vio_fn *f, uint32_t off, unsigned int size);
void vio_bar_write(struct vio_fn *f, uint32_t off, unsigned int size,
                   uint64_t val);
void vio_signal(struct vio_fn *f, uint16_t vector);
void vio_fail(struct vio_fn *f, const char *why);
void vio_warn(struct vio_fn *f, unsigned int kind, const char *why);
bool vio_queue_live(const struct vio_fn *f, unsigned int qi);

/* virtq.c: the split virtqueue of 'q' in guest RAM. */
int vq_read16(struct vio_fn *f, uint64_t gpa, uint16_t *v);
int vq_avail_idx(struct vio_fn *f, const struct vio_queue *q, uint16_t *idx);
int vq_used_idx(struct vio_fn *f, const struct vio_queue *q, uint16_t *idx);
int vq_head(struct vio_fn *f, const struct vio_queue *q, uint16_t n,
            uint16_t *head);
int vq_chain(struct vio_fn *f, const struct vio_queue *q, uint16_t head,
             struct vio_chain *c, const char **why);
int vq_gather(struct vio_fn *f, const struct vio_chain *c, uint64_t skip,
              void *buf, uint32_t len);
int vq_scatter(struct vio_fn *f, const struct vio_chain *c, uint64_t skip,
               const void *buf, uint32_t len);
int vq_put_used(struct vio_fn *f, const struct vio_queue *q, uint16_t n,
                uint16_t head, uint32_t len);

/* virtio_net.c, virtio_blk.c: the device types. */
uint8_t vio_net_cfg(const struct vio_fn *f, uint32_t off);
void vio_net_notify(struct vio_fn *f, unsigned int qi);
uint8_t vio_blk_cfg(const struct vio_fn *f, uint32_t off);
void vio_blk_notify(struct vio_fn *f, unsigned int qi);
void vio_blk_resubmit(struct vio_fn *f);

#endif /* VIO_IMPL_H */
