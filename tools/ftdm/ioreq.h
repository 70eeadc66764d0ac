/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ioreq.h - ftdm's ioreq server: the guest accesses Xen routes to ftdm
 * (the configuration cycles of the PCI functions it claims, the MMIO of
 * the ranges it claims), served one at a time, and the MSIs it raises.
 * Its own server, beside the guest's QEMU; created, claimed and enabled
 * before the guest first runs, so that hvmloader finds the functions.
 *
 * Errors are negative errno values; 'err' gets a message naming the
 * domain.
 */
#ifndef FTDM_IOREQ_H
#define FTDM_IOREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ftdm_ioreq;

/* One access, as the guest made it. */
struct ftdm_access {
    enum { FTDM_CFG, FTDM_MMIO } kind;
    bool write;
    uint8_t devfn;          /* FTDM_CFG: the function (bus 0) */
    uint64_t addr;          /* FTDM_CFG: register; FTDM_MMIO: gpa */
    unsigned int size;      /* 1, 2, 4 (8 for MMIO) */
    uint64_t data;          /* a write's value; a read's answer */
};

/* Answer one access (fill data for a read). */
typedef void ftdm_serve_fn(void *opaque, struct ftdm_access *a);

/*
 * An ioreq server for 'domid' (one vCPU), enabled.  -ESRCH: no such
 * domain; -EOPNOTSUPP: not an HVM guest; others as Xen answers.
 */
int ftdm_ioreq_open(struct ftdm_ioreq **s, uint32_t domid, char *err,
                    size_t errlen);
void ftdm_ioreq_close(struct ftdm_ioreq *s);

/* Claim function 'devfn' of bus 0, or the MMIO range [start, start+len). */
int ftdm_ioreq_claim_pci(struct ftdm_ioreq *s, uint8_t devfn, char *err,
                         size_t errlen);
int ftdm_ioreq_claim_mmio(struct ftdm_ioreq *s, uint64_t start,
                          uint64_t len, char *err, size_t errlen);
int ftdm_ioreq_release_mmio(struct ftdm_ioreq *s, uint64_t start,
                            uint64_t len, char *err, size_t errlen);

/* A descriptor readable when the guest waits for an answer. */
int ftdm_ioreq_fd(const struct ftdm_ioreq *s);

/*
 * Serve what the guest waits for: each access goes to 'fn', then the
 * vCPU goes on.  An access ftdm cannot take (a string access to MMIO)
 * is counted in 'refused' and does nothing: a single read gets all ones,
 * a string read writes nothing into RAM, a write is dropped.  0, or
 * negative when the server is gone.
 */
int ftdm_ioreq_serve(struct ftdm_ioreq *s, ftdm_serve_fn *fn, void *opaque,
                     unsigned long *refused);

/* An MSI, with the address and data the guest programmed. */
int ftdm_ioreq_msi(struct ftdm_ioreq *s, uint64_t addr, uint32_t data);

#endif /* FTDM_IOREQ_H */
