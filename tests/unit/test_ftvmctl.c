// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ftvmctl.c - libxlft's side of `ftvm serve` against a fake ftvm
 * that hands out rings as a guest that has taken ftvm over would: a
 * memfd left unsealed, one shorter than said, one cut once mapped.  A
 * ring whose size is not sealed is refused before it is mapped; a sealed
 * one cannot be cut, and stays readable to its end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "xlft_ftvm.h"
#include "unit.h"

#define DATA        FT_RING_MIN_DATA
#define RING_SIZE   (FT_RING_HDR_SIZE + DATA)
#define SEALS       (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

/* The fake ftvm: a listening control socket in a directory of its own. */
struct fake {
    char dir[64], path[108];
    int lfd;
};

static int fake_open(struct fake *f)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };

    strcpy(f->dir, "/tmp/xenft-ftvmctl-XXXXXX");
    f->lfd = -1;
    if (!mkdtemp(f->dir))
        return -errno;
    snprintf(f->path, sizeof(f->path), "%s/ctl", f->dir);
    strcpy(sa.sun_path, f->path);
    f->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (f->lfd < 0 || bind(f->lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
        listen(f->lfd, 1))
        return -errno;
    return 0;
}

static void fake_close(struct fake *f)
{
    if (f->lfd >= 0)
        close(f->lfd);
    unlink(f->path);
    rmdir(f->dir);
}

/* A record ring laid out in a memfd of 'size' bytes, with 'seals'. */
static int ring_memfd(uint32_t size, int seals)
{
    int fd = memfd_create("fake-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    struct ft_ring ring;
    void *mem;

    if (fd < 0 || ftruncate(fd, RING_SIZE))
        goto fail;
    mem = mmap(NULL, RING_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mem == MAP_FAILED)
        goto fail;
    if (ft_ring_init(&ring, mem, RING_SIZE, FT_RING_RECORD) ||
        ft_ring_set_kind(&ring, FT_COUNTER_STEPS, FT_CPU_FTVM)) {
        munmap(mem, RING_SIZE);
        goto fail;
    }
    munmap(mem, RING_SIZE);
    /* A short file keeps its header page: only the data is missing. */
    if (size != RING_SIZE && ftruncate(fd, size))
        goto fail;
    if (seals && fcntl(fd, F_ADD_SEALS, seals))
        goto fail;
    return fd;
fail:
    if (fd >= 0)
        close(fd);
    return -1;
}

/* The fake answers one RECORD with 'mfd', saying the ring is RING_SIZE. */
static void answer_record(struct fake *f, int mfd)
{
    struct xlft_ftvm_rep rep = { .magic = XLFT_FTVM_MAGIC,
                                 .version = XLFT_FTVM_VERSION,
                                 .op = XLFT_FTVM_OP_RECORD,
                                 .ring_size = RING_SIZE };
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct xlft_ftvm_req req;
    struct iovec iov = { &rep, sizeof(rep) };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
                        .msg_control = u.buf,
                        .msg_controllen = sizeof(u.buf) };
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    int fds[3] = { mfd, eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC) };
    int cfd = accept4(f->lfd, NULL, NULL, SOCK_CLOEXEC);

    CU_ASSERT_FATAL(cfd >= 0 && fds[1] >= 0 && fds[2] >= 0);
    CU_ASSERT_FATAL(recv(cfd, &req, sizeof(req), 0) == sizeof(req));
    CU_ASSERT_EQUAL(req.op, XLFT_FTVM_OP_RECORD);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(fds));
    memcpy(CMSG_DATA(cm), fds, sizeof(fds));
    CU_ASSERT_FATAL(sendmsg(cfd, &m, 0) == sizeof(rep));
    close(fds[1]);
    close(fds[2]);
    close(cfd);
}

/*
 * Ask the fake for a ring and map what it passes: xlft_ring_map's
 * result, with 'r' mapped on success and 'err' saying why not.
 */
static int map_from_fake(int mfd, struct xlft_ring *r, char *err,
                         size_t errlen)
{
    struct xlft_ftvm_rep rep;
    struct xlft_ftvm *c;
    struct fake f;
    int fds[3], rc;

    err[0] = '\0';
    CU_ASSERT_FATAL(fake_open(&f) == 0);
    CU_ASSERT_FATAL(xlft_ftvm_open(&c, f.path, err, errlen) == 0);
    /* Connected through the backlog: the request waits for the fake. */
    CU_ASSERT_FATAL(xlft_ftvm_send(c, XLFT_FTVM_OP_RECORD, DATA, 0, -1) == 0);
    answer_record(&f, mfd);
    CU_ASSERT_FATAL(xlft_ftvm_recv(c, &rep, fds) == 0);
    CU_ASSERT_EQUAL(rep.ring_size, RING_SIZE);
    rc = xlft_ring_map(r, fds, rep.ring_size, FT_RING_RECORD, err, errlen);
    xlft_ftvm_close(c);
    fake_close(&f);
    return rc;
}

static void test_unsealed(void)
{
    int mfd = ring_memfd(RING_SIZE, 0);
    struct xlft_ring r;
    char err[400];

    CU_ASSERT_FATAL(mfd >= 0);
    CU_ASSERT_EQUAL(map_from_fake(mfd, &r, err, sizeof(err)), -EPERM);
    CU_ASSERT_PTR_NULL(r.mem);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not sealed against resizing"));
    CU_ASSERT_EQUAL(r.up_fd, -1);
    close(mfd);
}

static void test_half_sealed(void)
{
    int mfd = ring_memfd(RING_SIZE, F_SEAL_GROW | F_SEAL_SEAL);
    struct xlft_ring r;
    char err[400];

    CU_ASSERT_FATAL(mfd >= 0);
    CU_ASSERT_EQUAL(map_from_fake(mfd, &r, err, sizeof(err)), -EPERM);
    CU_ASSERT_PTR_NULL(r.mem);
    close(mfd);
}

static void test_not_memfd(void)
{
    char path[] = "/tmp/xenft-ring-XXXXXX", err[400];
    int fd = mkstemp(path);
    struct xlft_ring r;

    CU_ASSERT_FATAL(fd >= 0);
    unlink(path);
    CU_ASSERT_FATAL(ftruncate(fd, RING_SIZE) == 0);
    CU_ASSERT_EQUAL(map_from_fake(fd, &r, err, sizeof(err)), -EPERM);
    CU_ASSERT_PTR_NULL(r.mem);
    close(fd);
}

static void test_short(void)
{
    int mfd = ring_memfd(FT_RING_HDR_SIZE, SEALS);
    struct xlft_ring r;
    char err[400];

    CU_ASSERT_FATAL(mfd >= 0);
    CU_ASSERT_EQUAL(map_from_fake(mfd, &r, err, sizeof(err)), -EPROTO);
    CU_ASSERT_PTR_NULL(r.mem);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "is 4096 bytes, not the"));
    close(mfd);
}

static void test_sealed_cannot_shrink(void)
{
    int mfd = ring_memfd(RING_SIZE, SEALS);
    volatile const uint8_t *last;
    struct xlft_ring r;
    char err[400];

    CU_ASSERT_FATAL(mfd >= 0);
    CU_ASSERT_EQUAL_FATAL(map_from_fake(mfd, &r, err, sizeof(err)), 0);
    /* The hostile owner tries to cut the file under the mapping. */
    CU_ASSERT_EQUAL(ftruncate(mfd, FT_RING_HDR_SIZE), -1);
    CU_ASSERT_EQUAL(errno, EPERM);
    CU_ASSERT_EQUAL(ftruncate(mfd, 0), -1);
    /* Still there to its last byte: no SIGBUS. */
    last = (const uint8_t *)r.mem + RING_SIZE - 1;
    CU_ASSERT_EQUAL(*last, 0);
    CU_ASSERT_EQUAL(ft_ring_avail(&r.ring), 0);
    xlft_ring_unmap(&r);
    close(mfd);
}

/*
 * A fake that takes requests and never answers, as an ftvm whose guest
 * has taken it over may: the call ends at its deadline, and a reply
 * that comes late is never taken for the next request's.
 */
static void test_silent(void)
{
    struct xlft_ftvm_rep rep = { .magic = XLFT_FTVM_MAGIC,
                                 .version = XLFT_FTVM_VERSION,
                                 .op = XLFT_FTVM_OP_PAUSE };
    struct xlft_ftvm_req req;
    struct xlft_ftvm *c;
    struct timespec t0, t1;
    struct fake f;
    char err[200];
    long ms;
    int cfd;

    CU_ASSERT_FATAL(fake_open(&f) == 0);
    CU_ASSERT_FATAL(xlft_ftvm_open(&c, f.path, err, sizeof(err)) == 0);
    xlft_ftvm_set_deadline(c, 200);
    cfd = accept4(f.lfd, NULL, NULL, SOCK_CLOEXEC);
    CU_ASSERT_FATAL(cfd >= 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CU_ASSERT_EQUAL(xlft_ftvm_call(c, XLFT_FTVM_OP_PAUSE, 0, 0, -1, &rep,
                                   NULL), -ETIMEDOUT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    CU_ASSERT(ms >= 190);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.msg, "did not answer pause"));
    /* The late reply arrives; the next call must not take it. */
    CU_ASSERT_EQUAL(recv(cfd, &req, sizeof(req), 0), (ssize_t)sizeof(req));
    rep.error = 0;
    send(cfd, &rep, sizeof(rep), MSG_NOSIGNAL);
    CU_ASSERT_EQUAL(xlft_ftvm_call(c, XLFT_FTVM_OP_STATUS, 0, 0, -1, &rep,
                                   NULL), -EPIPE);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.msg, "given up on"));
    close(cfd);
    xlft_ftvm_close(c);
    fake_close(&f);
}

void register_ftvmctl_tests(void)
{
    CU_pSuite s = CU_add_suite("ftvm ring passed to dom0", NULL, NULL);

    CU_add_test(s, "an unsealed memfd is refused, not mapped",
                test_unsealed);
    CU_add_test(s, "a memfd that can still shrink is refused",
                test_half_sealed);
    CU_add_test(s, "a file that is no memfd is refused", test_not_memfd);
    CU_add_test(s, "a memfd shorter than said is refused", test_short);
    CU_add_test(s, "an ftvm that does not answer is given up on",
                test_silent);
    CU_add_test(s, "a sealed ring cannot be cut once mapped",
                test_sealed_cannot_shrink);
}
