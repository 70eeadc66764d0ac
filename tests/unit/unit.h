/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unit.h - CUnit suites of the xenft unit tests and their helpers.
 */
#ifndef XENFT_UNIT_H
#define XENFT_UNIT_H

#include <stdint.h>
#include <stdlib.h>

#include <CUnit/CUnit.h>

#include "ft_log.h"
#include "ft_ring.h"
#include "records.h"

void register_log_tests(void);
void register_ring_tests(void);
void register_stress_tests(void);
void register_replay_tests(void);
void register_logfile_tests(void);
void register_pic_tests(void);
void register_virtio_tests(void);
void register_arbiter_tests(void);
void register_gate_tests(void);
void register_liveness_tests(void);
void register_frame_tests(void);
void register_crypto_tests(void);
void register_arbiter_etcd_tests(void);

/* Two processes claim 1000 generations of 'pair' at once (CUnit asserts). */
void arbiter_race(const char *spec, const char *pair);
void register_netgate_tests(void);
void register_copy_tests(void);
void register_golden_tests(void);
void register_layout_tests(void);
void register_ftvmctl_tests(void);
void register_xen_allow_tests(void);
void register_xen_local_tests(void);
void register_sync_hdr_tests(void);
void register_meter_tests(void);
void register_ack_wake_tests(void);
void register_xen_cfg_file_tests(void);
void register_ftdm_state_tests(void);

/* A ring of 'data' bytes in malloc'd memory, owned by 'owner'. */
static inline void *ring_mem_new(uint32_t data, uint32_t *mem_size)
{
    *mem_size = FT_RING_HDR_SIZE + data;
    return calloc(1, *mem_size);
}

#define ASSERT_RC(expr, want) CU_ASSERT_EQUAL((expr), (want))

#endif /* XENFT_UNIT_H */
