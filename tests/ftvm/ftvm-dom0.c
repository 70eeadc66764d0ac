// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftvm-dom0.c - a stand-in for ftd in the tests of `ftvm serve`: it
 * drives the control socket through libxlft and moves records the way
 * ftd does, without a network in between.
 *
 *   ftvm-dom0 SOCK status [--hash] | pause | unpause | golive | disable
 *                  | stop | halt | save FILE | restore FILE | throttle PCT
 *                  | raw HEX
 *   ftvm-dom0 SOCK busy
 *   ftvm-dom0 SOCK record LOG --seconds S [--ring BYTES] [--hold]
 *                  [--disable | --halt | --leave] [--gate-check CONSOLE]
 *                  [--no-ack | --bad-ack] [--watch FILE]
 *   ftvm-dom0 pair PSOCK SSOCK --seconds S [--ring BYTES]
 *                  [--kill PID | --halt-secondary]
 *
 * busy: a second client is refused while one is connected.
 * record: recording from here into a stored log for S seconds, then STOP
 *   (or DISABLE: the guest runs on unrecorded).  Records are acknowledged
 *   once in the log.  --gate-check withholds acknowledgements for a second
 *   and checks that the guest's console file stays empty meanwhile, then
 *   that it fills once they come.
 *   --hold leaves the ring undrained until the vCPU stalls on it, then
 *   checks that the stalled ftvm answers STATUS and refuses PAUSE.
 *   --halt ends with HALT instead of STOP (with --hold, sent while the
 *   vCPU is stalled); --leave ends by going away, the recording running.
 *   --no-ack never acknowledges; --bad-ack acknowledges nothing, then at
 *   the end a record beyond those recorded, and waits for ftvm to fail.
 *   --watch prints the size of FILE just before the end; the end's reply
 *   is printed as "end: STATUS".
 * pair: PSOCK's guest is copied into SSOCK's (SAVE into RESTORE), then
 *   recorded there and replayed here for S seconds; then the primary is
 *   stopped (or, with --kill, killed and the secondary told to go live;
 *   or, with --halt-secondary, the replaying secondary halted).
 * Every ring ftvm passes must be sealed at its size: cutting it fails.
 * Exit status 0, or 1 with a message naming what failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ft_log.h"
#include "xlft_ftvm.h"
#include "xlft_logfile.h"
#define TEST_NAME "ftvm-dom0"
#include "testutil.h"

static struct xlft_ftvm *connect_to(const char *path)
{
    struct xlft_ftvm *c;
    char err[200];

    if (xlft_ftvm_open(&c, path, err, sizeof(err)))
        die("%s", err);
    return c;
}

static void call(struct xlft_ftvm *c, uint16_t op, uint32_t ring, int fd,
                 struct xlft_ftvm_rep *rep, int fds[3])
{
    if (xlft_ftvm_call(c, op, ring, 0, fd, rep, fds))
        die("%s: %s", xlft_ftvm_op_name(op), rep->msg);
}

static void print_status(const struct xlft_ftvm_status *st)
{
    printf("state=%s mode=%s insns=%" PRIu64 " seq=%" PRIu64
           " halted=%u hash=%016" PRIx64 " exit=%d speed=%u\n",
           xlft_ftvm_state_name(st->state), xlft_ftvm_mode_name(st->mode),
           st->insns, st->seq, st->halted, st->hash, st->exit_status,
           st->speed_pct);
    if (st->why[0])
        printf("why=%s\n", st->why);
}

static void drain_fd(int fd)
{
    uint64_t n;

    if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
        die("eventfd: %s", strerror(errno));
}

/* Wait up to 'ms' for the eventfds and the control socket. */
static void wait_any(const int *fds, int n, int ms)
{
    struct pollfd p[4];

    for (int i = 0; i < n; i++)
        p[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
    if (poll(p, (nfds_t)n, ms) < 0 && errno != EINTR)
        die("poll: %s", strerror(errno));
}

static struct xlft_ring start(struct xlft_ftvm *c, uint16_t op,
                              uint32_t size)
{
    struct xlft_ftvm_rep rep;
    struct xlft_ring r;
    int fds[3];
    char err[200];

    call(c, op, size, -1, &rep, fds);
    /* ftd maps it for good: a ring ftvm can cut would kill ftd. */
    if (!ftruncate(fds[0], FT_RING_HDR_SIZE))
        die("ftvm passed a ring that can be cut: not sealed at its size");
    if (errno != EPERM)
        die("cutting the ring failed with %s, not EPERM as for a sealed "
            "memfd", strerror(errno));
    if (xlft_ring_map(&r, fds, rep.ring_size, op == XLFT_FTVM_OP_RECORD ?
                      FT_RING_RECORD : FT_RING_REPLAY, err, sizeof(err)))
        die("%s", err);
    return r;
}

static bool acking = true;

static long file_size(const char *path)
{
    struct stat st;

    return stat(path, &st) ? -1 : (long)st.st_size;
}

/* Records from the record ring into the log: how many. */
static uint32_t pump_log(struct xlft_ring *r, struct xlft_logw *w)
{
    static uint8_t buf[FT_LOG_REC_MAX + 65536];
    uint32_t total = 0;
    char msg[300];

    for (;;) {
        uint32_t nrec;
        bool notify;
        int n = ft_ring_read_records(&r->ring, buf, sizeof(buf), &nrec,
                                     &notify);

        if (n < 0)
            die("record ring: %s", ft_strerror(n));
        if (notify && xlft_ring_notify(r))
            die("cannot notify ftvm");
        if (n == 0)
            return total;
        if (xlft_logw_append(w, buf, (size_t)n, msg, sizeof(msg)))
            die("%s", msg);
        total += nrec;
        if (acking) {
            /* The log holds them: outputs up to here may leave. */
            ft_ring_set_ack(&r->ring, xlft_logw_seq(w));
            if (xlft_ring_notify(r))
                die("cannot notify ftvm");
        }
    }
}

/*
 * A broken client: it acknowledges a record ftvm never wrote.  Returns
 * once ftvm has refused to believe it (its guest stopped for good).
 */
static void break_ack(struct xlft_ftvm *c, struct xlft_ring *r,
                      struct xlft_logw *w)
{
    uint64_t limit = now_ms() + 20000;
    struct xlft_ftvm_rep rep;

    pump_log(r, w);
    ft_ring_set_ack(&r->ring, xlft_logw_seq(w) + 1000000);
    if (xlft_ring_notify(r))
        die("cannot notify ftvm");
    for (;;) {
        call(c, XLFT_FTVM_OP_STATUS, 0, -1, &rep, NULL);
        if (rep.st.state == XLFT_FTVM_ST_FAILED)
            break;
        if (now_ms() > limit)
            die("ftvm took an acknowledgement beyond its records for 20 s");
        pump_log(r, w);
        wait_any(&r->up_fd, 1, 50);
        drain_fd(r->up_fd);
    }
    printf("failed: ");
    print_status(&rep.st);
}

static int record(const char *sock, int argc, char **argv)
{
    struct xlft_ftvm *c = connect_to(sock);
    uint64_t seconds = 0, ring = 0, deadline;
    struct xlft_ftvm_rep rep;
    struct xlft_logw *w;
    struct xlft_ring r;
    bool hold = false, stopping = false, leave = false, bad_ack = false;
    uint16_t end_op = XLFT_FTVM_OP_STOP;
    const char *console = NULL, *watch = NULL;
    char msg[300];

    if (argc < 1)
        die("record LOG --seconds S [--ring BYTES] [--hold] [--disable]");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--ring") && i + 1 < argc)
            ring = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--hold"))
            hold = true;
        else if (!strcmp(argv[i], "--disable"))
            end_op = XLFT_FTVM_OP_DISABLE;
        else if (!strcmp(argv[i], "--halt"))
            end_op = XLFT_FTVM_OP_HALT;
        else if (!strcmp(argv[i], "--leave"))
            leave = true;
        else if (!strcmp(argv[i], "--no-ack"))
            acking = false;
        else if (!strcmp(argv[i], "--bad-ack"))
            acking = false, bad_ack = true;
        else if (!strcmp(argv[i], "--gate-check") && i + 1 < argc)
            console = argv[++i];
        else if (!strcmp(argv[i], "--watch") && i + 1 < argc)
            watch = argv[++i];
        else
            die("record: unknown argument %s", argv[i]);
    }
    if (console && !acking)
        die("record: --gate-check acknowledges in the end: not with "
            "--no-ack or --bad-ack");
    if (!seconds || seconds > 600)
        die("record: --seconds from 1 to 600");
    r = start(c, XLFT_FTVM_OP_RECORD, (uint32_t)ring);
    /* The log says what the ring's points count. */
    if (xlft_logw_open(&w, argv[0], r.ring.counter, r.ring.cpu, msg,
                       sizeof(msg)))
        die("%s", msg);
    call(c, XLFT_FTVM_OP_UNPAUSE, 0, -1, &rep, NULL);

    if (hold) {
        uint64_t limit = now_ms() + 20000;

        while (!(ft_ring_flags(&r.ring) & FT_RING_F_STALLED)) {
            if (now_ms() > limit)
                die("the vCPU did not stall on an undrained ring in 20 s");
            wait_any(&r.up_fd, 1, 50);
            drain_fd(r.up_fd);
        }
        call(c, XLFT_FTVM_OP_STATUS, 0, -1, &rep, NULL);
        printf("stalled: ");
        print_status(&rep.st);
        if (xlft_ftvm_call(c, XLFT_FTVM_OP_PAUSE, 0, 0, -1, &rep, NULL) !=
            -EBUSY)
            die("a stalled vCPU accepted PAUSE (error %d)", rep.error);
        printf("pause while stalled: %s\n", rep.msg);
        if (end_op == XLFT_FTVM_OP_HALT) {
            call(c, XLFT_FTVM_OP_HALT, 0, -1, &rep, NULL);
            printf("halt while stalled: ");
            print_status(&rep.st);
            goto out;
        }
    }

    if (console) {
        uint64_t until = now_ms() + 1000, limit = now_ms() + 20000;
        struct xlft_ftvm_status st;

        /* Records flow, acknowledgements do not: nothing may come out. */
        acking = false;
        while (now_ms() < until) {
            int fds[1] = { r.up_fd };

            pump_log(&r, w);
            if (file_size(console) != 0)
                die("console output left before its record was "
                    "acknowledged (%ld bytes)", file_size(console));
            if (ft_ring_wait(&r.ring) == FT_EAGAIN)
                wait_any(fds, 1, 50);
            drain_fd(r.up_fd);
        }
        call(c, XLFT_FTVM_OP_STATUS, 0, -1, &rep, NULL);
        st = rep.st;
        printf("held: %" PRIu64 " records, console empty\n", st.seq);
        acking = true;
        while (file_size(console) <= 0) {
            int fds[1] = { r.up_fd };

            if (now_ms() > limit)
                die("console output still held 20 s after its records "
                    "were acknowledged");
            pump_log(&r, w);
            if (ft_ring_wait(&r.ring) == FT_EAGAIN)
                wait_any(fds, 1, 50);
            drain_fd(r.up_fd);
        }
        printf("released: console has %ld bytes\n", file_size(console));
    }

    deadline = now_ms() + seconds * 1000;
    for (;;) {
        int fds[2] = { r.up_fd, xlft_ftvm_fd(c) };

        pump_log(&r, w);
        if (!stopping && now_ms() >= deadline) {
            if (bad_ack)
                break_ack(c, &r, w);
            if (watch)
                printf("before the end: %ld bytes in %s\n",
                       file_size(watch), watch);
            if (leave)
                goto out;
            if (xlft_ftvm_send(c, end_op, 0, 0, -1))
                die("%s: cannot send", xlft_ftvm_op_name(end_op));
            stopping = true;
        }
        if (stopping) {
            struct pollfd p = { .fd = xlft_ftvm_fd(c), .events = POLLIN };

            if (poll(&p, 1, 0) > 0) {
                if (xlft_ftvm_recv(c, &rep, NULL))
                    die("%s: %s", xlft_ftvm_op_name(end_op), rep.msg);
                printf("end: ");
                print_status(&rep.st);
                break;
            }
        }
        if (ft_ring_wait(&r.ring) == FT_EAGAIN)
            wait_any(fds, 2, 100);
        drain_fd(r.up_fd);
    }
    pump_log(&r, w);
out:
    printf("recorded=%" PRIu64 "\n", xlft_logw_seq(w));
    if (xlft_logw_close(w, msg, sizeof(msg)))
        die("%s", msg);
    xlft_ring_unmap(&r);
    xlft_ftvm_close(c);
    return 0;
}

/* Records in flight between the two rings of a pair. */
struct mover {
    struct xlft_ring *from, *to;
    uint8_t buf[FT_LOG_REC_MAX + 65536];
    uint32_t len, off;
    uint64_t moved;
};

/* Move what fits; true if anything moved. */
static bool move(struct mover *m)
{
    bool any = false;

    for (;;) {
        uint32_t nrec;
        bool notify;
        int space, n;

        if (m->off == m->len) {
            n = ft_ring_read_records(&m->from->ring, m->buf, sizeof(m->buf),
                                     &nrec, &notify);
            if (n < 0)
                die("record ring: %s", ft_strerror(n));
            if (notify && xlft_ring_notify(m->from))
                die("cannot notify the primary");
            if (n == 0)
                return any;
            m->len = (uint32_t)n;
            m->off = 0;
        }
        space = ft_ring_space(&m->to->ring);
        if (space < 0)
            die("replay ring: %s", ft_strerror(space));
        n = ft_log_scan(m->buf + m->off, (uint32_t)space < m->len - m->off ?
                        (uint32_t)space : m->len - m->off, &nrec);
        if (n < 0)
            die("malformed records from the primary: %s", ft_strerror(n));
        if (n == 0) {
            /* The secondary's ring is full: wake us when it is not. */
            if (ft_ring_stall(&m->to->ring, m->len - m->off < 4096 ?
                              m->len - m->off : 4096) == FT_EFULL)
                return any;
            continue;
        }
        ft_ring_write(&m->to->ring, 0, m->buf + m->off, (uint32_t)n);
        ft_ring_publish(&m->to->ring, (uint32_t)n, nrec);
        if (ft_ring_consumer_waiting(&m->to->ring) &&
            xlft_ring_notify(m->to))
            die("cannot notify the secondary");
        m->off += (uint32_t)n;
        m->moved += nrec;
        any = true;
        /* The secondary holds them: the primary's outputs may leave. */
        ft_ring_set_ack(&m->from->ring, m->moved);
        if (xlft_ring_notify(m->from))
            die("cannot notify the primary");
    }
}

static struct xlft_ftvm_status status_of(struct xlft_ftvm *c)
{
    struct xlft_ftvm_rep rep;

    call(c, XLFT_FTVM_OP_STATUS, 0, -1, &rep, NULL);
    return rep.st;
}

static int pair(const char *psock, const char *ssock, int argc, char **argv)
{
    struct xlft_ftvm *p = connect_to(psock), *s = connect_to(ssock);
    uint64_t seconds = 0, ring = 0, deadline, limit;
    struct xlft_ftvm_rep rep, rep2;
    struct xlft_ring pr, sr;
    static struct mover m;
    struct xlft_ftvm_status st;
    pid_t victim = 0;
    bool stopping = false, halt_secondary = false;
    int pipefd[2];

    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--ring") && i + 1 < argc)
            ring = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--kill") && i + 1 < argc)
            victim = (pid_t)strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--halt-secondary"))
            halt_secondary = true;
        else
            die("pair: unknown argument %s", argv[i]);
    }
    if (!seconds || seconds > 600)
        die("pair: --seconds from 1 to 600");

    /* The secondary starts as a copy of the paused primary. */
    call(p, XLFT_FTVM_OP_PAUSE, 0, -1, &rep, NULL);
    if (pipe2(pipefd, O_CLOEXEC))
        die("pipe: %s", strerror(errno));
    if (xlft_ftvm_send(p, XLFT_FTVM_OP_SAVE, 0, 0, pipefd[1]) ||
        xlft_ftvm_send(s, XLFT_FTVM_OP_RESTORE, 0, 0, pipefd[0]))
        die("cannot send save/restore");
    close(pipefd[0]);
    close(pipefd[1]);
    if (xlft_ftvm_recv(p, &rep, NULL))
        die("save: %s", rep.msg);
    if (xlft_ftvm_recv(s, &rep2, NULL))
        die("restore: %s", rep2.msg);
    pr = start(p, XLFT_FTVM_OP_RECORD, (uint32_t)ring);
    sr = start(s, XLFT_FTVM_OP_REPLAY, (uint32_t)ring);
    call(s, XLFT_FTVM_OP_UNPAUSE, 0, -1, &rep, NULL);
    call(p, XLFT_FTVM_OP_UNPAUSE, 0, -1, &rep, NULL);
    m.from = &pr;
    m.to = &sr;

    deadline = now_ms() + seconds * 1000;
    for (;;) {
        int fds[3] = { pr.up_fd, sr.up_fd, xlft_ftvm_fd(p) };

        move(&m);
        if (!stopping && now_ms() >= deadline) {
            if (victim || halt_secondary)
                break;
            if (xlft_ftvm_send(p, XLFT_FTVM_OP_STOP, 0, 0, -1))
                die("stop: cannot send");
            stopping = true;
        }
        if (stopping) {
            struct pollfd q = { .fd = xlft_ftvm_fd(p), .events = POLLIN };

            if (poll(&q, 1, 0) > 0) {
                if (xlft_ftvm_recv(p, &rep, NULL))
                    die("stop primary: %s", rep.msg);
                break;
            }
        }
        if (m.off == m.len && ft_ring_wait(&pr.ring) == FT_EAGAIN)
            wait_any(fds, 3, 100);
        else if (m.off != m.len)
            wait_any(fds, 3, 10);
        drain_fd(pr.up_fd);
        drain_fd(sr.up_fd);
    }

    if (halt_secondary) {
        /* The primary records on, its ring undrained: the test ends it. */
        call(s, XLFT_FTVM_OP_HALT, 0, -1, &rep, NULL);
        printf("moved=%" PRIu64 "\nsecondary halted: ", m.moved);
        print_status(&rep.st);
        goto out;
    }
    if (victim) {
        /* The primary's host dies: what it had not sent is lost. */
        if (kill(victim, SIGKILL))
            die("kill %d: %s", (int)victim, strerror(errno));
        printf("primary killed after %" PRIu64 " records\n", m.moved);
        ft_ring_set_flags(&sr.ring, FT_RING_F_GOLIVE);
        call(s, XLFT_FTVM_OP_GOLIVE, 0, -1, &rep, NULL);
    }
    /* Everything moved reaches the secondary (whose ring may be full). */
    limit = now_ms() + 30000;
    for (;;) {
        int fds[1] = { sr.up_fd };

        if (!victim)
            move(&m);
        else if (m.off != m.len)
            move(&m);
        st = status_of(s);
        if (st.state == XLFT_FTVM_ST_FAILED)
            break;
        if (victim ? st.mode == XLFT_FTVM_MODE_LIVE
                   : m.off == m.len && st.seq == m.moved)
            break;
        if (now_ms() > limit)
            die("the secondary is stuck at record %" PRIu64 " of %" PRIu64,
                st.seq, m.moved);
        wait_any(fds, 1, 50);
        drain_fd(sr.up_fd);
    }
    printf("moved=%" PRIu64 "\n", m.moved);
    printf("secondary: ");
    print_status(&st);
    if (st.state == XLFT_FTVM_ST_FAILED)
        die("the secondary failed");
    if (victim) {
        uint64_t before = st.insns;

        /* Live now: it must move on by itself. */
        limit = now_ms() + 10000;
        while ((st = status_of(s)).insns == before) {
            if (now_ms() > limit)
                die("the secondary went live but does not run");
            poll(NULL, 0, 20);     /* bounded by limit above */
        }
        printf("secondary live: ");
        print_status(&st);
    }
out:
    xlft_ring_unmap(&pr);
    xlft_ring_unmap(&sr);
    xlft_ftvm_close(p);
    xlft_ftvm_close(s);
    return 0;
}

/* A request made of raw bytes, for the tests of malformed requests. */
static int raw(struct xlft_ftvm *c, const char *hex)
{
    uint8_t buf[512];
    struct xlft_ftvm_rep rep;
    size_t n = 0;

    while (hex[0] && hex[1] && n < sizeof(buf)) {
        unsigned int v;

        if (sscanf(hex, "%2x", &v) != 1)
            die("raw: bad hex");
        buf[n++] = (uint8_t)v;
        hex += 2;
    }
    if (send(xlft_ftvm_fd(c), buf, n, MSG_NOSIGNAL) != (ssize_t)n)
        die("raw: %s", strerror(errno));
    xlft_ftvm_recv(c, &rep, NULL);
    printf("error=%d msg=%s\n", rep.error, rep.msg);
    return rep.error ? 1 : 0;
}

/* A one-request command on 'c'; the exit status. */
static int command(struct xlft_ftvm *c, int argc, char **argv)
{
    static const struct { const char *name; uint16_t op; } simple[] = {
        { "pause", XLFT_FTVM_OP_PAUSE }, { "unpause", XLFT_FTVM_OP_UNPAUSE },
        { "golive", XLFT_FTVM_OP_GOLIVE }, { "disable", XLFT_FTVM_OP_DISABLE },
        { "stop", XLFT_FTVM_OP_STOP }, { "halt", XLFT_FTVM_OP_HALT },
    };
    struct xlft_ftvm_rep rep;

    if (!strcmp(argv[2], "raw") && argc == 4)
        return raw(c, argv[3]);
    if (!strcmp(argv[2], "throttle") && argc == 4) {
        if (xlft_ftvm_call(c, XLFT_FTVM_OP_THROTTLE,
                           (uint32_t)strtoul(argv[3], NULL, 10), 0, -1, &rep,
                           NULL)) {
            printf("error=%d msg=%s\n", rep.error, rep.msg);
            return 1;
        }
        print_status(&rep.st);
        return 0;
    }
    if (!strcmp(argv[2], "busy") && argc == 3) {
        struct xlft_ftvm *second;
        int rc;

        call(c, XLFT_FTVM_OP_STATUS, 0, -1, &rep, NULL);
        second = connect_to(argv[1]);
        rc = xlft_ftvm_call(second, XLFT_FTVM_OP_STATUS, 0, 0, -1, &rep, NULL);
        printf("error=%d msg=%s\n", rep.error, rep.msg);
        /* Refused again, and the first client is still served. */
        if (rc != -EBUSY ||
            xlft_ftvm_call(second, XLFT_FTVM_OP_PAUSE, 0, 0, -1, &rep, NULL) !=
            -EBUSY)
            rc = 1;
        xlft_ftvm_close(second);
        call(c, XLFT_FTVM_OP_STATUS, 0, -1, &rep, NULL);
        return rc == -EBUSY ? 0 : 1;
    }
    if (!strcmp(argv[2], "status")) {
        bool hash = argc == 4 && !strcmp(argv[3], "--hash");

        if (xlft_ftvm_call(c, XLFT_FTVM_OP_STATUS, 0,
                           hash ? XLFT_FTVM_F_HASH : 0, -1, &rep, NULL))
            die("status: %s", rep.msg);
        print_status(&rep.st);
        return 0;
    }
    if ((!strcmp(argv[2], "save") || !strcmp(argv[2], "restore")) &&
        argc == 4) {
        bool save = !strcmp(argv[2], "save");
        int fd = open(argv[3], save ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC
                                    : O_RDONLY | O_CLOEXEC, 0600);

        if (fd < 0)
            die("%s: %s", argv[3], strerror(errno));
        call(c, save ? XLFT_FTVM_OP_SAVE : XLFT_FTVM_OP_RESTORE, 0, fd, &rep,
             NULL);
        close(fd);
        return 0;
    }
    for (size_t i = 0; i < sizeof(simple) / sizeof(simple[0]); i++) {
        if (!strcmp(argv[2], simple[i].name) && argc == 3) {
            if (xlft_ftvm_call(c, simple[i].op, 0, 0, -1, &rep, NULL)) {
                printf("error=%d msg=%s\n", rep.error, rep.msg);
                return 1;
            }
            print_status(&rep.st);
            return 0;
        }
    }
    fprintf(stderr, "ftvm-dom0: unknown operation %s\n", argv[2]);
    return 1;
}

int main(int argc, char **argv)
{
    struct xlft_ftvm *c;
    int rc;

    if (argc >= 4 && !strcmp(argv[1], "pair"))
        return pair(argv[2], argv[3], argc - 4, argv + 4);
    if (argc < 3)
        die("usage: ftvm-dom0 SOCK OP [ARGS] | pair PSOCK SSOCK ...");
    if (!strcmp(argv[2], "record"))
        return record(argv[1], argc - 3, argv + 3);
    c = connect_to(argv[1]);
    rc = command(c, argc, argv);
    xlft_ftvm_close(c);
    return rc;
}
