// SPDX-License-Identifier: GPL-2.0-only
/*
 * selftest.c - check, before running a guest, the Unicorn behaviour that
 * exact replay rests on: a stop at an exact instruction count that can
 * be resumed without losing or repeating an instruction, RDTSC taken
 * over by the code hook, and HLT seen before it executes.  Another
 * Unicorn build that behaves otherwise is refused here rather than
 * diverging later.
 */
#include <string.h>

#include "ftvm.h"

/*
 *      mov ecx, 1000
 *  1:  inc eax
 *      loop 1b
 *      rdtsc
 *      hlt
 */
static const uint8_t probe[] = {
    0xb9, 0xe8, 0x03, 0x00, 0x00, 0x40, 0xe2, 0xfd, 0x0f, 0x31, 0xf4,
};

#define TSC 0x0000123456789abcull

static uint32_t reg(struct ftvm *vm, int r)
{
    uint32_t v = 0;

    uc_reg_read(vm->uc, r, &v);
    return v;
}

int ftvm_selftest(char *why, size_t len)
{
    struct ftvm vm;
    uint32_t eip = FTVM_LOAD_ADDR;
    const char *bad = NULL;

    if (ftvm_create(&vm, 2)) {
        snprintf(why, len, "self-test: %s", vm.why);
        return -1;
    }
    memcpy(vm.ram + FTVM_LOAD_ADDR, probe, sizeof(probe));
    uc_reg_write(vm.uc, UC_X86_REG_EIP, &eip);
    vm.tsc_fixed = TSC;

    /* mov, then 250 rounds of inc+loop: stopped before the 251st inc. */
    vm.stop_at = 501;
    if (ftvm_execute(&vm) != STEP_GO || vm.count != 501 ||
        reg(&vm, UC_X86_REG_EAX) != 250 || reg(&vm, UC_X86_REG_ECX) != 750 ||
        reg(&vm, UC_X86_REG_EIP) != FTVM_LOAD_ADDR + 5)
        bad = "a stop at an exact instruction count";
    vm.stop_at = UINT64_MAX;
    if (!bad && (ftvm_execute(&vm) != STEP_GO || !vm.halted ||
                 vm.count != 1 + 2000 + 1 + 1 ||
                 reg(&vm, UC_X86_REG_EAX) != (uint32_t)TSC ||
                 reg(&vm, UC_X86_REG_EDX) != (uint32_t)(TSC >> 32) ||
                 reg(&vm, UC_X86_REG_EIP) != FTVM_LOAD_ADDR + sizeof(probe)))
        bad = "resuming after a stop, RDTSC interception or HLT";
    if (bad)
        snprintf(why, len, "self-test failed: this Unicorn does not give "
                 "%s as ftvm needs (count %llu, eax 0x%x, eip 0x%x)%s%s",
                 bad, (unsigned long long)vm.count,
                 reg(&vm, UC_X86_REG_EAX), reg(&vm, UC_X86_REG_EIP),
                 vm.status ? ": " : "", vm.status ? vm.why : "");
    ftvm_destroy(&vm);
    return bad ? -1 : 0;
}
