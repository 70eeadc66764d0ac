/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ftvm.h - the software HVM: one x86 vCPU on Unicorn, PC devices, and
 * hvm/core's recorder and replayer called where the Xen hooks call them.
 * Internal to hvm/ftvm.
 */
#ifndef FTVM_H
#define FTVM_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <unicorn/unicorn.h>

#include "ft_recorder.h"
#include "ft_replayer.h"
#include "ft_ring.h"
#include "ftvm_devices.h"
#include "vio.h"
#include "xlft_ftvm_ctl.h"
#include "xlft_gate.h"
#include "xlft_logfile.h"

/* Exit statuses of ftvm (and exit_status in a control reply). */
#define FTVM_EXIT_OK        0   /* done, or the guest powered off */
#define FTVM_EXIT_ERROR     1
#define FTVM_EXIT_USAGE     2
#define FTVM_EXIT_DIVERGED  3
#define FTVM_EXIT_BADLOG    4
#define FTVM_EXIT_HALTED    XLFT_FTVM_EXIT_HALTED   /* serve: HALT */
#define FTVM_EXIT_HLT_CLI   6   /* the guest halted, interrupts disabled */

/* How a guest stopped by itself, for good (not a failure of ftvm's). */
enum ftvm_end { FTVM_END_NONE, FTVM_END_POWEROFF, FTVM_END_HLT_CLI };

/*
 * What ftvm's points count: the instructions its code hook sees, on its
 * own software CPU (FT_CPU_FTVM), whose counts no other CPU shares.
 */
#define FTVM_COUNTER        FT_COUNTER_STEPS

#define FTVM_LOAD_ADDR      0x100000u
#define FTVM_GDT_ADDR       0x500u      /* boot GDT, below the image */
#define FTVM_MBI_ADDR       0x1000u     /* multiboot info and command line */

enum ftvm_mode { FTVM_FREE, FTVM_RECORD, FTVM_REPLAY };

/* i8259A, one chip; the PC has a master and a slave on its IRQ 2. */
struct pic {
    uint8_t irr, isr, imr;
    uint8_t base;               /* vector of IRQ 0 (ICW2) */
    uint8_t icw_step;           /* 0: ready, 2..4: expecting ICW2..4 */
    bool icw4_needed;
    bool read_isr;              /* OCW3: port reads return ISR, not IRR */
};

/* i8254 channel 0 (the others are accepted and ignored). */
struct pit {
    uint16_t reload;            /* divisor, 0 means 65536 */
    uint8_t mode, access;       /* from the control word */
    bool write_hi, read_hi;     /* lo/hi byte toggles */
    bool latched;
    uint16_t latch;
    bool armed;                 /* a divisor has been written */
};

/* Local APIC: what a guest needs to take and acknowledge MSI vectors. */
struct lapic {
    uint32_t irr[8], isr[8];    /* a bit per vector */
    uint32_t tpr, svr;
};

/* The disk's host side (blk.c): a file behind the virtio-blk function. */
#define BLK_QUEUE       256

struct blk_done {
    struct vio_blk_req req;     /* as taken (its data pointer unused) */
    uint32_t status;
    uint8_t *data;              /* IN: what was read */
};

struct disk {
    int fd;                     /* host file: primary only, -1 if none */
    uint64_t sectors;
    struct blk_done done[BLK_QUEUE];    /* primary: done, not delivered */
    unsigned int pending;
};

/* The network's host side (net.c): a tap device or a UDP socket. */
#define NIC_RECENT      1024
struct nic {
    int fd;                     /* host side: primary only, -1 if none */
    bool tap;                   /* fd is a tap device, not a UDP socket */
    struct sockaddr_in peer;
    void *recent[NIC_RECENT];   /* secondary: frames sent lately */
    unsigned int nrecent;
    uint32_t recent_bytes;
};

/* 16550A, transmit only. */
struct uart {
    uint8_t ier, lcr, mcr, scr, dll, dlm;
};

struct ftvm {
    uc_engine *uc;
    uint8_t *ram;
    uint32_t ram_size;
    enum ftvm_mode mode;

    /* Progress, as the code hook sees it. */
    uint64_t count;             /* instructions retired */
    uint64_t stop_at;           /* stop before retiring this one */
    uint64_t cur_count;         /* count before the current instruction */
    uint32_t cur_eip;           /* the current instruction */
    uint8_t last_op;            /* first byte of the last one retired */
    uint8_t prev_op;            /* and of the one before */
    bool watch_if;              /* stop after STI/POPF/IRET/POP SS */
    bool halt_hit;              /* the hook stopped at a HLT */
    bool halted;
    int kick;                   /* stop the engine: timer, devices (on
                                   the primary only), signals, control
                                   requests and the guest's end */
    int stop_requested;         /* SIGINT/SIGTERM (atomic) */

    /* Devices. */
    struct pic pic[2];
    struct pit pit;
    struct uart uart;
    struct lapic lapic;
    struct vio_bus *pci;        /* virtio-net and virtio-blk (devices.c) */
    bool in_completion;         /* a device writes guest RAM as input */
    struct devstate *dev;       /* devstate.c */
    struct disk disk;
    struct nic nic;
    FILE *console;              /* guest serial output, or NULL */
    uint64_t output_id;         /* outputs produced so far */
    uint64_t tsc_base;          /* host TSC when the guest started */
    uint64_t tsc_fixed;         /* self-test: every TSC read gives this */

    /* Host timer (record and free modes). */
    uint64_t timer_period;      /* ns, 0 until the PIT is programmed */
    uint64_t ticks_due;         /* written by the timer thread */
    uint64_t ticks_done;
    int tick_fd;                /* eventfd: a tick is due */

    /* Record/replay. */
    void *ring_mem;
    struct ft_ring ring;        /* hypervisor side */
    struct ft_ring peer;        /* "dom0" side: log file in or out */
    struct ft_recorder rec;
    struct ft_replayer rp;
    struct xlft_logw *logw;
    struct xlft_logr *logr;
    const uint8_t *feed;        /* replay: the block being fed */
    size_t feed_len, feed_off;
    bool log_ended;             /* replay: the end marker was read */

    /* Attached (`ftvm serve`): the ring is shared with ftd. */
    bool attached;
    uint32_t ring_size;         /* header page and data, bytes */
    int up_fd, down_fd;         /* eventfds: to ftd, from ftd */
    int ctl_fd;                 /* eventfd: a control request waits */
    struct ftvm_ctl *ctl;       /* control.c */
    struct xlft_gate *gate;     /* output.c: recording for ftd only */
    uint64_t release_at;        /* the record whose ACK lets an output
                                   out (UINT64_MAX: none held) */
    bool paused;
    bool ram_loaded;            /* a guest is loaded or restored */
    bool stop;                  /* STOP done: leave the serve loop */
    bool mute;                  /* HALT or a signal: no output leaves */
    bool went_live;             /* a secondary that left replay */
    bool devices_going_live;    /* theirs is still to do (run.c) */
    uint32_t speed_pct;         /* THROTTLE: percent of full speed */
    uint64_t rest_owed;         /* ns the throttled vCPU still owes */
    uint64_t tsc_last;          /* the TSC the guest saw last */

    uint64_t sync_ns;           /* record: a state hash this often */
    uint64_t insn_cap;          /* replay: refuse to run further (fuzzing) */
    uint64_t next_sync;
    uint64_t sync_count;        /* where the last one was: a halted guest
                                   is not hashed again and again */

    /* Why the run stopped, once it has. */
    int status;                 /* FTVM_EXIT_* of a failure, else 0 */
    enum ftvm_end end;          /* the guest's own end, if it has one */
    bool log_closed;            /* serve: the log ended with the guest */
    char why[512];              /* the failure, or the guest's end */
};

/* A guest word, as devices read their rings (0 outside RAM). */
static inline uint32_t ftvm_mem32(const struct ftvm *vm, uint32_t gpa)
{
    uint32_t v = 0;

    if (gpa <= vm->ram_size - 4)
        memcpy(&v, vm->ram + gpa, 4);
    return v;
}

/* vcpu.c */
enum step { STEP_GO, STEP_DONE, STEP_FAIL };

int ftvm_create(struct ftvm *vm, uint32_t ram_mib);
void ftvm_destroy(struct ftvm *vm);
enum step ftvm_execute(struct ftvm *vm);
uint32_t ftvm_reg(struct ftvm *vm, int r);
bool ftvm_in_shadow(const struct ftvm *vm);
bool ftvm_can_take(struct ftvm *vm);
int ftvm_deliver(struct ftvm *vm, uint8_t vector);
void ftvm_fail(struct ftvm *vm, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ftvm_guest_end(struct ftvm *vm, enum ftvm_end end);
int ftvm_end_status(const struct ftvm *vm);
struct ft_point ftvm_point(struct ftvm *vm);
bool ftvm_input(struct ftvm *vm, struct ft_log_rec *r);
int ftvm_dma_in(struct ftvm *vm, uint32_t gpa, const void *data,
                uint32_t len);
uint64_t ftvm_state_hash(struct ftvm *vm);
uint64_t ftvm_guest_tsc(const struct ftvm *vm);

/* snapshot.c */
int ftvm_snapshot_save(struct ftvm *vm, const char *path);
int ftvm_snapshot_restore(struct ftvm *vm, const char *path);
int ftvm_snapshot_save_fd(struct ftvm *vm, int fd, const char *name);
int ftvm_snapshot_restore_fd(struct ftvm *vm, int fd, const char *name);

/* run.c */
int ftvm_run(struct ftvm *vm, uint64_t insns, uint64_t millis);
int ftvm_serve(struct ftvm *vm);

/* loader.c */
int ftvm_load(struct ftvm *vm, const char *path, const char *cmdline);

/* io.c: port I/O of the guest, and the devices behind it */
void ftvm_io_init(struct ftvm *vm);
uint32_t ftvm_io_read(struct ftvm *vm, uint16_t port, int size);
void ftvm_io_write(struct ftvm *vm, uint16_t port, int size, uint32_t val);

/* pic.c */
void pic_reset(struct pic *p);
uint8_t pic_read(struct pic *p, int port);
void pic_write(struct pic *p, int port, uint8_t val);
void pic_raise(struct ftvm *vm, unsigned int irq);
int pic_pending(struct ftvm *vm);
uint8_t pic_ack(struct ftvm *vm);
void pic_ack_vector(struct ftvm *vm, uint8_t vector);

/* pit.c */
void pit_reset(struct pit *p);
uint8_t pit_read(struct ftvm *vm, int port);
void pit_write(struct ftvm *vm, int port, uint8_t val);
uint64_t pit_period_ns(const struct pit *p);

/* output.c: what leaves for the outside world */
enum ftvm_out { FTVM_OUT_CONSOLE = 1, FTVM_OUT_NET, FTVM_OUT_DISK };
void ftvm_output(struct ftvm *vm, enum ftvm_out kind, uint64_t id,
                 const void *data, size_t len);
int ftvm_gate_start(struct ftvm *vm);
void ftvm_gate_end(struct ftvm *vm);
size_t ftvm_gate_discard(struct ftvm *vm, size_t *bytes);
void ftvm_gate_pump(struct ftvm *vm);

/* lapic.c */
void lapic_reset(struct lapic *l);
uint32_t lapic_read(struct ftvm *vm, uint32_t off);
void lapic_write(struct ftvm *vm, uint32_t off, uint32_t val);
void lapic_raise(struct ftvm *vm, uint8_t vector);
void lapic_drop(struct ftvm *vm, uint8_t vector);
int lapic_pending(struct ftvm *vm);
void lapic_ack_vector(struct ftvm *vm, uint8_t vector);

/* irq.c: the PICs and the local APIC, as the CPU sees them */
bool ftvm_pic_vector(const struct ftvm *vm, uint8_t vector);
int ftvm_irq_pending(struct ftvm *vm);
void ftvm_irq_ack(struct ftvm *vm, uint8_t vector);
/* Whose the vector is: FT_INTR_PIC or FT_INTR_LAPIC, as the log says. */
unsigned int ftvm_irq_src(const struct ftvm *vm, uint8_t vector);

/* devices.c: the PCI bus and the MMIO behind it */
extern const uint8_t ftvm_mac[6];       /* the guest's NIC */
int ftvm_devices_init(struct ftvm *vm);
void ftvm_devices_free(struct ftvm *vm);
uint64_t ftvm_mmio_read(struct ftvm *vm, uint64_t gpa, unsigned int size);
void ftvm_mmio_write(struct ftvm *vm, uint64_t gpa, unsigned int size,
                     uint64_t val);
int ftvm_devices_complete(struct ftvm *vm);
void ftvm_devices_go_live(struct ftvm *vm);

/* devstate.c: the devices' fields in the log */
void ftvm_devstate_reset(struct ftvm *vm);
void ftvm_devstate_free(struct ftvm *vm);
int ftvm_devstate_record(struct ftvm *vm);
int ftvm_devstate_put(struct ftvm *vm, uint64_t off, const uint8_t *data,
                      uint32_t len);
int ftvm_devstate_check(struct ftvm *vm, uint32_t len);
int ftvm_devstate_compare(struct ftvm *vm);

/* blk.c */
int disk_open(struct ftvm *vm, const char *path);
void disk_close(struct ftvm *vm);
void disk_submit(struct ftvm *vm, const struct vio_blk_req *req);
void disk_perform(struct ftvm *vm, const void *req, size_t len);
int disk_complete(struct ftvm *vm);

/* net.c */
int nic_open(struct ftvm *vm, const char *spec);
void nic_close(struct ftvm *vm);
void nic_transmit(struct ftvm *vm, const void *frame, uint32_t len);
int nic_receive(struct ftvm *vm);
bool nic_can_receive(struct ftvm *vm);
void nic_send(struct ftvm *vm, const void *frame, size_t len);
void nic_go_live(struct ftvm *vm);

/* timer.c: host time drives the PIT on the primary */
int ftvm_timer_start(struct ftvm *vm);
void ftvm_timer_stop(struct ftvm *vm);
int ftvm_timer_wait(struct ftvm *vm, int timeout_ms, int io_fd);

/* ft.c: the recorder and replayer, and the log file behind them */
int ftvm_ft_record(struct ftvm *vm, const char *log);
int ftvm_ft_replay(struct ftvm *vm, const char *log);
int ftvm_ft_finish(struct ftvm *vm);
int ftvm_ft_append(struct ftvm *vm, const struct ft_log_rec *r);
int ftvm_ft_next(struct ftvm *vm, const struct ft_log_rec **next);
int ftvm_ft_sync(struct ftvm *vm, struct ft_log_rec *io);
void ftvm_ft_diverged(struct ftvm *vm, int rc);

/* attach.c: the ring shared with ftd */
int ftvm_attach(struct ftvm *vm, uint32_t role, uint32_t data, int fds[3]);
void ftvm_detach(struct ftvm *vm);
void ftvm_notify(struct ftvm *vm);
int ftvm_wait_ftd(struct ftvm *vm, int timeout_ms);

/* control.c: the control socket of `ftvm serve` */
int ftvm_ctl_open(struct ftvm *vm, const char *path);
void ftvm_ctl_close(struct ftvm *vm);
void ftvm_ctl_service(struct ftvm *vm, bool at_stop);
int ftvm_end_log(struct ftvm *vm);
void ftvm_go_live(struct ftvm *vm);

/* selftest.c */
int ftvm_selftest(char *why, size_t len);

#endif /* FTVM_H */
