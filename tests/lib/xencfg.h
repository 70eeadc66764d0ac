/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xencfg.h - a Xen guest's libxl configuration as libxl writes it (the
 * shape of xl create --dryrun and of libxl_domain_config_to_json), for
 * the tests and the fuzz seeds of xlft_xen_config_allowed: a key-value
 * guest with a disk, a network card on a bridge and a serial file.
 */
#ifndef XENFT_TEST_XENCFG_H
#define XENFT_TEST_XENCFG_H

#define XENCFG_LOCAL \
    "{\n" \
    "    \"c_info\": {\n" \
    "        \"type\": \"hvm\",\n" \
    "        \"hap\": \"False\",\n" \
    "        \"name\": \"kv\"\n" \
    "    },\n" \
    "    \"b_info\": {\n" \
    "        \"max_vcpus\": 1,\n" \
    "        \"max_memkb\": 32768,\n" \
    "        \"target_memkb\": 32768,\n" \
    "        \"tsc_mode\": \"always_emulate\",\n" \
    "        \"device_model_version\": \"qemu_xen\",\n" \
    "        \"kernel\": \"/srv/xenft/kv.bin\",\n" \
    "        \"cmdline\": \"hz=100\",\n" \
    "        \"type.hvm\": {\n" \
    "            \"viridian\": \"False\",\n" \
    "            \"vga\": {\n" \
    "                \"kind\": \"none\"\n" \
    "            },\n" \
    "            \"vnc\": {\n" \
    "                \"enable\": \"False\"\n" \
    "            },\n" \
    "            \"serial\": \"file:/var/log/xenft/kv.console\",\n" \
    "            \"xen_platform_pci\": \"False\"\n" \
    "        },\n" \
    "        \"arch_arm\": {\n" \
    "        },\n" \
    "        \"arch_x86\": {\n" \
    "        }\n" \
    "    },\n" \
    "    \"disks\": [\n" \
    "        {\n" \
    "            \"pdev_path\": \"/srv/xenft/kv.img\",\n" \
    "            \"vdev\": \"hda\",\n" \
    "            \"format\": \"raw\",\n" \
    "            \"readwrite\": 1\n" \
    "        }\n" \
    "    ],\n" \
    "    \"nics\": [\n" \
    "        {\n" \
    "            \"model\": \"e1000\",\n" \
    "            \"bridge\": \"xenbr0\",\n" \
    "            \"nictype\": \"vif_ioemu\"\n" \
    "        }\n" \
    "    ],\n" \
    "    \"on_reboot\": \"restart\"\n" \
    "}\n"

#endif /* XENFT_TEST_XENCFG_H */
