// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_pic.c - ftvm's i8259 pair: vectors, priorities, EOI, and the
 * slave's second request surviving the first one's acknowledge.
 */
#include <string.h>

#include "ftvm.h"
#include "unit.h"

/* Both chips initialised as a PC BIOS or kernel does, all unmasked. */
static void boot(struct ftvm *vm)
{
    memset(vm, 0, sizeof(*vm));
    pic_reset(&vm->pic[0]);
    pic_reset(&vm->pic[1]);
    pic_write(&vm->pic[0], 0x20, 0x11);
    pic_write(&vm->pic[0], 0x21, 0x20);
    pic_write(&vm->pic[0], 0x21, 0x04);
    pic_write(&vm->pic[0], 0x21, 0x01);
    pic_write(&vm->pic[1], 0xa0, 0x11);
    pic_write(&vm->pic[1], 0xa1, 0x28);
    pic_write(&vm->pic[1], 0xa1, 0x02);
    pic_write(&vm->pic[1], 0xa1, 0x01);
    pic_write(&vm->pic[0], 0x21, 0x00);
    pic_write(&vm->pic[1], 0xa1, 0x00);
}

static void test_priorities(void)
{
    static struct ftvm vm;

    boot(&vm);
    CU_ASSERT_EQUAL(pic_pending(&vm), -1);
    pic_raise(&vm, 3);
    pic_raise(&vm, 0);
    CU_ASSERT_EQUAL(pic_ack(&vm), 0x20);      /* IRQ 0 first */
    /* IRQ 3 waits while IRQ 0 is in service, then comes. */
    CU_ASSERT_EQUAL(pic_pending(&vm), -1);
    pic_write(&vm.pic[0], 0x20, 0x20);
    CU_ASSERT_EQUAL(pic_ack(&vm), 0x23);
    pic_write(&vm.pic[0], 0x20, 0x20);
    CU_ASSERT_EQUAL(pic_pending(&vm), -1);
    /* A masked request waits for its unmasking. */
    pic_write(&vm.pic[0], 0x21, 0x01);
    pic_raise(&vm, 0);
    CU_ASSERT_EQUAL(pic_pending(&vm), -1);
    pic_write(&vm.pic[0], 0x21, 0x00);
    CU_ASSERT_EQUAL(pic_pending(&vm), 0x20);
}

static void test_slave_two_requests(void)
{
    static struct ftvm vm;

    boot(&vm);
    pic_raise(&vm, 10);
    pic_raise(&vm, 14);
    CU_ASSERT_EQUAL(pic_ack(&vm), 0x2a);
    pic_write(&vm.pic[1], 0xa0, 0x20);
    pic_write(&vm.pic[0], 0x20, 0x20);
    /* The second slave request is still seen through the cascade. */
    CU_ASSERT_EQUAL(pic_ack(&vm), 0x2e);
    pic_write(&vm.pic[1], 0xa0, 0x20);
    pic_write(&vm.pic[0], 0x20, 0x20);
    CU_ASSERT_EQUAL(pic_pending(&vm), -1);
    /* The secondary's way in: a replayed vector sets the same ISR bits. */
    pic_ack_vector(&vm, 0x2e);
    CU_ASSERT_EQUAL(vm.pic[1].isr, 1u << 6);
    CU_ASSERT_EQUAL(vm.pic[0].isr, 1u << 2);
    /* OCW3 reads ISR instead of IRR. */
    pic_write(&vm.pic[1], 0xa0, 0x0b);
    CU_ASSERT_EQUAL(pic_read(&vm.pic[1], 0xa0), 1u << 6);
}

void register_pic_tests(void)
{
    CU_pSuite s = CU_add_suite("ftvm interrupt controllers", NULL, NULL);

    CU_add_test(s, "priorities, EOI, masks", test_priorities);
    CU_add_test(s, "two slave requests, replayed vectors",
                test_slave_two_requests);
}
