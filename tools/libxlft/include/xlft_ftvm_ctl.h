/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_ftvm_ctl.h - the control protocol of `ftvm serve`: what ftd's
 * ftvm backend speaks where its xen backend issues XEN_DOMCTL_ft_op and
 * XENMEM_acquire_resource.  Semantics and examples: FTVMCTL.md, beside
 * libxlft's sources.  It is libxlft's, not ftvm's, since libxlft speaks
 * it (xlft_ftvm.h) and ftvm, the layer above, serves it: ftvm includes
 * this header, libxlft includes nothing of ftvm's.
 *
 * Transport: a UNIX SOCK_SEQPACKET socket, one message per request and
 * one per reply, one client at a time.  All integers are in host byte
 * order (both ends are on one host).  A request is exactly
 * sizeof(struct xlft_ftvm_req) bytes; SAVE and RESTORE carry one file
 * descriptor (SCM_RIGHTS) to write or read the snapshot through.  A reply
 * is exactly sizeof(struct xlft_ftvm_rep) bytes; a successful RECORD or
 * REPLAY carries three descriptors, in this order: the ring (a memfd of
 * rep.ring_size bytes laid out as hvm/core/ft_abi.h says, sealed with
 * F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), the "up"
 * eventfd (ftvm signals dom0) and the "down" eventfd (dom0 signals ftvm).
 *
 * Versioning: XLFT_FTVM_VERSION changes with any change to these
 * structures or their meaning, a new operation included.  A request of
 * another version is answered with error -EPROTONOSUPPORT and this
 * side's version, nothing else.  Version 2 added HALT: a client that
 * needs it is refused by an ftvm without it at its first request, not
 * when it comes to halt a copy.  Version 3 added the state ENDED.
 */
#ifndef XLFT_FTVM_CTL_H
#define XLFT_FTVM_CTL_H

#include <stdint.h>

#define XLFT_FTVM_MAGIC     0x4c544346u     /* "FCTL" in memory order */
#define XLFT_FTVM_VERSION   3u

enum xlft_ftvm_op {
    XLFT_FTVM_OP_STATUS = 1,    /* the reply's status, nothing else */
    XLFT_FTVM_OP_PAUSE,         /* stop the vCPU at its next instruction */
    XLFT_FTVM_OP_UNPAUSE,
    XLFT_FTVM_OP_SAVE,          /* paused: the whole state into the fd */
    XLFT_FTVM_OP_RESTORE,       /* paused, not recording or replaying */
    XLFT_FTVM_OP_RECORD,        /* start recording into a new ring */
    XLFT_FTVM_OP_REPLAY,        /* paused: replay from a new ring */
    XLFT_FTVM_OP_GOLIVE,        /* replaying: finish the ring, go live */
    XLFT_FTVM_OP_DISABLE,       /* recording: end the log here, run on */
    XLFT_FTVM_OP_STOP,          /* end the log if recording; ftvm exits */
    XLFT_FTVM_OP_THROTTLE,      /* run the vCPU at 'arg' percent of its
                                   speed */
    XLFT_FTVM_OP_HALT,          /* this copy must not go on: held outputs
                                   are thrown away, the log gets no end,
                                   ftvm exits with XLFT_FTVM_EXIT_HALTED */
    XLFT_FTVM_OP_MAX = XLFT_FTVM_OP_HALT,
};

/* ftvm's exit status after HALT (and status.exit_status in its reply). */
#define XLFT_FTVM_EXIT_HALTED   5

/* STATUS: also compute the state hash (XXH3-64 of all guest state). */
#define XLFT_FTVM_F_HASH    (1u << 0)

struct xlft_ftvm_req {
    uint32_t magic;         /* XLFT_FTVM_MAGIC */
    uint16_t version;       /* XLFT_FTVM_VERSION */
    uint16_t op;            /* enum xlft_ftvm_op */
    uint32_t arg;           /* RECORD, REPLAY: ring data bytes (0: 1 MiB);
                               THROTTLE: percent, 1 to 100 */
    uint32_t flags;         /* XLFT_FTVM_F_* */
};

enum xlft_ftvm_state {
    XLFT_FTVM_ST_PAUSED = 1,
    XLFT_FTVM_ST_RUNNING,
    XLFT_FTVM_ST_FAILED,        /* stopped for good (a fault, a failed
                                   replay, HALT): see exit_status, why */
    XLFT_FTVM_ST_ENDED,         /* the guest stopped by itself, for good:
                                   powered off (exit_status 0) or halted
                                   with interrupts disabled (6); see why */
};

enum xlft_ftvm_mode {
    XLFT_FTVM_MODE_LIVE = 0,    /* neither recording nor replaying */
    XLFT_FTVM_MODE_RECORD,
    XLFT_FTVM_MODE_REPLAY,
};

struct xlft_ftvm_status {
    uint32_t state;         /* enum xlft_ftvm_state */
    uint32_t mode;          /* enum xlft_ftvm_mode */
    uint64_t insns;         /* instructions retired by the guest */
    uint64_t seq;           /* last record written or replayed */
    uint64_t hash;          /* with XLFT_FTVM_F_HASH, else 0 */
    uint32_t halted;        /* the vCPU waits in HLT */
    uint32_t speed_pct;     /* THROTTLE's setting, 100 when not slowed */
    int32_t exit_status;    /* ftvm's exit status, FAILED, ENDED only */
    char why[512];          /* FAILED, ENDED: what stopped it,
                               NUL-terminated */
};

struct xlft_ftvm_rep {
    uint32_t magic;
    uint16_t version;       /* the server's version */
    uint16_t op;            /* of the request answered */
    int32_t error;          /* 0 or -errno */
    uint32_t ring_size;     /* RECORD, REPLAY: bytes of the ring memfd */
    struct xlft_ftvm_status st;
    char msg[512];          /* error: what is wrong, NUL-terminated */
};

/*
 * Check a request as received (len bytes, nfds descriptors attached),
 * before the server believes anything in it (ftvm_req.c).  0, or -errno
 * with a message naming the problem in 'msg'.
 */
int xlft_ftvm_req_check(const void *buf, long len, int nfds, char *msg,
                        unsigned long msg_len);

#endif /* XLFT_FTVM_CTL_H */
