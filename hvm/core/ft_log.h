/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ft_log.h - the xenft log record: one encoding used in the rings, on
 * the wire and in log files.  Byte layout and version rules are in
 * hvm/core/FORMAT.md; this header and that document change together.
 *
 * Records are delta-encoded against a small state (struct ft_codec) that
 * encoder and decoder advance identically, record by record, from an
 * all-zero start.  A record's length never depends on that state, so a
 * consumer can count and skip records without decoding their values.
 *
 * Exported to dom0: ftd scans and checks records, libxlft's stored logs
 * and ftlog decode and encode them.
 */
#ifndef FT_LOG_H
#define FT_LOG_H

#include "ft_base.h"

#define FT_LOG_VERSION      4u  /* 4: a timer's tick */

/* Record kinds (low 4 bits of the first byte). */
#define FT_K_EXTINT     0   /* external interrupt: vector, source */
#define FT_K_NMI        1
#define FT_K_EVENT      2   /* other injected event (exception, MCE, ...) */
#define FT_K_TSC        3   /* RDTSC/RDTSCP result */
#define FT_K_MSR        4   /* RDMSR result */
#define FT_K_PIO        5   /* port read result */
#define FT_K_MMIO       6   /* MMIO read result */
#define FT_K_RAND       7   /* RDRAND/RDSEED result */
#define FT_K_DMA        8   /* bytes written into guest memory */
#define FT_K_HLT_WAKE   9   /* halted vCPU resumed without an event */
#define FT_K_PROGRESS  10   /* the primary has reached this point */
#define FT_K_SYNC      11   /* state hash at this point */
#define FT_K_OUTPUT    12   /* an output was produced at this point */
#define FT_K_NR        13
/* Not record kinds: what a replayed vCPU did, in a diagnosis. */
#define FT_K_STRING  0xfd   /* the vCPU did a string read */
#define FT_K_HALTED  0xfe   /* the vCPU halted */
#define FT_K_NONE    0xff

#define FT_DMA_MAX      65536u  /* bytes of one DMA record */
/* DMA at and above this address is not guest memory but the state of the
 * hypervisor's devices (FORMAT.md, "Device state"). */
#define FT_DMA_DEVICE   (1ull << 63)
#define FT_LOG_HEAD_MAX 64u     /* encoded size of any record but DMA data */
#define FT_LOG_REC_MAX  (FT_LOG_HEAD_MAX + FT_DMA_MAX)

/*
 * Which interrupt controller gave an FT_K_EXTINT, so that a copy can
 * acknowledge it to the same one: a vector alone does not say (an MSI
 * may use a vector in a PIC's range).
 */
#define FT_INTR_LAPIC       0u
#define FT_INTR_PIC         1u
#define FT_INTR_NR          2u
/*
 * In the encoded source byte, beside the controller: one of the
 * hypervisor's periodic or one-shot timers gave the interrupt, so that a
 * copy does what the primary's timer did on delivery (end a one-shot,
 * run its callback: a register set, a deadline cleared).
 */
#define FT_INTR_TIMER       0x80u

/* FT_K_EVENT types: those of Xen's struct x86_event. */
#define FT_EV_TYPE_MAX      7u

/* A decoded record (or one to encode). */
struct ft_log_rec {
    uint8_t kind;                /* FT_K_* */
    struct ft_point pt;
    union {
        struct {
            uint8_t vector;
            uint8_t src;         /* FT_INTR_LAPIC or FT_INTR_PIC */
            bool timer;          /* a tick of the hypervisor's timer */
        } intr;
        struct {
            uint8_t type;        /* X86_EVENTTYPE_* (0..7) */
            uint8_t vector;
            uint8_t insn_len;
            bool has_errcode;
            bool has_cr2;
            uint32_t errcode;
            uint64_t cr2;
        } event;
        struct { uint64_t value; } tsc;
        struct { uint32_t index; uint64_t value; } msr;
        struct { uint16_t port; uint8_t size; uint32_t value; } pio;
        struct { uint64_t gpa; uint8_t size; uint64_t value; } mmio;
        struct { bool seed; uint8_t size; uint64_t value; } rand;
        struct {
            uint64_t gpa;
            uint32_t len;
            /*
             * What a string read (rep ins, rep movs from MMIO) of the
             * instruction at pt wrote: that instruction takes it.  Else
             * the device model's write, applied before the guest runs on.
             * (Here, in the words u.w[] holds.)
             */
            bool insn;
            const uint8_t *data; /* decode: NULL unless within the buffer */
        } dma;
        struct { uint64_t hash; } sync;
        struct { uint64_t id; } output;
        uint64_t w[3];           /* all of the above, as words */
    } u;
    /* Set by the decoder. */
    uint32_t size;               /* whole record, bytes */
    uint32_t head;               /* bytes before DMA data (= size if not DMA) */
};

/* Delta-coding state.  Zero it (ft_codec_init) at the start of a log. */
struct ft_codec {
    uint64_t count;
    uint64_t rip[3];             /* rips seen lately, each in a slot */
    uint64_t rcx[3];             /* rcx of the last record at rip[i] */
    uint64_t tsc;
    uint64_t tsc_delta;
    uint64_t mmio_gpa;
    uint64_t output_id;
    uint32_t msr_index;
    uint16_t pio_port;
    uint8_t pio_size;
    uint8_t mmio_size;
    uint8_t vector;
    uint8_t intr_src;            /* encoded: src | FT_INTR_TIMER */
    uint8_t rip_last;            /* slot of the last record's rip */
    uint8_t rip_next;            /* slot the next new rip takes */
};

void ft_codec_init(struct ft_codec *c);

/*
 * Encode 'r' (for DMA: everything but the data bytes, which follow) into
 * 'out', which has room for FT_LOG_HEAD_MAX bytes.  Reads 'c' but does
 * not change it: call ft_codec_advance once the record is stored.
 * Returns the number of bytes written, or FT_EINVAL for a record that
 * cannot be encoded (unknown kind, bad size, value too wide for its
 * size, count going backwards, DMA length 0 or above FT_DMA_MAX).
 */
int ft_log_encode(const struct ft_codec *c, const struct ft_log_rec *r,
                  uint8_t *out);

/*
 * Decode the record at 'buf' (at most 'len' bytes).  'c' may be NULL to
 * learn only the record's size and structure (values are then relative
 * to a zero state).  Returns the record's size (also in r->size), with
 * r->u.dma.data pointing into 'buf' when the data is there, or
 *   FT_EMORE   if 'buf' ends before the record's head (or, with
 *              ft_log_decode, before its end);
 *   FT_EBADMSG if the bytes are not a valid record.
 * ft_log_decode_head accepts a DMA record whose data is not (all) in
 * 'buf'; ft_log_decode requires the whole record.
 */
int ft_log_decode_head(const struct ft_codec *c, const uint8_t *buf,
                       uint32_t len, struct ft_log_rec *r);
int ft_log_decode(const struct ft_codec *c, const uint8_t *buf,
                  uint32_t len, struct ft_log_rec *r);

/* Advance the state past 'r' (after encoding or decoding it). */
void ft_codec_advance(struct ft_codec *c, const struct ft_log_rec *r);

/*
 * Count the whole records at the start of 'buf': returns the number of
 * bytes they take and sets *nrec; stops before an incomplete record.
 * FT_EBADMSG if a malformed record comes first.
 */
int ft_log_scan(const uint8_t *buf, uint32_t len, uint32_t *nrec);

/*
 * The same, but decoding every value against 'c' and advancing it past
 * each whole record: a record that is malformed only in the light of
 * the records before it (a "same port as last time" with no last time,
 * a count that wraps) is refused too.  What a log writer or reader uses
 * before it stores or hands out records.
 */
int ft_log_check(struct ft_codec *c, const uint8_t *buf, uint32_t len,
                 uint32_t *nrec);

/*
 * True for kinds the vCPU asks for (synchronous): TSC, MSR, PIO, MMIO,
 * RAND, OUTPUT.  The others happen to the vCPU at a recorded point.
 */
bool ft_log_kind_is_sync(unsigned int kind);
/* The same for a record: a string read's DMA is asked for too. */
bool ft_log_rec_is_sync(const struct ft_log_rec *r);
const char *ft_log_kind_name(unsigned int kind);

#endif /* FT_LOG_H */
