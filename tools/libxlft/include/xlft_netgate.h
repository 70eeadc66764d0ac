/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_netgate.h - the output rule for a Xen guest's network: in dom0,
 * every frame the guest transmits through its vif is held in an NFQUEUE
 * queue until the secondary has acknowledged the log record at which it
 * could have been produced (see xlft_gate.h for the rule itself).
 *
 * One gate per vif, each owning one queue number.  The gate installs
 * nf_tables tables of its own, "xenft_q<queue>" in families ip and ip6,
 * whose chains at prerouting queue every IPv4 and IPv6 packet entering
 * from the vif; closing the gate removes them.  A routed vif (vif-route,
 * vif-nat) is matched as the input device; a bridged one (vif-bridge)
 * as the bridge port, which needs br_netfilter with
 * net.bridge.bridge-nf-call-iptables and -ip6tables set.  ARP and other
 * non-IP frames are not held: the xtables NFQUEUE target used here (the
 * kernel may lack nft_queue) is not offered to the bridge family.
 *
 * The packets stay in the kernel: the gate keeps their queue ids, each
 * tagged with the primary's log position (the record ring's prod_seq,
 * read through a callback) when the gate takes it.  That is
 * conservative: every record that could have caused the packet was
 * produced before dom0 saw it.
 *
 * Fail-closed, deliberately: the rule has no bypass, so the kernel drops
 * the vif's packets while no gate is bound to the queue (ftd stopped or
 * died); the queue is not fail-open, so a full queue drops; releasing
 * the queue drops what it still holds.  An output lost is one more loss
 * on the network, which the guest's protocols already survive; an
 * output seen before its record is acknowledged could be one the
 * surviving copy never produces.
 *
 * Bounded: the kernel queues at most max_held frames for the gate (its
 * queue maxlen); the gate's memory is fixed when it is made.
 *
 * Not thread-safe.  Needs CAP_NET_ADMIN in dom0's network namespace.
 */
#ifndef XLFT_NETGATE_H
#define XLFT_NETGATE_H

#include <stdbool.h>
#include <stdint.h>

struct xlft_netgate;

/* The primary's log position now: the last record produced. */
typedef uint64_t (*xlft_netgate_pos_fn)(void *opaque);

struct xlft_netgate_config {
    const char *vif;            /* dom0's side of the guest's vif */
    uint16_t queue;             /* NFQUEUE number, owned by this gate */
    bool bridged;               /* the vif is a bridge port */
    uint32_t max_held;          /* frames held at most (0: 1024) */
    xlft_netgate_pos_fn position;
    void *opaque;
};

/*
 * Bind the queue (-EPERM if another socket has it, as without
 * CAP_NET_ADMIN), then install the tables (replacing those of the same
 * name left by an earlier run).  The
 * gate starts closed: the guest's frames wait for acknowledgements.
 * -EINVAL for a bad vif name or a missing callback, -EPERM without
 * CAP_NET_ADMIN, -ENOENT/-EOPNOTSUPP when the kernel lacks nf_tables,
 * nft_compat, NFQUEUE or physdev; -ENOPROTOOPT for a bridged vif whose
 * bridge does not call the inet hooks; other -errno from netlink.
 */
int xlft_netgate_new(struct xlft_netgate **g,
                     const struct xlft_netgate_config *cfg);

/*
 * Remove the table, then release the queue: frames still held are
 * dropped by the kernel.  To let them out (the guest is no longer
 * protected), xlft_netgate_open first.
 */
void xlft_netgate_free(struct xlft_netgate *g);

/* Readable when frames have arrived: then call xlft_netgate_receive. */
int xlft_netgate_fd(const struct xlft_netgate *g);

/*
 * Take the frames that have arrived (at most a bounded batch: call
 * again while the fd is readable), tagging them with the position read
 * now.  An open gate lets them out at once.  The number taken, or
 * -errno (-EBADMSG: the kernel sent something the gate does not
 * understand).
 */
int xlft_netgate_receive(struct xlft_netgate *g);

/*
 * The secondary holds every record up to 'acked': let out, in order,
 * the frames tagged up to it.  The number let out or -errno (they stay
 * held).  An 'acked' below an earlier one is ignored.
 */
int xlft_netgate_release(struct xlft_netgate *g, uint64_t acked);

/* Unprotected: let out what is held, then every frame at once. */
int xlft_netgate_open(struct xlft_netgate *g);
/* Protected again: frames wait for acknowledgements. */
void xlft_netgate_close(struct xlft_netgate *g);
bool xlft_netgate_is_open(const struct xlft_netgate *g);

struct xlft_netgate_stats {
    uint64_t held;          /* frames held now */
    uint64_t received;      /* frames taken from the kernel */
    uint64_t released;      /* frames let out */
    uint64_t dropped;       /* refused by the gate (out of order, full) */
    uint64_t overruns;      /* the socket overflowed: the kernel dropped */
    int last_error;         /* last verdict refused or unsent, 0 if none */
};
void xlft_netgate_get_stats(const struct xlft_netgate *g,
                            struct xlft_netgate_stats *st);

/*
 * Rules alone (xlft_netgate_new and _free do this themselves).  Install
 * the tables of 'queue' for 'vif'; remove the tables of 'queue' if there
 * are; remove
 * every table named xenft_q* in any family (ftd at start-up, before it
 * makes its gates: tables left by an ftd that died would drop the
 * guests' frames).  0 or -errno.
 */
int xlft_netgate_rules_install(const char *vif, uint16_t queue,
                               bool bridged);
int xlft_netgate_rules_remove(uint16_t queue);
int xlft_netgate_rules_purge(void);

#endif /* XLFT_NETGATE_H */
