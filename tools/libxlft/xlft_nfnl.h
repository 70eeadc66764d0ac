/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_nfnl.h - the netfilter netlink messages of the network gate, built
 * into and decoded from caller buffers (no sockets here):
 *   - NFQUEUE: bind a queue and configure it, batch verdicts, and the
 *     packet messages the kernel sends;
 *   - nf_tables: the batch that installs or removes a gate's table, and
 *     the table dump that finds tables left by an earlier run.
 *
 * Decoders take bytes from a netlink socket; they check every length and
 * refuse what they do not understand with -EBADMSG rather than guess.
 */
#ifndef XLFT_NFNL_H
#define XLFT_NFNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Big enough for any message built here; a receive buffer of
 * XLFT_NFNL_RCVBUF holds many packet messages (metadata only).
 */
#define XLFT_NFNL_BUF 4096
#define XLFT_NFNL_RCVBUF 65536

/* Our tables are "xenft_q<queue>", in families ip and ip6. */
#define XLFT_NFNL_TABLE_PREFIX "xenft_q"

/*
 * NFQUEUE configuration of queue 'queue': bind, copy metadata only (the
 * packet stays in the kernel), at most 'maxlen' packets queued, not
 * fail-open (beyond maxlen the kernel drops).  Returns the bytes written
 * to 'buf' (XLFT_NFNL_BUF long); the messages carry 'seq'.. and ask for
 * acknowledgements; *nmsg says how many.
 */
size_t xlft_nfnl_queue_config(void *buf, uint16_t queue, uint32_t maxlen,
                              uint32_t seq, unsigned *nmsg);
/* Accept every packet of 'queue' up to id 'last' (not acknowledged). */
size_t xlft_nfnl_verdict_batch(void *buf, uint16_t queue, uint32_t last,
                               uint32_t seq);
/* Drop one packet (not acknowledged). */
size_t xlft_nfnl_verdict_drop(void *buf, uint16_t queue, uint32_t id,
                              uint32_t seq);

/*
 * Walk the netlink messages in 'buf': for each NFQUEUE packet message
 * of 'queue', call 'pkt' with its id.  Acknowledgements are skipped; an
 * error message (a verdict the kernel refused) sets *err if it is still
 * 0, and the walk goes on: the packets after it are not lost.  0, or
 * -EBADMSG at the first malformed or unexpected message (the packets
 * before it have been passed to 'pkt').
 */
typedef void (*xlft_nfnl_pkt_fn)(void *opaque, uint32_t id);
int xlft_nfnl_decode_packets(const void *buf, size_t len, uint16_t queue,
                             xlft_nfnl_pkt_fn pkt, void *opaque, int *err);

/*
 * Replies to acknowledged requests: the number of acknowledgements in
 * 'buf' (*err: the first error among them, 0 if none), or -EBADMSG.
 */
int xlft_nfnl_decode_acks(const void *buf, size_t len, int *err);

/*
 * nf_tables batch: the gate tables "xenft_q<queue>" of families ip and
 * ip6 whose base chains, at prerouting, queue every packet entering by
 * 'vif' to 'queue' (xtables NFQUEUE target through nft_compat, without
 * bypass).  'vif' is the input device (a routed vif) or, 'bridged', the
 * bridge port it came in by (br_netfilter; xtables physdev match).  Any
 * table of the same names is removed in the same transaction.  Returns
 * the bytes written to 'buf' (XLFT_NFNL_BUF) and *nmsg the number of
 * acknowledged messages; 0 if 'vif' is not a valid interface name.
 */
size_t xlft_nfnl_table_install(void *buf, const char *vif, uint16_t queue,
                               bool bridged, uint32_t seq, unsigned *nmsg);
/* The batch that removes table 'name' of 'family' if it exists. */
size_t xlft_nfnl_table_remove(void *buf, uint8_t family, const char *name,
                              uint32_t seq, unsigned *nmsg);
/* A dump request of every nf_tables table. */
size_t xlft_nfnl_table_dump(void *buf, uint32_t seq);

/*
 * Walk a table dump: call 'table' for each table named with our prefix.
 * Returns 1 when the dump is done (NLMSG_DONE seen), 0 if more is to
 * come, the (negative) error of an error message, the first non-zero
 * return of 'table', or -EBADMSG.
 */
typedef int (*xlft_nfnl_table_fn)(void *opaque, uint8_t family,
                                  const char *name);
int xlft_nfnl_decode_tables(const void *buf, size_t len,
                            xlft_nfnl_table_fn table, void *opaque);

#endif /* XLFT_NFNL_H */
