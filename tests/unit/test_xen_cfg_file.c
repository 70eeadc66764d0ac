// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_xen_cfg_file.c - the FT check of an xl configuration file
 * (xlft_xen_cfg_file.h): the example under config/ is fit; each unfit
 * setting is refused at its line with what to write; missing settings
 * whose default is unfit are named; a file that does not parse, or is
 * not there, is refused with why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "xlft_xen_cfg_file.h"

static char path[] = "/tmp/xenft-cfgXXXXXX";
static char err[4096];
static struct xlft_xen_cfg_file out;

static const char fit[] =
    "name = \"kv\"\n"
    "type = \"hvm\"\n"
    "memory = 32\n"
    "vcpus = 1\n"
    "hap = 0\n"
    "oos = 0\n"
    "tsc_mode = \"always_emulate\"\n"
    "viridian = 0\n"
    "xen_platform_pci = 0\n"
    "kernel = \"/srv/kv.bin\"\n"
    "cmdline = \"ip=10.77.0.2 nopv\"\n"
    "ftdm_tap = \"ftkv\"\n"
    "ftdm_bridge = \"xenbr0\"\n"
    "ftdm_disk = \"/srv/kv.img\"\n"
    "on_reboot = \"destroy\"\n";

static int check_text(const char *text)
{
    int fd = mkstemp(path);
    int rc;

    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    rc = xlft_xen_cfg_file_check(path, &out, err, sizeof(err));
    unlink(path);
    strcpy(path, "/tmp/xenft-cfgXXXXXX");
    return rc;
}

/* 'text' with line 'n' (1-based) replaced by 'line' (NULL: removed). */
static int check_edit(int n, const char *line)
{
    char text[2048] = "";
    const char *p = fit;

    for (int i = 1; *p; i++) {
        const char *e = strchr(p, '\n') + 1;

        if (i != n)
            strncat(text, p, (size_t)(e - p));
        else if (line)
            strcat(strcat(text, line), "\n");
        p = e;
    }
    return check_text(text);
}

static void test_fit(void)
{
    CU_ASSERT_EQUAL(check_text(fit), 0);
    CU_ASSERT_STRING_EQUAL(out.name, "kv");
    CU_ASSERT_STRING_EQUAL(out.tap, "ftkv");
    CU_ASSERT_STRING_EQUAL(out.bridge, "xenbr0");
    CU_ASSERT_STRING_EQUAL(out.disk, "/srv/kv.img");
    CU_ASSERT_STRING_EQUAL(out.mac, "");
    CU_ASSERT_STRING_EQUAL(err, "");
}

static void test_example(void)
{
    int rc = xlft_xen_cfg_file_check("../../config/ft-guest.cfg", &out, err,
                                     sizeof(err));

    CU_ASSERT_EQUAL(rc, 0);
    if (rc)
        fprintf(stderr, "%s\n", err);
}

static void refused_at(int n, const char *line, const char *at,
                       const char *what)
{
    CU_ASSERT_EQUAL(check_edit(n, line), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, at));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, what));
    if (!strstr(err, at) || !strstr(err, what))
        fprintf(stderr, "wanted '%s' and '%s' in: %s\n", at, what, err);
}

static void test_refused(void)
{
    refused_at(2, "type = \"pv\"", ":2: ", "set type = \"hvm\"");
    refused_at(4, "vcpus = 2", ":4: ", "set vcpus = 1");
    refused_at(5, "hap = 1", ":5: ", "set hap = 0");
    refused_at(5, NULL, "cfg", "set hap = 0");
    refused_at(6, NULL, "cfg", "set oos = 0");
    refused_at(7, "tsc_mode = \"native\"", ":7: ",
               "set tsc_mode = \"always_emulate\"");
    refused_at(7, "tsc_mode = 2", ":7: ", "set tsc_mode = \"always_emulate\"");
    CU_ASSERT_EQUAL(check_edit(7, "tsc_mode = 1"), 0);
    refused_at(15, "on_reboot = \"restart\"", ":15: ",
               "set on_reboot = \"destroy\"");
    refused_at(15, NULL, ": a reboot", "set on_reboot = \"destroy\"");
    refused_at(8, "viridian = 1", ":8: ", "set viridian = 0");
    refused_at(9, NULL, "cfg", "set xen_platform_pci = 0");
    refused_at(11, "cmdline = \"ip=10.77.0.2\"", ":11: ", "add nopv");
    refused_at(12, "vif = [ \"bridge=xenbr0\" ]", ":12: ",
               "1 vif device(s)");
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "ftdm serves the network"));
    refused_at(12, "disk = [ \"/srv/a.img,raw,hda,rw\", \"/b,raw,hdb\" ]",
               ":12: ", "2 disk device(s)");
    refused_at(12, "pci = [ \"01:00.0\" ]", ":12: ", "passthrough");
    refused_at(12, "ftdm_tap = \"a-name-much-too-long\"", ":12: ",
               "at most 15 bytes");
    refused_at(12, NULL, ":12: ", "ftdm_bridge without ftdm_tap");

    /* Every refusal, each on a line of its own. */
    CU_ASSERT_EQUAL(check_text("name = \"x\"\ntype = \"hvm\"\nvcpus = 4\n"
                               "vif = [ \"\" ]\n"), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, ":3: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, ":4: 1 vif device(s)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "set hap = 0"));
}

static void test_unreadable(void)
{
    CU_ASSERT_EQUAL(check_text("name = \"x\nvcpus = = 3\n"), -EBADMSG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not an xl configuration"));
    CU_ASSERT_EQUAL(xlft_xen_cfg_file_check("/nonexistent/g.cfg", &out, err,
                                            sizeof(err)), -ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/g.cfg"));
}

void register_xen_cfg_file_tests(void)
{
    CU_pSuite s = CU_add_suite("xl configuration file check", NULL, NULL);

    CU_add_test(s, "a fit file, its ftdm keys", test_fit);
    CU_add_test(s, "the example under config/ is fit", test_example);
    CU_add_test(s, "each unfit setting refused at its line", test_refused);
    CU_add_test(s, "unparsable or missing file refused", test_unreadable);
}
