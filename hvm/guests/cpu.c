// SPDX-License-Identifier: GPL-2.0-only
/*
 * cpu.c - a CPU- and memory-bound guest: fills 4 MiB from a seeded
 * generator and checksums it, round after round, with the timer
 * interrupting it anywhere.
 *   seed=N     generator seed (default 1)
 *   hz=N       timer rate (default 100)
 *   crash=N    execute an invalid instruction after N rounds (tests)
 *
 * The checksum runs with interrupts saved and disabled twice over, as
 * nested kernel code does: the inner restore leaves them disabled, so a
 * tick that came meanwhile must wait for the outer one.
 */
#include "rt/rt.h"

#define WORDS (1u << 20)

static uint32_t data[WORDS];
static volatile uint32_t ticks;

static void on_tick(struct rt_frame *f)
{
    (void)f;
    ticks++;
}

void guest_main(const char *cmdline)
{
    uint32_t seed = arg_u32(cmdline, "seed", 1);
    uint32_t crash = arg_u32(cmdline, "crash", 0);
    uint32_t x = seed * 2654435761u + 1;

    irq_set(IRQ_TIMER, on_tick);
    pit_set_hz(arg_u32(cmdline, "hz", 100));
    sti();
    puts_uart("cpu: seed ");
    put_dec(seed);
    puts_uart("\n");
    for (uint32_t round = 1;; round++) {
        uint32_t a = 1, b = 0;

        for (uint32_t i = 0; i < WORDS; i++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            data[i] = x;
        }
        uint32_t outer = irq_save(), inner = irq_save();

        for (uint32_t i = 0; i < WORDS; i++) {
            a += data[i ^ (b & 7)];
            b += a;
        }
        irq_restore(inner);
        for (uint32_t i = 0; i < 1000; i++)
            b ^= i;
        irq_restore(outer);
        if (crash && round >= crash)
            __asm__ volatile("ud2");
        puts_uart("cpu: round ");
        put_dec(round);
        puts_uart(" sum ");
        put_hex(a ^ b);
        puts_uart(" ticks ");
        put_dec(ticks);
        puts_uart("\n");
    }
}
