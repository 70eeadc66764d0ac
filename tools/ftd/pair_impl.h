/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pair_impl.h - the pair engine's insides, shared by its files
 * (internal to ftd):
 *   pair.c            life of a pair: start, end, the channel, heartbeats
 *   pair_primary.c    the copy sent, the ring pumped into LOG frames,
 *                     ACKs, disable and switchover
 *   pair_secondary.c  the copy received and restored, LOG frames held
 *                     and fed into the replay ring
 *   pair_claim.c      who goes on: the arbiter, asked off the loop
 *   pair_job.c        the guest's copy made or restored off the loop
 *
 * Everything runs on the event loop but the two threads' calls into the
 * backend and the arbiter, whose answers come back through an eventfd.
 */
#ifndef FTD_PAIR_IMPL_H
#define FTD_PAIR_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "pair.h"
#include "pair_stats.h"
#include "xlft_arbiter.h"
#include "xlft_channel.h"
#include "xlft_lag.h"
#include "sync_hdr.h"

#define BATCH       (256u << 10)        /* records per LOG frame, bytes */
#define CHUNK       (256u << 10)        /* state per STATE frame */

enum state {
    S_HANDSHAKE,        /* channel not up yet */
    S_SYNC,             /* the guest's state on its way */
    S_PROTECTED,        /* the log flows */
    S_ARBITRATING,      /* the peer is lost: who goes on? */
    S_GOING_LIVE,       /* secondary: replaying what it holds first */
    S_LIVE,             /* alone: went live, or primary unprotected */
    S_HALTED,           /* lost the arbitration: guest stopped */
    S_ENDED,
};

/* A call into the backend that takes long (SAVE, RESTORE), threaded. */
struct job {
    pthread_t thread;
    int efd;                    /* eventfd: the copy is done */
    struct event *ev;
    bool running;
    enum guest_op op;
    uint32_t arg;
    int fd, rc;
    char why[400];
    void (*done)(struct pair *p);
    /* On a failure: true if it will be tried again, NULL: never. */
    bool (*again)(struct pair *p, int rc, const char *why);
};

/* A question to the arbiter, threaded. */
struct claim {
    pthread_t thread;
    int efd;                    /* eventfd: the answer is in */
    struct event *ev;
    bool running;
    int rc;
    char holder[XLFT_ARB_NAME_MAX + 1], err[300];
    void (*done)(struct pair *p, int rc, const char *holder,
                 const char *err);
};

struct pair {
    struct pair_cfg cfg;
    char name[XLFT_ARB_NAME_MAX + 1], me[XLFT_ARB_NAME_MAX + 1];
    char peer[128];
    char peer_host[XLFT_NAME_SIZE + 1];     /* proved in the handshake */
    uint8_t key[XLFT_KEY_SIZE];             /* cfg.key's copy */
    enum state st;
    uint64_t gen;
    struct xlft_chan *chan;
    struct event *drop_ev;      /* frees the channel outside its calls */
    const struct backend *be;
    struct guest *vm;
    struct ft_ring *ring;       /* the guest's, once it has one */
    uint32_t counter, cpu;      /* what its points count (be->kind) */
    bool have_ring;
    struct event *up_ev, *tick;
    struct event *gone_ev;      /* the guest's platform went */
    int gone_fd;                /* a dup of its control connection */
    bool guest_gone;
    bool gone_held;             /* seen while a request was under way */
    struct xlft_hb hb;
    struct xlft_lag lag;
    struct xlft_arbiter *arb;
    uint64_t lost_ns;           /* when the peer was lost */
    uint64_t retry_ns;          /* when to ask the arbiter again */
    bool lag_warned;
    bool started;               /* pair_start succeeded */
    bool was_protected;         /* it reached S_PROTECTED */
    bool ended;                 /* on_end has been called */
    enum state end_st;          /* the state it ended in */
    bool settled;               /* the guest's fate has been carried out */
    bool finished;              /* pair_finish has let the guest go */
    bool won_late;              /* a claim granted after the end */
    bool paused_here;           /* primary: paused for the copy */
    bool golive;                /* secondary: told to take over */
    bool switching;             /* primary: handing the guest over */
    bool disabling;             /* primary: asking to go on alone (a
                                   disable, or its guest's own end) */
    bool peer_shutdown;         /* the peer said it ends the pair */
    bool header_seen;           /* secondary: the sync header is in */
    char guest_path[300];       /* secondary: the guest started for it,
                                   or what its restore may create */
    uint64_t guest_wait_ns;
    struct claim *claim;
    struct job *job;
    struct pair_meter meter;

    /* Primary. */
    int sync_fd;                /* memfd: sync header and saved state */
    unsigned int save_tries;    /* saves refused as busy so far */
    uint64_t save_again_ns;     /* when to pause and save again, or 0 */
    uint64_t sync_off, sync_total;
    uint8_t *batch;             /* a LOG frame's records not sent yet */
    uint32_t batch_len, batch_nrec;
    uint64_t sent;              /* last record sent */
    uint64_t acked;
    bool peer_replays;          /* the secondary has restored its copy */
    uint64_t rec_ns;            /* when the ring last gave records */
    uint64_t end_ask_ns;        /* when to ask again if the guest ended */
    uint64_t unsignalled_ns;    /* since when the ring holds records */
    bool said_unsignalled;
    bool guest_ended;           /* it stopped by itself, as guest_end says */
    bool golive_sent;           /* the copy goes live once it has replayed */
    char guest_end[300];

    /* Secondary. */
    uint8_t *fifo;              /* records held, not yet in the ring */
    size_t fifo_cap, fifo_head, fifo_len;
    uint64_t held;              /* last record held */
    bool paused_in;
    uint64_t stuck_seq, stuck_ns;   /* replay progress while paused_in */
};

/* pair.c */
uint64_t pair_now_ns(void);
const char *pair_state_name(enum state st);
void pair_say(struct pair *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/*
 * The pair ends, for good, with 'err' (0: in order) and why.  A guest
 * whose fate was not carried out yet (p->settled) gets the safe one:
 * pair.c, fate().
 */
void pair_end(struct pair *p, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* After an end that found a copy or a claim under way: the guest's
 * fate, once neither is. */
void pair_finish(struct pair *p);
/* The guest's fate carried out by the caller: 0 or -errno, logged. */
int pair_settle(struct pair *p, enum guest_op op);
/* Speed is no matter of safety: a refusal is said, the pair goes on. */
bool pair_throttle(struct pair *p, uint32_t pct);
int pair_send(struct pair *p, const struct xlft_msg *m);
/* After RECORD or REPLAY: the ring, watched; false (ended) if not. */
bool pair_watch_ring(struct pair *p);
/* The peer is lost (or must be given up): the arbiter decides. */
void pair_peer_lost(struct pair *p, const char *why);
/* The guest's control connection closed while a request was under way:
 * what that means, now that the request's reply has said its part. */
void pair_gone_held(struct pair *p);

/* pair_primary.c */
void primary_up(struct pair *p);
/* A save refused as busy, due again now. */
void primary_save_again(struct pair *p);
void primary_send_state(struct pair *p);
void primary_pump(struct pair *p);
void primary_on_ack(struct pair *p, const struct xlft_ack *a);
/* Protected: whether the guest has stopped by itself, and then the end. */
void primary_watch_end(struct pair *p, uint64_t now);
void primary_check_ring(struct pair *p, uint64_t now);

/* pair_secondary.c */
void secondary_feed(struct pair *p);
void secondary_restore(struct pair *p);
void secondary_watch_live(struct pair *p);
void secondary_on_state(struct pair *p, const struct xlft_state *s);
void secondary_on_log(struct pair *p, const struct xlft_log *l);

/* pair_claim.c */
int claim_setup(struct pair *p);
void claim_free(struct pair *p);
int claim_start(struct pair *p,
                void (*done)(struct pair *, int, const char *,
                             const char *));
/* Ask again, if arbitrating and no question is out. */
void claim_arbitrate(struct pair *p);

/*
 * pair_job.c: a request of the guest on a thread of its own, 'done' on
 * the loop once it succeeded ('again' first on a failure, if not NULL).
 */
int job_setup(struct pair *p);
void job_free(struct pair *p);
void job_start(struct pair *p, enum guest_op op, uint32_t arg, int fd,
               void (*done)(struct pair *p),
               bool (*again)(struct pair *p, int rc, const char *why));
/* A request done once its pair had ended: what it did, for its fate. */
void job_done_ended(struct pair *p);

#endif /* FTD_PAIR_IMPL_H */
