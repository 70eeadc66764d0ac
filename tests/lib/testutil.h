/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * testutil.h - what the C test drivers share.  TEST_NAME, defined before
 * this is included, is the program's name, with which its messages begin.
 *   die(FMT, ...)      "TEST_NAME: message" on stderr, then exit 1; with
 *                      TESTUTIL_ABORT (the fuzz targets) abort(), so that
 *                      libFuzzer keeps the input that led there
 *   CHECK(cond)        die, naming the file, line and condition, unless
 *                      cond holds
 *   now_ns(), now_ms() the monotonic clock
 */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef TEST_NAME
#error "define TEST_NAME before including testutil.h"
#endif

__attribute__((format(printf, 1, 2), noreturn))
static inline void die(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fputs(TEST_NAME ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
#ifdef TESTUTIL_ABORT
    abort();
#else
    exit(1);
#endif
}

#define CHECK(cond) \
    do { \
        if (!(cond)) \
            die("%s:%d: check failed: %s", __FILE__, __LINE__, #cond); \
    } while (0)

static inline uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t now_ms(void)
{
    return now_ns() / 1000000;
}

#endif
