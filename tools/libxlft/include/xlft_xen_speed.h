/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_xen_speed.h - a Xen guest slowed down while its secondary lags:
 * a cap on its vCPU's share of a physical CPU, through the scheduler
 * (credit or credit2; others have no cap).
 */
#ifndef XLFT_XEN_SPEED_H
#define XLFT_XEN_SPEED_H

#include <stddef.h>
#include <stdint.h>

/*
 * Let 'domid' run at most 'pct' percent (1 to 100) of one physical CPU;
 * 100 lifts the cap.  0 or -errno with 'err' naming the domain and what
 * refused (-EOPNOTSUPP: its scheduler has no cap).
 */
int xlft_xen_set_speed(uint32_t domid, uint32_t pct, char *err,
                       size_t errlen);

#endif /* XLFT_XEN_SPEED_H */
