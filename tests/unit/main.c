// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - runs every unit suite, or the one named as its argument;
 * the exit status is non-zero if any test failed, so `make check` stops
 * on it.
 */
#include <stdio.h>

#include <CUnit/Basic.h>

#include "unit.h"

int main(int argc, char **argv)
{
    unsigned int failed;
    CU_pSuite one = NULL;

    if (CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "unit tests: cannot initialise CUnit\n");
        return 2;
    }
    register_log_tests();
    register_ring_tests();
    register_replay_tests();
    register_logfile_tests();
    register_pic_tests();
    register_virtio_tests();
    register_arbiter_tests();
    register_arbiter_etcd_tests();
    register_gate_tests();
    register_liveness_tests();
    register_stress_tests();
    register_frame_tests();
    register_crypto_tests();
    register_netgate_tests();
    register_copy_tests();
    register_golden_tests();
    register_layout_tests();
    register_ftvmctl_tests();
    register_xen_allow_tests();
    register_xen_local_tests();
    register_sync_hdr_tests();
    register_meter_tests();
    register_ack_wake_tests();
    register_xen_cfg_file_tests();
    register_ftdm_state_tests();

    if (argc > 1 && !(one = CU_get_suite(argv[1]))) {
        fprintf(stderr, "unit tests: no suite named '%s'\n", argv[1]);
        CU_cleanup_registry();
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    if (one)
        CU_basic_run_suite(one);
    else
        CU_basic_run_tests();
    failed = CU_get_number_of_tests_failed() + CU_get_number_of_failures();
    if (CU_get_error() != CUE_SUCCESS)
        failed++;
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
