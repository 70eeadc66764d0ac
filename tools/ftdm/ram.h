/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ram.h - the guest's RAM as ftdm's device core sees it: read through
 * read-only mappings made for each access (nothing kept, so nothing goes
 * stale when the guest gives RAM up), written only through Xen's FT DMA
 * op (XEN_DMOP_ft_write), which logs the bytes while the guest is
 * recorded, so that no write reaches guest memory behind the log.
 */
#ifndef FTDM_RAM_H
#define FTDM_RAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ftdm_ram;

int ftdm_ram_open(struct ftdm_ram **r, uint32_t domid, char *err,
                  size_t errlen);
void ftdm_ram_close(struct ftdm_ram *r);

/* 0, or negative when a byte of [gpa, gpa + len) is not RAM. */
int ftdm_ram_read(struct ftdm_ram *r, uint64_t gpa, void *buf, uint32_t len);
bool ftdm_ram_ok(struct ftdm_ram *r, uint64_t gpa, uint32_t len);
/* 0, or negative with 'err' saying why (the record ring full, say). */
int ftdm_ram_write(struct ftdm_ram *r, uint64_t gpa, const void *buf,
                   uint32_t len, char *err, size_t errlen);

#endif /* FTDM_RAM_H */
