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
struct ftd_config;

/*
 * Lab use only (xen): record on a CPU without a branch counter; the log
 * cannot be replayed exactly (xen-patches/README.md, CPUs).
 */
#define BACKEND_F_UNSAFE_NO_COUNTER  (1u << 0)
/*
 * A secondary's copy: 'spec' is what make_copy gave (or ftd's command
 * line), the guest the restore goes into or this host's configuration
 * of the guest the restore creates (xen: xlft_xen_local.h).
 */
#define BACKEND_F_COPY               (1u << 1)
/*
 * The counter asked for (xen; neither: the host's own, branches on
 * Intel, steps on AMD).  Both hosts of a pair must ask for the same:
 * the handshake refuses a pair whose logs would count otherwise.
 */
#define BACKEND_F_STEPS              (1u << 2)
#define BACKEND_F_BRANCHES           (1u << 3)
#define BACKEND_F_COUNTER            (BACKEND_F_STEPS | BACKEND_F_BRANCHES)

/* What ftd's command line gives for one pair set up by hand. */
struct backend_args {
    bool secondary;
    const char *guest;          /* --guest, or NULL */
    const char *copy_config;    /* --xen-config, or NULL */
    unsigned int flags;         /* BACKEND_F_* asked for */
};

struct backend {
    const char *name;
    /*
     * 'spec': the guest (ftvm: its control socket; xen: a domain name or
     * id), or with BACKEND_F_COPY a secondary's copy.  'peer' names the
     * other host in messages.  'flags': BACKEND_F_*.
     */
    int (*open)(struct guest **g, const char *spec, const char *peer,
                unsigned int flags, char *why, size_t len);
    void (*close)(struct guest *g);
    /* 'fd' (or -1) for SAVE and RESTORE, 'arg' as enum guest_op says. */
    int (*call)(struct guest *g, enum guest_op op, uint32_t arg, int fd,
                char *why, size_t len);
    /* Why the guest stopped replaying, once the ring says it did. */
    void (*why_stopped)(struct guest *g, char *why, size_t len);
    /*
     * Whether the guest has stopped by itself, for good (powered off,
     * or halted with nothing to wake it), its log ended in order: 1,
     * and 'why' says how; 0 if not (or if it cannot tell).  Asked of a
     * primary whose ring has gone quiet, which may be a guest paused or
     * a platform that is slow to answer: -EAGAIN while the answer has
     * not come, never a wait for it.  Another negative code: the guest
     * is gone without an end (its ftvm died), as 'why' says.  NULL: the
     * backend cannot tell.
     */
    int (*ended)(struct guest *g, char *why, size_t len);
    /*
     * After GOLIVE: whether the copy has replayed all it was given and
     * runs as the guest: 1; 0 not yet, or -EAGAIN while the answer has
     * not come (never a wait for it); another negative code: it will
     * not, as 'why' says.  NULL: live once GOLIVE is accepted.
     */
    int (*went_live)(struct guest *g, char *why, size_t len);
    /*
     * A descriptor whose other end closes when the guest's platform
     * goes (ftvm killed): watched for that alone.  -1: none.
     */
    int (*ctl_fd)(struct guest *g);
    /*
     * What the points of this host's logs count and on which CPU
     * (FT_COUNTER_*, FT_CPU_*; ft_abi.h), the guest run with 'flags'
     * BACKEND_F_*: what a primary's log will say and what a secondary
     * replays.  Said in the handshake, which refuses a pair whose two
     * differ; the ring the guest gives later must say the same.
     */
    void (*kind)(unsigned int flags, uint32_t *counter, uint32_t *cpu);
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

    /*
     * A pair set up by hand: whether its command line suits this
     * backend.  0, or -EINVAL with what is wrong, for a usage message.
     * A secondary given no guest has its copy made as 'copy_config'
     * says (BACKEND_F_COPY).
     */
    int (*args_ok)(const struct backend_args *a, char *why, size_t len);
    /*
     * The service, for guest 'name' of its ft.conf 'c' (the guest's
     * section, the run-dir): the spec of that guest on this host, to
     * protect it from here (guest_spec); the spec of a copy of it
     * about to come from its primary, made ready (make_copy; opened
     * with BACKEND_F_COPY: ftvm starts `ftvm serve --incoming` for it;
     * xen has nothing to start, the restore creates the domain from
     * the guest's xen-config).  0, or -errno with 'why'.
     */
    int (*guest_spec)(const struct ftd_config *c, const char *name,
                      char *spec, size_t len, char *why, size_t whylen);
    int (*make_copy)(const struct ftd_config *c, const char *name,
                     char *spec, size_t len, char *why, size_t whylen);
    /*
     * A copy made ready, whose pair ended before the copy was opened:
     * whatever was started for it stops for good.  0, or -errno with
     * 'why'.  NULL: nothing was (the restore creates the guest).
     */
    int (*drop_copy)(const char *spec, const char *peer, unsigned int flags,
                     char *why, size_t len);
};

extern const struct backend backend_ftvm;
extern const struct backend backend_xen;

/* The name of the backend ftd uses unless told (backend_named). */
#define BACKEND_DEFAULT "ftvm"

/* "ftvm" or "xen", or NULL. */
const struct backend *backend_named(const char *name);

/*
 * The BACKEND_F_COUNTER bits of a counter named "auto", "branches" or
 * "steps" (--counter, ft.conf's counter), in *flags; -EINVAL for any
 * other name.
 */
int backend_counter_named(const char *name, unsigned int *flags);

#endif /* FTD_BACKEND_H */
