// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_snapshot.c - libFuzzer target: the guest state an ftvm secondary
 * restores, which is the STATE stream its peer sent (hvm/ftvm/snapshot.c),
 * and the guest then run from it.
 *
 * The first byte chooses the guest (bit 0: idle or cpu, as built in
 * build/guests, or FTVM_FUZZ_GUESTS) and how the rest is used (bit 1):
 * as a whole snapshot, which reaches the framing checks; or as the
 * register and device values of a real snapshot of that guest, whose
 * checksum the harness then makes right, so that inputs get past it to
 * the restore and to the devices that run on what it restored.  Either
 * way the restore says why it refuses, and a restored guest runs for a
 * bounded number of instructions and stops with a status, never a
 * crash, a hang or a sanitizer report.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xxhash.h>

#include "ftvm.h"

#define TEST_NAME "fuzz_snapshot"
#include "testutil.h"

#define RAM_MIB 8u
#define RUN_INSNS 50000u
#define RUN_MS 20u              /* a guest halted for good waits no more */
#define HEAD 16u                /* magic, version, MiB */

static const struct {
    const char *image, *cmdline;
} guests[] = {
    { "idle.bin", "report=20 hz=1000" },
    { "cpu.bin", "seed=3 hz=4000" },
};

/* A real snapshot of each guest, taken once. */
static struct {
    uint8_t *p;
    size_t len;
} base[2];

static int memfd_with(const void *p, size_t len)
{
    int fd = memfd_create("fuzz-snapshot", MFD_CLOEXEC);

    CHECK(fd >= 0);
    CHECK(write(fd, p, len) == (ssize_t)len);
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    return fd;
}

static void take_base(unsigned int g)
{
    const char *dir = getenv("FTVM_FUZZ_GUESTS");
    char path[512];
    struct ftvm vm;
    off_t len;
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir ? dir : "build/guests",
             guests[g].image);
    CHECK(ftvm_create(&vm, RAM_MIB) == 0);
    CHECK(ftvm_load(&vm, path, guests[g].cmdline) == 0);
    CHECK(ftvm_run(&vm, 20000, 0) >= 0);
    fd = memfd_create("fuzz-snapshot", MFD_CLOEXEC);
    CHECK(fd >= 0);
    CHECK(ftvm_snapshot_save_fd(&vm, fd, "base") == 0);
    len = lseek(fd, 0, SEEK_END);
    CHECK(len > (off_t)(HEAD + 8));
    base[g].len = (size_t)len;
    base[g].p = malloc(base[g].len);
    CHECK(base[g].p != NULL);
    CHECK(pread(fd, base[g].p, base[g].len, 0) == len);
    close(fd);
    ftvm_destroy(&vm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned int g;
    struct ftvm vm;
    uint8_t *snap;
    size_t len, values;
    uint64_t h;
    int fd, rc;

    if (size < 1 || size > 65536)
        return 0;
    g = data[0] & 1;
    if (!base[g].p)
        take_base(g);
    if (data[0] & 2) {
        snap = malloc(size - 1 ? size - 1 : 1);
        CHECK(snap != NULL);
        memcpy(snap, data + 1, size - 1);
        len = size - 1;
    } else {
        len = base[g].len;
        snap = malloc(len);
        CHECK(snap != NULL);
        memcpy(snap, base[g].p, len);
        /* The values lie between the head and RAM. */
        values = len - HEAD - ((size_t)RAM_MIB << 20) - 8;
        memcpy(snap + HEAD, data + 1,
               size - 1 < values ? size - 1 : values);
        h = XXH3_64bits(snap, len - 8);
        memcpy(snap + len - 8, &h, 8);
    }
    fd = memfd_with(snap, len);
    free(snap);

    CHECK(ftvm_create(&vm, RAM_MIB) == 0);
    vm.why[0] = '\0';
    rc = ftvm_snapshot_restore_fd(&vm, fd, "(fuzz)");
    close(fd);
    CHECK(rc <= 0);
    CHECK(!rc || vm.why[0]);
    if (!rc) {
        rc = ftvm_run(&vm, RUN_INSNS, RUN_MS);
        CHECK(rc >= 0 && rc <= FTVM_EXIT_HLT_CLI && rc != FTVM_EXIT_USAGE);
        CHECK(!rc || vm.why[0]);
    }
    ftvm_destroy(&vm);
    return 0;
}
