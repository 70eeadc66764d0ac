/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_ftvm.c - whatever a log says, ftvm replaying it must end with an
 * exit status and a reason, never a crash, a hang or a sanitizer report.
 *
 * The input is one byte choosing the guest (idle or cpu, as built in
 * build/guests, or FTVM_FUZZ_GUESTS), then log records as they follow the
 * log's first record.  The harness writes that first record itself, the
 * state hash of the freshly loaded guest, so that inputs get past it,
 * and wraps everything in a well-framed stored log: the checks that the
 * log reader and the replayer make are what is being tested.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "ftvm.h"
#include "xlft_logfile.h"
#define TEST_NAME "fuzz_ftvm"
#include "testutil.h"

#define INSN_CAP 2000000u

static const struct {
    const char *image, *cmdline;
} guests[] = {
    { "idle.bin", "report=20 hz=1000" },
    { "cpu.bin", "seed=3 hz=4000" },
};

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A stored log of one block holding 'recs' (layout: FORMAT.md). */
static void write_log(const char *path, const uint8_t *recs, uint32_t len)
{
    uint8_t hdr[32] = "XENFTLOG", blk[40] = "XBLK", end[40] = "XBLK";
    uint32_t nrec;
    FILE *f = fopen(path, "wb");

    CHECK(f != NULL);
    ft_log_scan(recs, len, &nrec);
    put_le(hdr + 8, XLFT_LOGFILE_VERSION, 4);
    put_le(hdr + 12, 32, 4);
    put_le(hdr + 16, FT_LOG_VERSION, 2);
    hdr[18] = FTVM_COUNTER;
    hdr[19] = FT_CPU_FTVM;
    put_le(hdr + 24, XXH3_64bits(hdr, 24), 8);
    put_le(blk + 4, len, 4);
    put_le(blk + 8, 1, 8);
    put_le(blk + 16, nrec, 4);
    put_le(blk + 24, XXH3_64bits(recs, len), 8);
    put_le(blk + 32, XXH3_64bits(blk, 32), 8);
    put_le(end + 8, (uint64_t)nrec + 1, 8);
    put_le(end + 20, 1, 4);
    put_le(end + 24, XXH3_64bits(NULL, 0), 8);
    put_le(end + 32, XXH3_64bits(end, 32), 8);
    CHECK(fwrite(hdr, 1, 32, f) == 32 && fwrite(blk, 1, 40, f) == 40 &&
          fwrite(recs, 1, len, f) == len && fwrite(end, 1, 40, f) == 40);
    CHECK(fclose(f) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = getenv("FTVM_FUZZ_GUESTS");
    char path[512], log[64];
    struct ftvm vm;
    struct ft_codec c;
    struct ft_log_rec first = { .kind = FT_K_SYNC };
    uint8_t *recs;
    int n, rc;

    if (size < 1 || size > 65536)
        return 0;
    snprintf(path, sizeof(path), "%s/%s", dir ? dir : "build/guests",
             guests[data[0] & 1].image);
    snprintf(log, sizeof(log), "/dev/shm/xenft-fuzz-%d.log", (int)getpid());

    CHECK(ftvm_create(&vm, 8) == 0);
    CHECK(ftvm_load(&vm, path, guests[data[0] & 1].cmdline) == 0);
    first.pt = ftvm_point(&vm);
    first.u.sync.hash = ftvm_state_hash(&vm);
    recs = malloc(FT_LOG_HEAD_MAX + size);
    CHECK(recs != NULL);
    ft_codec_init(&c);
    n = ft_log_encode(&c, &first, recs);
    CHECK(n > 0);
    memcpy(recs + n, data + 1, size - 1);
    write_log(log, recs, (uint32_t)(n + size - 1));
    free(recs);

    vm.insn_cap = INSN_CAP;
    rc = ftvm_ft_replay(&vm, log);
    if (!rc)
        ftvm_run(&vm, 0, 0);
    rc = rc ? rc : ftvm_ft_finish(&vm);
    /* Every stop has a status and a reason, and stays within the cap. */
    CHECK(rc >= 0 && rc <= FTVM_EXIT_BADLOG && rc != FTVM_EXIT_USAGE);
    CHECK(!rc || vm.why[0]);
    CHECK(vm.count <= INSN_CAP + 1);
    ftvm_destroy(&vm);
    unlink(log);
    return 0;
}
