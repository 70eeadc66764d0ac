/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * start.S - entry of every xenft guest: a multiboot header (a.out kludge,
 * which ftvm loads; on Xen setup.S enters here as a multiboot loader would),
 * a flat GDT of its own, a stack, an IDT whose 256 gates all lead to a
 * common stub, then rt_main().
 */
#define MB_MAGIC    0x1BADB002
#define MB_FLAGS    0x00010000      /* addresses below are valid */

    .section .multiboot, "a"
    .align 4
mb_header:
    .long MB_MAGIC
    .long MB_FLAGS
    .long -(MB_MAGIC + MB_FLAGS)
    .long mb_header                 /* header_addr */
    .long __image_start             /* load_addr */
    .long __load_end                /* load_end_addr */
    .long __bss_end                 /* bss_end_addr */
    .long _start                    /* entry_addr */

    .text
    .code32
    .globl _start
_start:
    cli
    lgdt gdt_desc
    ljmp $0x08, $1f
1:  mov $0x10, %cx
    mov %cx, %ds
    mov %cx, %es
    mov %cx, %fs
    mov %cx, %gs
    mov %cx, %ss
    mov $__stack_top, %esp
    push %ebx                       /* multiboot info */
    push %eax                       /* multiboot magic */
    call rt_setup_idt
    call rt_main
2:  cli
    hlt
    jmp 2b

/* One stub per vector, 16 bytes apart: push the number, join. */
    .macro vec n
    .align 16
    push $0                         /* no error code: keep frames alike */
    push $\n
    jmp isr_common
    .endm

    .align 16
    .globl rt_vectors
rt_vectors:
    .set i, 0
    .rept 256
    vec i
    .set i, i + 1
    .endr

isr_common:
    pusha
    push %esp                       /* struct rt_frame * */
    call rt_interrupt
    add $4, %esp
    popa
    add $8, %esp                    /* vector, error code */
    iret

    .data
    .align 8
gdt:
    .quad 0
    .quad 0x00cf9a000000ffff        /* 0x08: code, flat, ring 0 */
    .quad 0x00cf92000000ffff        /* 0x10: data, flat, ring 0 */
gdt_desc:
    .word gdt_desc - gdt - 1
    .long gdt

    .section .note.GNU-stack, "", @progbits
