// SPDX-License-Identifier: GPL-2.0-only
/*
 * pair_claim.c - who goes on once the peer is lost.
 *
 * Asking the arbiter may take long (an NFS server, an etcd timeout): it
 * runs on a thread of its own, so that the event loop keeps sending
 * heartbeats meanwhile and the peer does not take the wait for a death.
 * The winner goes on alone (the secondary after replaying everything it
 * holds), the loser halts its copy, its held outputs thrown away.  A
 * side that cannot reach the arbiter asks again and again, and never
 * goes on meanwhile.  A granted claim is for good (xlft_arbiter.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "pair_impl.h"

static void *claim_main(void *arg)
{
    struct pair *p = arg;
    struct claim *c = p->claim;
    uint64_t one = 1;

    c->rc = xlft_arbiter_claim(p->arb, p->gen, p->me, c->holder,
                               sizeof(c->holder), c->err, sizeof(c->err));
    if (write(c->efd, &one, sizeof(one)) < 0)
        c->rc = -EIO;
    return NULL;
}

/* The thread has said it is done: joining it does not wait. */
static void claim_in(evutil_socket_t fd, short what, void *arg)
{
    struct pair *p = arg;
    struct claim *c = p->claim;
    uint64_t n;

    (void)what;
    if (read(fd, &n, sizeof(n)) < 0 || !c->running)
        return;
    pthread_join(c->thread, NULL);
    c->running = false;
    if (p->ended) {
        /* Granted for good: the guest's fate must follow it. */
        p->won_late = c->rc == 1;
        pair_finish(p);
        return;
    }
    c->done(p, c->rc, c->holder, c->err);
}

int claim_setup(struct pair *p)
{
    p->claim = calloc(1, sizeof(*p->claim));
    if (!p->claim)
        return -ENOMEM;
    p->claim->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (p->claim->efd < 0)
        return -errno;
    p->claim->ev = event_new(p->cfg.base, p->claim->efd,
                             EV_READ | EV_PERSIST, claim_in, p);
    if (!p->claim->ev || event_add(p->claim->ev, NULL))
        return -ENOMEM;
    return 0;
}

/* A claim under way is waited for: the arbiter handle is its. */
void claim_free(struct pair *p)
{
    if (!p->claim)
        return;
    if (p->claim->running)
        pthread_join(p->claim->thread, NULL);
    if (p->claim->ev)
        event_free(p->claim->ev);
    if (p->claim->efd >= 0)
        close(p->claim->efd);
    free(p->claim);
    p->claim = NULL;
}

/* Ask for the pair's generation; 'done' gets the answer in the loop. */
int claim_start(struct pair *p,
                void (*done)(struct pair *, int, const char *,
                             const char *))
{
    struct claim *c = p->claim;

    if (c->running)
        return -EBUSY;
    c->done = done;
    c->running = true;
    if (pthread_create(&c->thread, NULL, claim_main, p)) {
        c->running = false;
        return -EAGAIN;
    }
    return 0;
}

/* Each carried its guest's fate out: settled, as pair_settle says. */
static void halted(struct pair *p)
{
    p->settled = true;
    pair_end(p, 0, "halted: %s went on with generation %" PRIu64 "; held "
             "outputs dropped", p->claim->holder, p->gen);
}

static void unprotected(struct pair *p)
{
    pair_end(p, 0, "secondary lost: running unprotected");
}

static void disabled(struct pair *p)
{
    p->settled = true;
    if (p->lag_warned)
        pair_throttle(p, 100);
    /* A switchover it was paused for will not happen now. */
    if (p->switching)
        job_start(p, GUEST_UNPAUSE, 0, -1, unprotected, NULL);
    else
        unprotected(p);
}

/*
 * The claim's outcome is carried out on the job's thread: a guest whose
 * platform is stopped then holds this pair alone.  The state is set
 * first, so that a pair that ends meanwhile meets the same fate.
 */
static void arbitrated(struct pair *p, int rc, const char *holder,
                       const char *err)
{
    if (p->ended || p->st != S_ARBITRATING)
        return;
    if (rc < 0) {
        pair_say(p, "%s; asking again", err);
        return;                 /* the tick asks again */
    }
    if (rc == 0) {
        (void)holder;           /* kept in p->claim for halted() */
        p->st = S_HALTED;
        job_start(p, GUEST_HALT, 0, -1, halted, NULL);
        return;
    }
    if (p->cfg.role == PAIR_PRIMARY) {
        /* The claim is ours for good: what the gate holds may go. */
        p->st = S_LIVE;
        job_start(p, GUEST_DISABLE, 0, -1, disabled, NULL);
    } else {
        p->st = S_GOING_LIVE;
        secondary_feed(p);
    }
}

void claim_arbitrate(struct pair *p)
{
    if (p->st == S_ARBITRATING && !p->claim->running)
        claim_start(p, arbitrated);
}
