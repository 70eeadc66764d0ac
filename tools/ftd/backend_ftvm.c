// SPDX-License-Identifier: GPL-2.0-only
/*
 * backend_ftvm.c - guests under `ftvm serve`, driven through its control
 * socket (xlft_ftvm.h): the ring is shared memory, its signals two
 * eventfds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "xlft_ftvm.h"

struct guest {
    struct xlft_ftvm *vm;
    char sock[300];
    struct xlft_ring ring;
    bool have_ring;
};

/* Each guest operation is one of ftvm's control operations. */
static const uint16_t ftvm_op[] = {
    [GUEST_PAUSE] = XLFT_FTVM_OP_PAUSE,
    [GUEST_UNPAUSE] = XLFT_FTVM_OP_UNPAUSE,
    [GUEST_SAVE] = XLFT_FTVM_OP_SAVE,
    [GUEST_RESTORE] = XLFT_FTVM_OP_RESTORE,
    [GUEST_RECORD] = XLFT_FTVM_OP_RECORD,
    [GUEST_REPLAY] = XLFT_FTVM_OP_REPLAY,
    [GUEST_GOLIVE] = XLFT_FTVM_OP_GOLIVE,
    [GUEST_DISABLE] = XLFT_FTVM_OP_DISABLE,
    [GUEST_STOP] = XLFT_FTVM_OP_STOP,
    [GUEST_THROTTLE] = XLFT_FTVM_OP_THROTTLE,
    [GUEST_HALT] = XLFT_FTVM_OP_HALT,
};

static int ftvm_open(struct guest **gp, const char *spec, const char *peer,
                     unsigned int flags, char *why, size_t len)
{
    if (flags & BACKEND_F_UNSAFE_NO_COUNTER) {
        snprintf(why, len, "ftvm counts every instruction: no unsafe "
                 "no-counter mode there");
        return -EINVAL;
    }
    struct guest *g;
    int rc;

    (void)peer;
    *gp = NULL;
    if (!spec) {
        snprintf(why, len, "an ftvm guest is named by its control socket");
        return -EINVAL;
    }
    g = calloc(1, sizeof(*g));
    if (!g) {
        snprintf(why, len, "out of memory");
        return -ENOMEM;
    }
    g->ring.up_fd = g->ring.down_fd = -1;
    snprintf(g->sock, sizeof(g->sock), "%s", spec);
    rc = xlft_ftvm_open(&g->vm, spec, why, len);
    if (rc) {
        free(g);
        return rc;
    }
    *gp = g;
    return 0;
}

static void ftvm_close(struct guest *g)
{
    if (!g)
        return;
    if (g->have_ring)
        xlft_ring_unmap(&g->ring);
    xlft_ftvm_close(g->vm);
    free(g);
}

static int ftvm_call(struct guest *g, enum guest_op op, uint32_t arg, int fd,
                     char *why, size_t len)
{
    struct xlft_ftvm_rep rep;
    int fds[3], rc;

    if ((size_t)op >= sizeof(ftvm_op) / sizeof(ftvm_op[0]) || !ftvm_op[op]) {
        snprintf(why, len, "guest %s: operation %d has no ftvm control "
                 "operation", g->sock, (int)op);
        return -EOPNOTSUPP;
    }
    rc = xlft_ftvm_call(g->vm, ftvm_op[op], arg, 0, fd, &rep, fds);
    if (rc) {
        snprintf(why, len, "guest %s refused %s: %s", g->sock,
                 xlft_ftvm_op_name(ftvm_op[op]), rep.msg);
        return rc;
    }
    if (op != GUEST_RECORD && op != GUEST_REPLAY)
        return 0;
    rc = xlft_ring_map(&g->ring, fds, rep.ring_size, op == GUEST_RECORD ?
                       FT_RING_RECORD : FT_RING_REPLAY, why, len);
    if (rc) {
        char inner[300];

        snprintf(inner, sizeof(inner), "%s", why);
        snprintf(why, len, "guest %s: %s", g->sock, inner);
        return -EPROTO;
    }
    g->have_ring = true;
    return 0;
}

static void ftvm_why_stopped(struct guest *g, char *why, size_t len)
{
    struct xlft_ftvm_rep rep;

    xlft_ftvm_call(g->vm, XLFT_FTVM_OP_STATUS, 0, 0, -1, &rep, NULL);
    snprintf(why, len, "%s", rep.st.why);
}

static struct ft_ring *ftvm_ring(struct guest *g)
{
    return &g->ring.ring;
}

static int ftvm_ring_fd(struct guest *g)
{
    return g->ring.up_fd;
}

static int ftvm_ring_drain(struct guest *g)
{
    uint64_t n;

    if (read(g->ring.up_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
        return -errno;
    return 0;
}

static void ftvm_ring_notify(struct guest *g)
{
    xlft_ring_notify(&g->ring);
}

const struct backend backend_ftvm = {
    .name = "ftvm",
    .open = ftvm_open,
    .close = ftvm_close,
    .call = ftvm_call,
    .why_stopped = ftvm_why_stopped,
    .ring = ftvm_ring,
    .ring_fd = ftvm_ring_fd,
    .ring_drain = ftvm_ring_drain,
    .ring_notify = ftvm_ring_notify,
};
