// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_xen_allow.c - a Xen secondary's check of the configuration its
 * peer sent (xlft_xen_config_allow.h): the peer's version of this
 * host's configuration accepted (another identity, memory, command line,
 * member order); one of every class of setting that makes dom0 run or
 * open something refused, naming the setting and the peer's value;
 * malformed, escaped and oversized JSON refused.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "xencfg.h"
#include "xlft_copy.h"
#include "xlft_xen_config_allow.h"
#include "unit.h"

static const char local[] = XENCFG_LOCAL;
static char msg[512];

/* 'local' with its first 'from' replaced by 'to' (malloc'd). */
static char *edit(const char *base, const char *from, const char *to)
{
    const char *at = strstr(base, from);
    size_t n = strlen(base), f = strlen(from), t = strlen(to);
    char *s;

    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    s = malloc(n - f + t + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    memcpy(s, base, (size_t)(at - base));
    memcpy(s + (at - base), to, t);
    strcpy(s + (at - base) + t, at + f);
    return s;
}

static int check(const char *peer)
{
    msg[0] = '\0';
    return xlft_xen_config_allowed(peer, strlen(peer), local, strlen(local),
                                   msg, sizeof(msg));
}

/* Refused with -EPERM, the message naming every one of 'words'. */
static void refused(const char *from, const char *to, const char *w1,
                    const char *w2)
{
    char *peer = edit(local, from, to);

    CU_ASSERT_EQUAL(check(peer), -EPERM);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, w1));
    if (w2)
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, w2));
    if (!strstr(msg, w1) || (w2 && !strstr(msg, w2)))
        fprintf(stderr, "\n  refusal: %s\n", msg);
    free(peer);
}

static void test_same(void)
{
    char *a, *b, *c, *d;

    CU_ASSERT_EQUAL(check(local), 0);
    /* What the primary's libxl adds, and what is the guest's own. */
    a = edit(local, "\"name\": \"kv\"",
             "\"name\": \"kv\", \"uuid\": \"8a1c2f6e-0b7d-4e8f-9d2a-"
             "6c3b1e5f7a90\", \"domid\": 0");
    b = edit(a, "\"target_memkb\": 32768", "\"target_memkb\": 30000, "
             "\"video_memkb\": 0, \"sched_params\": {\"weight\": 256}");
    c = edit(b, "\"cmdline\": \"hz=100\"", "\"cmdline\": \"hz=250\"");
    d = edit(c, "\"model\": \"e1000\",", "\"devid\": 0, \"mac\": "
             "\"00:16:3e:5a:01:02\", \"model\": \"e1000\",");
    CU_ASSERT_EQUAL(check(d), 0);
    free(a);
    free(b);
    free(c);
    free(d);
    /* Members in another order. */
    a = edit(local, "\"format\": \"raw\",\n            \"readwrite\": 1",
             "\"readwrite\": 1, \"format\": \"raw\"");
    CU_ASSERT_EQUAL(check(a), 0);
    free(a);
    /* A setting at null is libxl's default, as if absent. */
    a = edit(local, "\"kernel\"", "\"device_model\": null, \"kernel\"");
    CU_ASSERT_EQUAL(check(a), 0);
    free(a);
}

static void test_device_model(void)
{
    refused("\"kernel\"", "\"device_model\": \"/tmp/x\", \"kernel\"",
            "b_info.device_model to '/tmp/x'", "does not allow");
    refused("\"qemu_xen\"", "\"qemu_xen_traditional\"",
            "b_info.device_model_version", "allows only 'qemu_xen'");
    refused("\"kernel\"", "\"extra_hvm\": [\"-monitor\", \"unix:/tmp/m\"], "
            "\"kernel\"", "b_info.extra_hvm", NULL);
    refused("\"kernel\"", "\"device_model_user\": \"root\", \"kernel\"",
            "b_info.device_model_user", NULL);
    refused("\"kernel\"", "\"device_model_stubdomain\": \"True\", "
            "\"stubdomain_kernel\": \"/tmp/k\", \"kernel\"",
            "b_info.device_model_stubdomain", NULL);
    refused("\"xen_platform_pci\"", "\"spice\": {\"enable\": \"True\", "
            "\"host\": \"0.0.0.0\"}, \"xen_platform_pci\"",
            "b_info.type.hvm.spice", NULL);
    refused("file:/var/log/xenft/kv.console", "file:/etc/shadow",
            "b_info.type.hvm.serial to 'file:/etc/shadow'",
            "allows only 'file:/var/log/xenft/kv.console'");
    /* A device model the peer leaves to libxl's default is refused too. */
    refused("\"device_model_version\": \"qemu_xen\",", "",
            "has no b_info.device_model_version", "sets it to 'qemu_xen'");
}

static void test_bootloader(void)
{
    refused("\"kernel\"", "\"bootloader\": \"/tmp/pwn\", \"kernel\"",
            "b_info.bootloader to '/tmp/pwn'", NULL);
    refused("\"kernel\"", "\"bootloader_args\": [\"-q\"], \"kernel\"",
            "b_info.bootloader_args", NULL);
}

static void test_kernel(void)
{
    refused("/srv/xenft/kv.bin", "/root/.ssh/id_rsa",
            "b_info.kernel to '/root/.ssh/id_rsa'",
            "allows only '/srv/xenft/kv.bin'");
    refused("\"kernel\"", "\"ramdisk\": \"/etc/shadow\", \"kernel\"",
            "b_info.ramdisk", NULL);
    refused("\"xen_platform_pci\"", "\"system_firmware\": \"/tmp/fw\", "
            "\"xen_platform_pci\"", "b_info.type.hvm.system_firmware", NULL);
    /* Another kind of guest, whose part libxl would take instead. */
    refused("\"arch_arm\"", "\"type.pvh\": {\"pvshim_path\": \"/tmp/s\"}, "
            "\"arch_arm\"", "b_info.type.pvh", NULL);
    refused("\"type\": \"hvm\"", "\"type\": \"pv\"", "c_info.type", NULL);
}

static void test_script(void)
{
    refused("\"bridge\": \"xenbr0\",", "\"bridge\": \"xenbr0\", "
            "\"script\": \"/tmp/evil\",", "nics.0.script to '/tmp/evil'",
            NULL);
    refused("\"readwrite\": 1", "\"readwrite\": 1, \"script\": \"/tmp/b\"",
            "disks.hda.script to '/tmp/b'", NULL);
    refused("\"xenbr0\"", "\"mgmt0\"", "nics.0.bridge to 'mgmt0'",
            "allows only 'xenbr0'");
    refused("\"model\": \"e1000\",", "\"model\": \"e1000\", \"ifname\": "
            "\"eth0\",", "nics.0.ifname", NULL);
}

static void test_foreign_disk(void)
{
    refused("\"hda\"", "\"hdb\"", "disk hdb ('/srv/xenft/kv.img')",
            "not configured on this host");
    refused("/srv/xenft/kv.img", "/dev/sda", "disks.hda.pdev_path to "
            "'/dev/sda'", "allows only '/srv/xenft/kv.img'");
    refused("\"format\": \"raw\"", "\"format\": \"qcow2\"",
            "disks.hda.format", NULL);
    refused("\"readwrite\": 1", "\"readwrite\": 1, \"backend_domname\": "
            "\"drv\"", "disks.hda.backend_domname", NULL);
    refused("\"readwrite\": 1\n        }", "\"readwrite\": 1\n        }, "
            "{\"pdev_path\": \"/dev/sdb\", \"vdev\": \"hdb\"}",
            "disk hdb ('/dev/sdb')", NULL);
    refused("\"pdev_path\": \"/srv/xenft/kv.img\",", "",
            "disks.hda.pdev_path", "this host's sets it to");
    refused("\"nics\": [", "\"nics\": [{\"bridge\": \"xenbr1\"}, ",
            "nics.0.bridge to 'xenbr1'", NULL);
}

static void test_passthrough(void)
{
    refused("\"on_reboot\"", "\"pcidevs\": [{\"bus\": 3, \"dev\": 0}], "
            "\"on_reboot\"", "pcidevs", "does not allow");
    refused("\"on_reboot\"", "\"usbdevs\": [{\"type.hostdev\": "
            "{\"hostbus\": 1, \"hostaddr\": 2}}], \"on_reboot\"", "usbdevs",
            NULL);
    refused("\"on_reboot\"", "\"vtpms\": [{\"backend_domid\": 3}], "
            "\"on_reboot\"", "vtpms", NULL);
    refused("\"on_reboot\"", "\"dtdevs\": [{\"path\": \"/x\"}], "
            "\"on_reboot\"", "dtdevs", NULL);
    refused("\"kernel\"", "\"irqs\": [16], \"kernel\"", "b_info.irqs",
            NULL);
    refused("\"kernel\"", "\"iomem\": [{\"start\": 1, \"number\": 1}], "
            "\"kernel\"", "b_info.iomem", NULL);
    refused("\"xen_platform_pci\"", "\"usbdevice_list\": "
            "[\"host:1234:5678\"], \"xen_platform_pci\"",
            "b_info.type.hvm.usbdevice_list", NULL);
    refused("\"type\": \"hvm\",", "\"type\": \"hvm\", \"passthrough\": "
            "\"sync_pt\",", "c_info.passthrough", NULL);
}

static void test_malformed(void)
{
    char *deep, *s;
    size_t n;

    CU_ASSERT_EQUAL(check(""), -EBADMSG);
    CU_ASSERT_EQUAL(check("[]"), -EBADMSG);
    CU_ASSERT_EQUAL(check("\"hvm\""), -EBADMSG);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "not libxl's JSON"));
    /* Cut short, and two documents. */
    s = strdup(local);
    s[strlen(s) / 2] = '\0';
    CU_ASSERT_EQUAL(check(s), -EBADMSG);
    free(s);
    s = edit(local, "\"on_reboot\": \"restart\"\n}",
             "\"on_reboot\": \"restart\"\n} {}");
    CU_ASSERT_EQUAL(check(s), -EBADMSG);
    free(s);
    /* libxl would read "device\u005fmodel" as device_model. */
    s = edit(local, "\"kernel\"",
             "\"device\\u005fmodel\": \"/tmp/x\", \"kernel\"");
    CU_ASSERT_EQUAL(check(s), -EBADMSG);
    free(s);
    s = edit(local, "\"vdev\"", "\"v\\u0064ev\"");
    CU_ASSERT_EQUAL(check(s), -EBADMSG);
    free(s);
    /* c_info that is not an object. */
    s = edit(local, "\"c_info\": {", "\"c_info\": [], \"x\": {");
    CU_ASSERT_EQUAL(check(s), -EBADMSG);
    free(s);
    /* Nested deeper than the parser allows. */
    deep = malloc(200);
    CU_ASSERT_PTR_NOT_NULL_FATAL(deep);
    n = (size_t)snprintf(deep, 200, "{\"a\": ");
    for (int i = 0; i < 40; i++)
        deep[n++] = '[';
    for (int i = 0; i < 40; i++)
        deep[n++] = ']';
    strcpy(deep + n, "}");
    CU_ASSERT_EQUAL(check(deep), -EBADMSG);
    free(deep);
    /* Longer than a copy's configuration may be. */
    n = XLFT_COPY_CONFIG_MAX + 2;
    s = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    memset(s, ' ', n);
    s[0] = '{';
    s[n - 1] = '}';
    CU_ASSERT_EQUAL(xlft_xen_config_allowed(s, n, local, strlen(local), msg,
                                            sizeof(msg)), -EMSGSIZE);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "bytes"));
    free(s);
    /* This host's own configuration broken: said as such. */
    CU_ASSERT_EQUAL(xlft_xen_config_allowed(local, strlen(local), "{", 1,
                                            msg, sizeof(msg)), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "this host's"));
}

/* A long or unprintable value is shown cut short and printable. */
static void test_message(void)
{
    char big[300], *s;

    memset(big, 'A', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    big[3] = '\\';
    big[4] = 't';
    s = edit(local, "/srv/xenft/kv.bin", big);
    CU_ASSERT_EQUAL(check(s), -EPERM);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "..."));
    CU_ASSERT(strlen(msg) < 300);
    for (const char *p = msg; *p; p++)
        CU_ASSERT(*p >= 0x20 && *p < 0x7f);
    free(s);
    /* So is a member name of the peer's own (fuzz_xencfg found it). */
    s = edit(local, "\"format\"", "\"for\xf8" "at\"");
    CU_ASSERT_EQUAL(check(s), -EPERM);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "disks.hda.for?at"));
    for (const char *p = msg; *p; p++)
        CU_ASSERT(*p >= 0x20 && *p < 0x7f);
    free(s);
}

void register_xen_allow_tests(void)
{
    CU_pSuite s = CU_add_suite("xen secondary: the peer's configuration",
                               NULL, NULL);

    CU_add_test(s, "this host's, with the guest's own identity and memory: "
                "accepted", test_same);
    CU_add_test(s, "device model, its version, user and arguments",
                test_device_model);
    CU_add_test(s, "bootloader and its arguments", test_bootloader);
    CU_add_test(s, "kernel, ramdisk, firmware, another guest type",
                test_kernel);
    CU_add_test(s, "network card and disk scripts, bridge, ifname",
                test_script);
    CU_add_test(s, "disks not configured here", test_foreign_disk);
    CU_add_test(s, "PCI, USB, vTPM, device tree, IRQ, I/O memory "
                "passthrough", test_passthrough);
    CU_add_test(s, "malformed, escaped, too deep, oversized", test_malformed);
    CU_add_test(s, "a refusal names a long value shortly and printably",
                test_message);
}
