/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * backend.h - what the pair engine asks of a protected guest, whatever
 * runs it: ftvm, the software HVM, through its control socket, or a
 * Xen HVM guest through libxlft's xen backend (FT domctl, the ring
 * mapped from Xen, its event channel, a copy made through libxl).
 *
 * Every call returns 0 or -errno with 'why' saying what the guest
 * refused or what failed, naming the guest.
 */
#ifndef FTD_BACKEND_H
#define FTD_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ft_ring.h"

enum guest_op {
    GUEST_PAUSE = 1,
    GUEST_UNPAUSE,
    GUEST_SAVE,             /* paused: a copy of the whole guest into fd */
    GUEST_RESTORE,          /* the copy in fd becomes the guest, paused */
    GUEST_RECORD,           /* record into a new ring of 'arg' bytes */
    GUEST_REPLAY,           /* paused: replay from a new ring */
    GUEST_GOLIVE,           /* replaying: finish the ring, then go live */
    GUEST_DISABLE,          /* recording: end the log here, run on */
    GUEST_STOP,             /* end the log if recording; the guest goes */
    GUEST_THROTTLE,         /* run at 'arg' percent of its speed */
    /*
     * This copy must not go on (a lost claim, a fence, a failed pair):
     * every output it holds is thrown away, never sent, and the guest
     * stops running for good (ftvm exits; a Xen domain is paused).
     */
    GUEST_HALT,
};

struct guest;

/*
 * Lab use only (xen): record on a CPU without a branch counter; the log
 * cannot be replayed exactly (xen-patches/README.md, CPUs).
 */
#define BACKEND_F_UNSAFE_NO_COUNTER  (1u << 0)
/*
 * A secondary's guest that GUEST_RESTORE creates (restore_creates):
 * 'spec' is what this host allows the copy to be (xen: the guest's xl
 * configuration here, xlft_xen_local.h).
 */
#define BACKEND_F_COPY               (1u << 1)

struct backend {
    const char *name;
    /* The copy's restore creates the guest (xen), not a guest started
     * for it beforehand (ftvm). */
    bool restore_creates;
    /*
     * 'spec': the guest (ftvm: its control socket; xen: a domain name or
     * id), or with BACKEND_F_COPY this host's configuration of the
     * guest a restore creates.  'peer' names the other host in
     * messages.  'flags': BACKEND_F_*.
     */
    int (*open)(struct guest **g, const char *spec, const char *peer,
                unsigned int flags, char *why, size_t len);
    void (*close)(struct guest *g);
    /* 'fd' (or -1) for SAVE and RESTORE, 'arg' as enum guest_op says. */
    int (*call)(struct guest *g, enum guest_op op, uint32_t arg, int fd,
                char *why, size_t len);
    /* Why the guest stopped replaying, once the ring says it did. */
    void (*why_stopped)(struct guest *g, char *why, size_t len);
    /* After RECORD or REPLAY: the ring, and its signals both ways. */
    struct ft_ring *(*ring)(struct guest *g);
    int (*ring_fd)(struct guest *g);        /* readable: the guest said */
    int (*ring_drain)(struct guest *g);     /* take what it said */
    void (*ring_notify)(struct guest *g);   /* say so to the guest */
    /*
     * The pair's state (and its error), where the platform shows it
     * (xenstore on Xen); NULL where ftd's own status is the only place.
     */
    void (*status)(struct guest *g, const char *state, const char *err);
};

extern const struct backend backend_ftvm;
extern const struct backend backend_xen;

/* "ftvm" or "xen", or NULL. */
const struct backend *backend_named(const char *name);

#endif /* FTD_BACKEND_H */
