// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ftdm_state.c - what a copy's ftdm starts from: the device
 * state's bytes (tools/ftdm/devstate.h) loaded into fresh devices give
 * the same bytes again, and every malformed one is refused naming why;
 * and ftd's word to ftdm (xlft_dm_ctl.h): a freeze answered only once
 * done, the state given only while frozen, a second caller refused, and
 * the thaw when the caller goes; a refusal read even when the device
 * model hung up on a word it never read.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "unit.h"
#include "ctl.h"
#include "devstate.h"
#include "fakeram.h"
#include "vio.h"
#include "xlft_dm_ctl.h"

#define RAM (1u << 16)

static uint8_t ram[RAM];
static struct fakeram fram = { ram, RAM };

static struct vio_bus *bus_make(bool blk)
{
    static const struct vio_host h = {
        .opaque = &fram, .ram_read = fakeram_read,
        .ram_write = fakeram_write, .ram_ok = fakeram_ok,
    };
    static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
    struct vio_bus *b = vio_bus_new(&h);

    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_EQUAL(vio_add_net(b, 1, 0xfeb00000u, mac), 0);
    if (blk)
        CU_ASSERT_EQUAL(vio_add_blk(b, 2, 0xfeb04000u, 64, "d"), 0);
    return b;
}

/* A guest's driver part way: BAR moved, features, a queue set up. */
static void drive(struct vio_bus *b)
{
    uint32_t bar = 0xfe000000u;

    vio_cfg_write(b, 1, 0x10, 4, bar);
    vio_cfg_write(b, 1, 0x04, 2, 6);
    CU_ASSERT_TRUE(vio_mmio_write(b, bar + 0x14, 1, 1 | 2));
    CU_ASSERT_TRUE(vio_mmio_write(b, bar + 0x16, 2, 1));    /* queue 1 */
    CU_ASSERT_TRUE(vio_mmio_write(b, bar + 0x18, 2, 64));   /* size */
    CU_ASSERT_TRUE(vio_mmio_write(b, bar + 0x20, 4, 0x1000));
}

static void test_state_round_trip(void)
{
    static uint8_t a[FTDM_DEVSTATE_MAX], c[FTDM_DEVSTATE_MAX];
    struct vio_bus *p = bus_make(true), *q = bus_make(true);
    struct vio_bus *fresh = bus_make(true);
    size_t n, m;
    uint32_t base;
    char err[200];

    drive(p);
    n = ftdm_devstate_save(p, a);
    CU_ASSERT_TRUE(n > 16 && n <= FTDM_DEVSTATE_MAX);
    m = ftdm_devstate_save(fresh, c);
    CU_ASSERT_EQUAL(m, n);
    CU_ASSERT_NOT_EQUAL(memcmp(a, c, n), 0);    /* the driver changed it */
    CU_ASSERT_EQUAL(ftdm_devstate_load(q, a, n, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(ftdm_devstate_save(q, c), n);
    CU_ASSERT_EQUAL(memcmp(a, c, n), 0);
    CU_ASSERT_TRUE(vio_bar_at(q, 1, &base));
    CU_ASSERT_EQUAL(base, 0xfe000000u);
    vio_bus_free(p);
    vio_bus_free(q);
    vio_bus_free(fresh);
}

static void test_state_refused(void)
{
    static uint8_t a[FTDM_DEVSTATE_MAX], bad[FTDM_DEVSTATE_MAX];
    struct vio_bus *p = bus_make(true), *q = bus_make(true);
    struct vio_bus *net_only = bus_make(false);
    size_t n;
    char err[200];

    drive(p);
    n = ftdm_devstate_save(p, a);
    CU_ASSERT_EQUAL(ftdm_devstate_load(q, a, n - 1, err, sizeof(err)),
                    -EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "values"));
    CU_ASSERT_EQUAL(ftdm_devstate_load(q, a, 10, err, sizeof(err)),
                    -EPROTO);
    memcpy(bad, a, n);
    bad[0] = 'Y';
    CU_ASSERT_EQUAL(ftdm_devstate_load(q, bad, n, err, sizeof(err)),
                    -EPROTO);
    memcpy(bad, a, n);
    bad[8] = 2;                                 /* version 2 */
    CU_ASSERT_EQUAL(ftdm_devstate_load(q, bad, n, err, sizeof(err)),
                    -EPROTONOSUPPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "version 2"));
    /* Devices of another make: the values do not fit them. */
    CU_ASSERT_EQUAL(ftdm_devstate_load(net_only, a, n, err, sizeof(err)),
                    -EPROTO);
    /* A queue size no guest could set (3): the loader checks. */
    memcpy(bad, a, n);
    for (size_t i = 16; i + 8 <= n; i += 8) {
        if (bad[i] == 64 && !bad[i + 1]) {
            bad[i] = 3;
            break;
        }
    }
    CU_ASSERT_EQUAL(ftdm_devstate_load(q, bad, n, err, sizeof(err)),
                    -EINVAL);
    /* A value wider than its field (a 16-bit queue size of 2^16 + 64). */
    memcpy(bad, a, n);
    for (size_t i = 16; i + 8 <= n; i += 8) {
        if (bad[i] == 64 && !bad[i + 1]) {
            bad[i + 2] = 1;
            break;
        }
    }
    CU_ASSERT_EQUAL(ftdm_devstate_load(q, bad, n, err, sizeof(err)),
                    -EINVAL);
    vio_bus_free(p);
    vio_bus_free(q);
    vio_bus_free(net_only);
}

/* The server: ctl.c in a child, telling the parent what it was asked. */
static int tell = -1;
static struct vio_bus *child_bus;

static void c_freeze(void *o)
{
    (void)o;
    CU_ASSERT_EQUAL(write(tell, "F", 1), 1);
}

static void c_thaw(void *o)
{
    (void)o;
    CU_ASSERT_EQUAL(write(tell, "T", 1), 1);
}

static size_t c_state(void *o, uint8_t *buf)
{
    (void)o;
    return ftdm_devstate_save(child_bus, buf);
}

static void serve(const char *dir, int fd)
{
    const struct ftdm_ctl_ops ops = { NULL, c_freeze, c_thaw, c_state };
    struct event_base *base = event_base_new();
    struct ftdm_ctl *c;
    char err[256];

    tell = fd;
    child_bus = bus_make(true);
    drive(child_bus);
    if (!base || ftdm_ctl_open(&c, 9, base, dir, &ops, err, sizeof(err)))
        _exit(3);
    CU_ASSERT_EQUAL(write(tell, "L", 1), 1);
    event_base_dispatch(base);
    _exit(0);
}

static char next(int fd)
{
    char ch = '?';

    CU_ASSERT_EQUAL(read(fd, &ch, 1), 1);
    return ch;
}

static void test_ctl(void)
{
    static uint8_t st[XLFT_DM_STATE_MAX], want[FTDM_DEVSTATE_MAX];
    char dir[] = "/tmp/xenft-dmXXXXXX", sub[64], err[256];
    struct vio_bus *b = bus_make(true);
    int p[2], fd, other, n, status;
    pid_t kid;

    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(sub, sizeof(sub), "%s/run", dir);
    CU_ASSERT_EQUAL(xlft_dm_freeze(sub, 9, err, sizeof(err)), -ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "domain 9"));
    CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
    kid = fork();
    CU_ASSERT_FATAL(kid >= 0);
    if (!kid) {
        close(p[0]);
        serve(sub, p[1]);
    }
    close(p[1]);
    CU_ASSERT_EQUAL(next(p[0]), 'L');
    fd = xlft_dm_freeze(sub, 9, err, sizeof(err));
    CU_ASSERT_FATAL(fd >= 0);
    /* Frozen before it answered. */
    CU_ASSERT_EQUAL(next(p[0]), 'F');
    other = xlft_dm_freeze(sub, 9, err, sizeof(err));
    CU_ASSERT_EQUAL(other, -EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "busy"));
    drive(b);
    n = xlft_dm_state(fd, 9, st, err, sizeof(err));
    CU_ASSERT_EQUAL(n, (int)ftdm_devstate_save(b, want));
    CU_ASSERT_EQUAL(memcmp(st, want, (size_t)(n > 0 ? n : 0)), 0);
    close(fd);
    CU_ASSERT_EQUAL(next(p[0]), 'T');
    kill(kid, SIGTERM);
    CU_ASSERT_EQUAL(waitpid(kid, &status, 0), kid);
    close(p[0]);
    vio_bus_free(b);
    snprintf(err, sizeof(err), "rm -rf %s", dir);
    CU_ASSERT_EQUAL(system(err), 0);
}

/*
 * A device model that refuses only once the caller's word has arrived,
 * and hangs up without reading it: Linux then reports the hang-up to
 * the caller before the refusal, the order CI once met by chance.
 */
static void *refuse_unread(void *arg)
{
    int lfd = *(int *)arg, cfd;
    struct pollfd p = { .events = POLLIN };

    p.fd = lfd;
    if (poll(&p, 1, 10000) != 1)
        return NULL;
    cfd = accept(lfd, NULL, NULL);
    if (cfd < 0)
        return NULL;
    p.fd = cfd;
    if (poll(&p, 1, 10000) == 1)
        send(cfd, "refused: busy", 13, MSG_NOSIGNAL);
    close(cfd);
    return NULL;
}

static void test_refusal_before_reset(void)
{
    char dir[] = "/tmp/xenft-dmXXXXXX", err[256];
    int lfd, rc, i, refused = 0;
    pthread_t t;

    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    lfd = xlft_dm_ctl_listen(dir, 9, err, sizeof(err));
    CU_ASSERT_FATAL(lfd >= 0);
    /* Which side runs first is the scheduler's; many tries meet both. */
    for (i = 0; i < 300; i++) {
        CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, refuse_unread,
                                             &lfd), 0);
        rc = xlft_dm_freeze(dir, 9, err, sizeof(err));
        CU_ASSERT_EQUAL_FATAL(pthread_join(t, NULL), 0);
        refused += rc == -EPROTO && strstr(err, "busy");
    }
    CU_ASSERT_EQUAL(refused, i);
    xlft_dm_ctl_close(dir, 9, lfd);
    CU_ASSERT_EQUAL(rmdir(dir), 0);
}

void register_ftdm_state_tests(void)
{
    CU_pSuite s = CU_add_suite("ftdm_state", NULL, NULL);

    CU_add_test(s, "device state: saved, loaded, saved alike",
                test_state_round_trip);
    CU_add_test(s, "device state: malformed ones refused",
                test_state_refused);
    CU_add_test(s, "control: freeze, state, busy, thaw", test_ctl);
    CU_add_test(s, "control: a refusal read though the peer hung up",
                test_refusal_before_reset);
}
