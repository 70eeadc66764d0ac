// SPDX-License-Identifier: GPL-2.0-only
/*
 * pair_job.c - a copy of the guest (SAVE, RESTORE) takes seconds on Xen,
 * and a guest whose platform is stopped answers nothing until the
 * deadline: the requests that make the copy and start the log run on a
 * thread of their own while the loop keeps every pair's channel and
 * heartbeats going.  Nothing else asks the guest anything meanwhile, and
 * a pair that ends meanwhile carries out its guest's fate once the
 * request is done (pair_finish): the loop never waits for the thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "pair_impl.h"

static void *job_main(void *arg)
{
    struct pair *p = arg;
    struct job *j = p->job;
    uint64_t one = 1;

    j->rc = p->be->call(p->vm, j->op, j->arg, j->fd, j->why,
                        sizeof(j->why));
    if (write(j->efd, &one, sizeof(one)) < 0)
        j->rc = -EIO;
    return NULL;
}

/* The thread has said it is done: joining it does not wait. */
static void job_in(evutil_socket_t fd, short what, void *arg)
{
    struct pair *p = arg;
    struct job *j = p->job;
    uint64_t n;

    (void)what;
    if (read(fd, &n, sizeof(n)) < 0 || !j->running)
        return;
    pthread_join(j->thread, NULL);
    j->running = false;
    if (p->ended) {
        job_done_ended(p);
        pair_finish(p);
        return;
    }
    if (!j->rc)
        j->done(p);
    else if (!j->again || !j->again(p, j->rc, j->why))
        pair_end(p, j->rc, "%s", j->why);
    /* What it went on with may ask the guest again: the close waits. */
    if (!j->running)
        pair_gone_held(p);
}

void job_done_ended(struct pair *p)
{
    const struct job *j = p->job;

    if (j->rc)
        return;
    /* A ring made meanwhile is the guest's now: its fate says so. */
    if (j->op == GUEST_RECORD || j->op == GUEST_REPLAY)
        p->have_ring = true;
    /* A halt is for good, whatever fate the end would choose. */
    if (j->op == GUEST_HALT)
        p->settled = true;
}

int job_setup(struct pair *p)
{
    p->job = calloc(1, sizeof(*p->job));
    if (!p->job)
        return -ENOMEM;
    p->job->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (p->job->efd < 0)
        return -errno;
    p->job->ev = event_new(p->cfg.base, p->job->efd, EV_READ | EV_PERSIST,
                           job_in, p);
    if (!p->job->ev || event_add(p->job->ev, NULL))
        return -ENOMEM;
    return 0;
}

/* Waits for a copy still under way: only once the loop is done. */
void job_free(struct pair *p)
{
    if (!p->job)
        return;
    if (p->job->running)
        pthread_join(p->job->thread, NULL);
    if (p->job->ev)
        event_free(p->job->ev);
    if (p->job->efd >= 0)
        close(p->job->efd);
    free(p->job);
    p->job = NULL;
}

void job_start(struct pair *p, enum guest_op op, uint32_t arg, int fd,
               void (*done)(struct pair *p),
               bool (*again)(struct pair *p, int rc, const char *why))
{
    struct job *j = p->job;

    j->op = op;
    j->arg = arg;
    j->fd = fd;
    j->done = done;
    j->again = again;
    j->running = true;
    if (pthread_create(&j->thread, NULL, job_main, p)) {
        j->running = false;
        pair_end(p, -EAGAIN, "cannot start a thread to ask the guest");
    }
}
