// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_copy.c - the copy stream's header and reply (xlft_copy.h): round
 * trips, and each kind of bad one refused with a message, another
 * version with -EPROTONOSUPPORT.
 */
#include <errno.h>
#include <string.h>

#include "xlft_copy.h"
#include "unit.h"

static char msg[256];

static void test_header(void)
{
    uint8_t b[XLFT_COPY_HDR_SIZE];
    struct xlft_copy_hdr h = { .domid = 7, .config_len = 1234 }, g;

    xlft_copy_hdr_put(b, &h);
    CU_ASSERT_EQUAL(memcmp(b, "XLFTCOPY", 8), 0);
    CU_ASSERT_EQUAL(xlft_copy_hdr_get(b, &g, msg, sizeof(msg)), 0);
    CU_ASSERT_EQUAL(g.domid, 7);
    CU_ASSERT_EQUAL(g.config_len, 1234);

    /* A peer from before the device state, and one from after. */
    b[8] = 1;
    msg[0] = '\0';
    CU_ASSERT_EQUAL(xlft_copy_hdr_get(b, &g, msg, sizeof(msg)),
                    -EPROTONOSUPPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "version 1"));
    b[8] = 3;
    CU_ASSERT_EQUAL(xlft_copy_hdr_get(b, &g, msg, sizeof(msg)),
                    -EPROTONOSUPPORT);
    b[8] = 2;
    b[12] = 1;                  /* a flag */
    CU_ASSERT_EQUAL(xlft_copy_hdr_get(b, &g, msg, sizeof(msg)), -EPROTO);
    b[12] = 0;
    b[0] = 'Y';
    CU_ASSERT_EQUAL(xlft_copy_hdr_get(b, &g, msg, sizeof(msg)), -EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "magic"));

    h.config_len = 0;
    xlft_copy_hdr_put(b, &h);
    CU_ASSERT_EQUAL(xlft_copy_hdr_get(b, &g, msg, sizeof(msg)), -EPROTO);
    h.config_len = XLFT_COPY_CONFIG_MAX + 1;
    xlft_copy_hdr_put(b, &h);
    CU_ASSERT_EQUAL(xlft_copy_hdr_get(b, &g, msg, sizeof(msg)), -EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "configuration"));
}

static void test_config(void)
{
    CU_ASSERT_EQUAL(xlft_copy_config_check((const uint8_t *)"{}", 3, msg,
                                           sizeof(msg)), 0);
    CU_ASSERT_EQUAL(xlft_copy_config_check((const uint8_t *)"{}x", 3, msg,
                                           sizeof(msg)), -EPROTO);
    CU_ASSERT_EQUAL(xlft_copy_config_check((const uint8_t *)"{\0}", 4, msg,
                                           sizeof(msg)), -EPROTO);
    CU_ASSERT_EQUAL(xlft_copy_config_check((const uint8_t *)"", 0, msg,
                                           sizeof(msg)), -EPROTO);
}

static void test_reply(void)
{
    uint8_t b[XLFT_COPY_REPLY_SIZE];
    uint32_t domid;
    int32_t status;

    xlft_copy_reply_put(b, 0, 12);
    CU_ASSERT_EQUAL(xlft_copy_reply_get(b, &status, &domid, msg,
                                        sizeof(msg)), 0);
    CU_ASSERT_EQUAL(status, 0);
    CU_ASSERT_EQUAL(domid, 12);
    xlft_copy_reply_put(b, -EIO, 0);
    CU_ASSERT_EQUAL(xlft_copy_reply_get(b, &status, &domid, msg,
                                        sizeof(msg)), 0);
    CU_ASSERT_EQUAL(status, -EIO);

    /* Success without a domain, failure with one, a positive status. */
    xlft_copy_reply_put(b, 0, 0);
    CU_ASSERT_EQUAL(xlft_copy_reply_get(b, &status, &domid, msg,
                                        sizeof(msg)), -EPROTO);
    xlft_copy_reply_put(b, -EIO, 3);
    CU_ASSERT_EQUAL(xlft_copy_reply_get(b, &status, &domid, msg,
                                        sizeof(msg)), -EPROTO);
    xlft_copy_reply_put(b, 5, 0);
    CU_ASSERT_EQUAL(xlft_copy_reply_get(b, &status, &domid, msg,
                                        sizeof(msg)), -EPROTO);
    xlft_copy_reply_put(b, 0, 12);
    b[8] = 1;
    CU_ASSERT_EQUAL(xlft_copy_reply_get(b, &status, &domid, msg,
                                        sizeof(msg)), -EPROTONOSUPPORT);
}

static void test_devices(void)
{
    uint8_t b[XLFT_COPY_DEV_SIZE];
    uint32_t len = 1;

    xlft_copy_dev_put(b, 0);
    CU_ASSERT_EQUAL(memcmp(b, "XLFTCDEV", 8), 0);
    CU_ASSERT_EQUAL(xlft_copy_dev_get(b, &len, msg, sizeof(msg)), 0);
    CU_ASSERT_EQUAL(len, 0);
    xlft_copy_dev_put(b, XLFT_COPY_DEV_MAX);
    CU_ASSERT_EQUAL(xlft_copy_dev_get(b, &len, msg, sizeof(msg)), 0);
    CU_ASSERT_EQUAL(len, XLFT_COPY_DEV_MAX);

    xlft_copy_dev_put(b, XLFT_COPY_DEV_MAX + 1);
    CU_ASSERT_EQUAL(xlft_copy_dev_get(b, &len, msg, sizeof(msg)), -EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "at most"));
    xlft_copy_dev_put(b, 16);
    b[12] = 1;
    CU_ASSERT_EQUAL(xlft_copy_dev_get(b, &len, msg, sizeof(msg)), -EPROTO);
    xlft_copy_dev_put(b, 16);
    b[0] = 'Y';
    CU_ASSERT_EQUAL(xlft_copy_dev_get(b, &len, msg, sizeof(msg)), -EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "magic"));
}

void register_copy_tests(void)
{
    CU_pSuite s = CU_add_suite("copy stream", NULL, NULL);

    CU_add_test(s, "header: round trip; other version, flags, bad magic "
                "and sizes refused", test_header);
    CU_add_test(s, "configuration: one string, NUL last", test_config);
    CU_add_test(s, "reply: round trip; inconsistent ones refused",
                test_reply);
    CU_add_test(s, "devices: round trip; too long, reserved bits, bad "
                "magic refused", test_devices);
}
