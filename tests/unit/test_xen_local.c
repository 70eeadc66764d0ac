// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_xen_local.c - this host's configuration of a Xen guest
 * (xlft_xen_local.h): a libxl JSON file read as it is; an xl
 * configuration handed to a stand-in for xl, whose output is taken;
 * an xl that fails, writes nothing or hangs (killed at the time limit),
 * a missing file and a directory refused naming the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "xlft_xen_local.h"
#include "unit.h"

static char dir[64], msg[512];

static void put(const char *name, const char *text, mode_t mode)
{
    char path[128];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
}

static int load(const char *name, const char *xl, unsigned int ms,
                char **json)
{
    char path[128], prog[128];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    snprintf(prog, sizeof(prog), "%s/%s", dir, xl ? xl : "none");
    msg[0] = '\0';
    return xlft_xen_local_config(path, prog, ms, json, msg, sizeof(msg));
}

static void test_local(void)
{
    char *json = NULL;
    struct timespec t0, t1;

    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(strcpy(dir, "/tmp/xenft-xl.XXXXXX")));
    put("kv.json", "  {\"c_info\": {\"type\": \"hvm\"}}\n", 0644);
    put("kv.cfg", "name = \"kv\"\ntype = \"hvm\"\n", 0644);
    /* Says what it was asked, as xl's dry run prints the result. */
    put("xl-ok", "#!/bin/sh\n[ \"$*\" = \"create --dryrun --quiet -f "
        "$5\" ] || exit 9\necho '{\"c_info\": {\"name\": \"kv\"}}'\n", 0755);
    put("xl-fail", "#!/bin/sh\necho 'kv.cfg:3: syntax error' >&2\n"
        "exit 3\n", 0755);
    put("xl-mute", "#!/bin/sh\nexit 0\n", 0755);
    put("xl-hang", "#!/bin/sh\nexec sleep 60\n", 0755);

    CU_ASSERT_EQUAL(load("kv.json", NULL, 1000, &json), 0);
    CU_ASSERT_PTR_NOT_NULL(json && strstr(json, "\"hvm\""));
    free(json);
    CU_ASSERT_EQUAL(load("kv.cfg", "xl-ok", 10000, &json), 0);
    CU_ASSERT_PTR_NOT_NULL(json && strstr(json, "\"kv\""));
    free(json);

    CU_ASSERT_EQUAL(load("kv.cfg", "xl-fail", 10000, &json), -EINVAL);
    CU_ASSERT_PTR_NULL(json);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "kv.cfg"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "status 3"));
    CU_ASSERT_EQUAL(load("kv.cfg", "xl-mute", 10000, &json), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "no configuration"));
    CU_ASSERT(load("kv.cfg", "xl-absent", 10000, &json) < 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "cannot run"));

    clock_gettime(CLOCK_MONOTONIC, &t0);
    CU_ASSERT_EQUAL(load("kv.cfg", "xl-hang", 300, &json), -ETIMEDOUT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CU_ASSERT(t1.tv_sec - t0.tv_sec < 10);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "killed"));

    CU_ASSERT_EQUAL(load("absent.cfg", "xl-ok", 1000, &json), -ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "absent.cfg"));
    CU_ASSERT_EQUAL(load("", "xl-ok", 1000, &json), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "not a regular file"));

    CU_ASSERT_EQUAL(system(strcat(strcpy(msg, "rm -rf "), dir)), 0);
}

void register_xen_local_tests(void)
{
    CU_pSuite s = CU_add_suite("xen secondary: this host's configuration",
                               NULL, NULL);

    CU_add_test(s, "libxl JSON as it is, xl's dry run of an xl file; a "
                "failing, mute or hanging xl and a missing file refused",
                test_local);
}
