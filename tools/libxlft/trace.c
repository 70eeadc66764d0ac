// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.c - per-hop timestamps for the benchmark (xlft_trace.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "xlft_trace.h"

#define LINE    48              /* "HOP SEQ NS\n", fixed width */

static const char *const names[XLFT_HOP_NR] = {
    "held", "seen", "sent", "recv", "acksent", "acked", "released",
};

static char *map;
static uint32_t used;

void xlft_trace_start(const char *who)
{
    const char *dir = getenv("XLFT_TRACE");
    char path[4096];
    int fd;

    if (!dir || !*dir || map)
        return;
    snprintf(path, sizeof(path), "%s/%s.%ld", dir, who, (long)getpid());
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ftruncate(fd, (off_t)XLFT_TRACE_MAX * LINE)) {
        fprintf(stderr, "xlft: XLFT_TRACE: %s: %s; not tracing\n", path,
                strerror(errno));
    } else {
        map = mmap(NULL, (size_t)XLFT_TRACE_MAX * LINE,
                   PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (map == MAP_FAILED) {
            fprintf(stderr, "xlft: XLFT_TRACE: %s: %s; not tracing\n",
                    path, strerror(errno));
            map = NULL;
        }
    }
    if (fd >= 0)
        close(fd);
}

void xlft_trace(enum xlft_hop hop, uint64_t seq)
{
    struct timespec ts;
    char *l;

    if (!map || used >= XLFT_TRACE_MAX || hop >= XLFT_HOP_NR)
        return;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    l = map + (size_t)used++ * LINE;
    snprintf(l, LINE, "%-8s %20" PRIu64 " %16" PRIu64, names[hop], seq,
             (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
    l[LINE - 2] = ' ';
    l[LINE - 1] = '\n';
}
