// SPDX-License-Identifier: GPL-2.0-only
/*
 * loader.c - load a guest image the way a multiboot loader does: find
 * the multiboot header in the first 8 KiB, copy the image to the address
 * it asks for, clear its bss, and enter it with EAX = 0x2BADB002 and EBX
 * pointing at a multiboot information structure with the command line.
 * Only images that give their addresses in the header (flag 16, the
 * "a.out kludge") are accepted: what xenft's guests are.  As the
 * multiboot specification says, the image starts in the file
 * header_addr - load_addr bytes before the header, which need not be the
 * file's start (xenft's guests begin with 1 KiB of Linux boot setup).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftvm.h"

#define MB_MAGIC        0x1BADB002u
#define MB_BOOT_MAGIC   0x2BADB002u
#define MB_F_ADDRS      (1u << 16)
#define MB_INFO_CMDLINE (1u << 2)
#define MB_SEARCH       8192u
#define CMDLINE_MAX     1024u

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

int ftvm_load(struct ftvm *vm, const char *path, const char *cmdline)
{
    FILE *f = fopen(path, "rb");
    uint8_t *img = NULL;
    long size;
    uint32_t off, hdr, load, load_end, bss_end, entry, start;

    if (!f) {
        snprintf(vm->why, sizeof(vm->why), "cannot open guest %s: %s",
                 path, strerror(errno));
        return -errno;
    }
    if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) || size > (long)vm->ram_size ||
        !(img = malloc((size_t)size + 1)) ||
        fread(img, 1, (size_t)size, f) != (size_t)size) {
        snprintf(vm->why, sizeof(vm->why), "cannot read guest %s", path);
        fclose(f);
        free(img);
        return -EIO;
    }
    fclose(f);

    for (off = 0; off + 32 <= (uint32_t)size && off < MB_SEARCH; off += 4)
        if (le32(img + off) == MB_MAGIC &&
            le32(img + off) + le32(img + off + 4) + le32(img + off + 8) == 0)
            break;
    if (off + 32 > (uint32_t)size || off >= MB_SEARCH) {
        snprintf(vm->why, sizeof(vm->why), "%s: no multiboot header in its "
                 "first 8 KiB", path);
        free(img);
        return -EINVAL;
    }
    hdr = le32(img + off + 12);
    load = le32(img + off + 16);
    load_end = le32(img + off + 20);
    bss_end = le32(img + off + 24);
    entry = le32(img + off + 28);
    start = off - (hdr - load);
    if (!(le32(img + off + 4) & MB_F_ADDRS) || hdr < load ||
        hdr - load > off || load < FTVM_LOAD_ADDR || load_end < load ||
        load_end - load > (uint32_t)size - start || bss_end < load_end ||
        bss_end > vm->ram_size || entry < load || entry >= load_end) {
        snprintf(vm->why, sizeof(vm->why), "%s: its multiboot header does "
                 "not describe an image ftvm can load (flag 16, addresses "
                 "above 1 MiB that fit in %u MiB of RAM)", path,
                 vm->ram_size >> 20);
        free(img);
        return -EINVAL;
    }
    memcpy(vm->ram + load, img + start, load_end - load);
    memset(vm->ram + load_end, 0, bss_end - load_end);
    free(img);

    /* Multiboot information: flags, then the command line after it. */
    size_t n = strlen(cmdline);
    if (n >= CMDLINE_MAX) {
        snprintf(vm->why, sizeof(vm->why), "guest command line longer than "
                 "%u bytes", CMDLINE_MAX - 1);
        return -EINVAL;
    }
    uint32_t info[5] = { MB_INFO_CMDLINE, 0, 0, 0, FTVM_MBI_ADDR + 64 };
    memcpy(vm->ram + FTVM_MBI_ADDR, info, sizeof(info));
    memcpy(vm->ram + FTVM_MBI_ADDR + 64, cmdline, n + 1);

    uint32_t regs[3] = { MB_BOOT_MAGIC, FTVM_MBI_ADDR, entry };
    uc_reg_write(vm->uc, UC_X86_REG_EAX, &regs[0]);
    uc_reg_write(vm->uc, UC_X86_REG_EBX, &regs[1]);
    uc_reg_write(vm->uc, UC_X86_REG_EIP, &regs[2]);
    return 0;
}
