/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * setup.S - the first 1 KiB of every guest image: a Linux boot protocol
 * header (2.03) and the real-mode setup code it names, which hands over
 * to the guest as a multiboot loader would.
 *
 * Why: Xen's device model (QEMU) boots an HVM guest's kernel= through
 * an option ROM.  For a multiboot image it picks multiboot_dma.bin
 * (QEMU 7.2 asks the machine class, not the device), which needs the
 * fw_cfg DMA interface that QEMU leaves out under Xen, and waits for it
 * forever.  For a Linux image it picks linuxboot.bin, which reads fw_cfg
 * through I/O ports and works.  So the image is also a Linux kernel:
 * "loaded high" puts what follows this setup (the multiboot image) at
 * 1 MiB, this setup at some real-mode address, and the command line
 * where cmd_line_ptr says; the setup then builds a multiboot information
 * structure, enters protected mode, clears the bss and jumps to the
 * multiboot entry with EAX = 0x2BADB002 and EBX pointing at that
 * structure.  Multiboot loaders (ftvm) skip these 1 KiB: the multiboot
 * header follows, and its addresses say where the image starts in the
 * file.
 *
 * The section is linked at address 0: offsets here are relative to the
 * setup's real-mode segment, which linuxboot.bin puts in DS; linear
 * addresses are computed from DS at run time.
 */
#define SETUP_SECTS     1               /* 512-byte sectors after the first */
#define LOADED_HIGH     0x01
#define MB_BOOT_MAGIC   0x2BADB002
#define MB_INFO_CMDLINE (1 << 2)

    .section .setup, "ax"
    .code16
setup:
    .org 0x1f1
    .byte SETUP_SECTS                   /* setup_sects */
    .word 0                             /* root_flags */
    .long 0                             /* syssize */
    .word 0                             /* ram_size */
    .word 0                             /* vid_mode */
    .word 0                             /* root_dev */
    .word 0xaa55                        /* boot_flag */
    .org 0x200
    jmp setup_code                      /* entered here, CS:IP = seg+0x20:0 */
    .ascii "HdrS"
    .word 0x0203                        /* boot protocol version */
    .long 0                             /* realmode_swtch */
    .word 0                             /* start_sys_seg */
    .word 0                             /* kernel_version */
    .byte 0                             /* type_of_loader */
    .byte LOADED_HIGH                   /* loadflags */
    .word 0                             /* setup_move_size */
    .long 0x100000                      /* code32_start */
    .long 0                             /* ramdisk_image */
    .long 0                             /* ramdisk_size */
    .long 0                             /* bootsect_kludge */
    .word 0                             /* heap_end_ptr */
    .byte 0                             /* ext_loader_ver */
    .byte 0                             /* ext_loader_type */
cmd_line_ptr:
    .long 0                             /* set by the boot loader */
    .long 0x37ffffff                    /* initrd_addr_max (a loader */
                                        /* writes it below 2.03) */

setup_code:
    cli
    cld
    xor %eax, %eax
    mov %ds, %ax
    shl $4, %eax                        /* linear address of the setup */
    add %eax, gdt_desc + 2
    add %eax, prot_jump
    mov %eax, %ebx                      /* not LEA: the sum is past the */
    add $mbi, %ebx                      /* 64 KiB limit of real mode */
    mov cmd_line_ptr, %ecx
    mov %ecx, mbi + 16
    test %ecx, %ecx
    jz 1f
    orl $MB_INFO_CMDLINE, mbi
1:  lgdtl gdt_desc
    mov %cr0, %eax
    or $1, %eax
    mov %eax, %cr0
    ljmpl *prot_jump

    .code32
prot:
    mov $0x10, %ax
    mov %ax, %ds
    mov %ax, %es
    mov %ax, %fs
    mov %ax, %gs
    mov %ax, %ss
    mov $__load_end, %edi               /* the bss, which a multiboot */
    mov $__bss_end, %ecx                /* loader clears and a Linux */
    sub %edi, %ecx                      /* one leaves as it was */
    xor %eax, %eax
    rep stosb
    mov $MB_BOOT_MAGIC, %eax
    mov $_start, %ecx
    jmp *%ecx

    .align 4
prot_jump:
    .long prot                          /* made linear at run time */
    .word 0x08
    .align 4
mbi:                                    /* flags, mem_lower, mem_upper, */
    .long 0, 0, 0, 0, 0                 /* boot_device, cmdline */
    .align 8
gdt:
    .quad 0
    .quad 0x00cf9a000000ffff            /* 0x08: code, flat, ring 0 */
    .quad 0x00cf92000000ffff            /* 0x10: data, flat, ring 0 */
gdt_desc:
    .word gdt_desc - gdt - 1
    .long gdt                           /* made linear at run time */

    .section .note.GNU-stack, "", @progbits
