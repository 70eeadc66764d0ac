// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ack_wake.c - ftd's wake-up of a Xen guest's device model
 * (xlft_ack_wake.h): delivered to the domain's listener alone, counted,
 * refused when nobody listens or the directory is not the listener's
 * own, a dead listener's socket replaced, a live one not taken.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "xlft_ack_wake.h"

static void test_ack_wake(void)
{
    char dir[] = "/tmp/xenft-ackXXXXXX", sub[64], path[96], err[256];
    int a, b, again, tx;

    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(sub, sizeof(sub), "%s/run", dir);
    tx = xlft_ack_wake_sender();
    CU_ASSERT_FATAL(tx >= 0);
    CU_ASSERT_EQUAL(xlft_ack_wake_send(tx, sub, 7), -ENOENT);

    a = xlft_ack_wake_listen(sub, 7, err, sizeof(err));
    b = xlft_ack_wake_listen(sub, 8, err, sizeof(err));
    CU_ASSERT_FATAL(a >= 0 && b >= 0);
    CU_ASSERT_EQUAL(xlft_ack_wake_drain(a), 0);
    CU_ASSERT_EQUAL(xlft_ack_wake_send(tx, sub, 7), 0);
    CU_ASSERT_EQUAL(xlft_ack_wake_send(tx, sub, 7), 0);
    CU_ASSERT_EQUAL(xlft_ack_wake_drain(a), 2);
    CU_ASSERT_EQUAL(xlft_ack_wake_drain(b), 0);
    CU_ASSERT_EQUAL(xlft_ack_wake_drain(a), 0);

    /* A live listener is not taken over. */
    again = xlft_ack_wake_listen(sub, 7, err, sizeof(err));
    CU_ASSERT_EQUAL(again, -EADDRINUSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "domain 7"));

    /* A dead one's socket (closed, not removed) is replaced. */
    close(a);
    CU_ASSERT_EQUAL(xlft_ack_wake_send(tx, sub, 7), -ECONNREFUSED);
    a = xlft_ack_wake_listen(sub, 7, err, sizeof(err));
    CU_ASSERT_FATAL(a >= 0);
    CU_ASSERT_EQUAL(xlft_ack_wake_send(tx, sub, 7), 0);
    CU_ASSERT_EQUAL(xlft_ack_wake_drain(a), 1);
    xlft_ack_wake_close(sub, 7, a);
    xlft_ack_wake_close(sub, 8, b);
    snprintf(path, sizeof(path), "%s/ack-7", sub);
    CU_ASSERT_EQUAL(access(path, F_OK), -1);

    /* Anyone may write the directory: not listened in. */
    CU_ASSERT_EQUAL(chmod(sub, 0777), 0);
    CU_ASSERT_EQUAL(xlft_ack_wake_listen(sub, 7, err, sizeof(err)), -EPERM);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "written by nobody else"));
    /* A file where the socket goes is not removed. */
    CU_ASSERT_EQUAL(chmod(sub, 0700), 0);
    fclose(fopen(path, "w"));
    CU_ASSERT_EQUAL(xlft_ack_wake_listen(sub, 7, err, sizeof(err)),
                    -EEXIST);
    CU_ASSERT_EQUAL(access(path, F_OK), 0);
    unlink(path);
    rmdir(sub);
    rmdir(dir);
    close(tx);
}

void register_ack_wake_tests(void)
{
    CU_pSuite s = CU_add_suite("acknowledgement wake-up", NULL, NULL);

    CU_add_test(s, "to one domain's listener; stale, live, unsafe dirs",
                test_ack_wake);
}
