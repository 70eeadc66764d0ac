/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_arbiter.h - who may be the live copy of a protected guest.
 *
 * Before either side of a pair goes live (the secondary on failover, the
 * primary going on unprotected when it loses its secondary), it claims
 * the pair's current generation from an arbiter.  Exactly one claim per
 * (pair, generation) ever succeeds; the loser halts its copy.  A side
 * that cannot reach the arbiter gets an error and must keep waiting: it
 * never goes live on a guess.  The generation grows each time a pair is
 * (re)protected, so an old claim never blocks a new pair.
 *
 * Arbiters, named by a spec string:
 *   file:DIR    an atomic test-and-set of DIR/<pair>.<generation> on
 *               storage both hosts reach (link(2) is atomic on local
 *               file systems and on NFS alike).  Claims never lapse.
 *   etcd:URL[,URL...][?ttl=S&timeout=MS]
 *               the key /xenft/<pair>/<generation> in an etcd v3
 *               cluster, through its JSON gateway (http://HOST:PORT; the
 *               next URL is tried when one does not answer).  A claim is
 *               first made under a lease of ttl seconds (default 10), so
 *               that a claimant dying half-way lets it go, then made
 *               permanent before it is granted.  timeout (default 2000)
 *               bounds each request to each URL.
 *
 * A granted claim never lapses, with either arbiter: the winner goes
 * live on it, and a loser that could not reach the arbiter for a while
 * must still lose when it does, however long the winner has been live
 * (or dead: the loser's copy is older than what the winner acknowledged
 * since).  Nothing needs renewing, and an arbiter that goes away fences
 * nobody.  An operator removes the claims of a pair that is gone.
 *
 * Calls block on the storage or the network (an NFS server that does not
 * answer blocks file: calls; etcd: calls are bounded by the timeout per
 * URL, plus the resolver's own bound if URLs name hosts rather than
 * addresses): run them off the event loop.
 */
#ifndef XLFT_ARBITER_H
#define XLFT_ARBITER_H

#include <stddef.h>
#include <stdint.h>

#define XLFT_ARB_NAME_MAX  64   /* pair ids and host names */

struct xlft_arbiter;

/*
 * Open the arbiter named by 'spec' for pair 'pair' (letters, digits,
 * '-', '_' and '.', at most XLFT_ARB_NAME_MAX bytes).  -EINVAL for a bad
 * spec or name, with 'err' saying what is wrong.  Nothing is contacted
 * yet.
 */
int xlft_arbiter_open(struct xlft_arbiter **a, const char *spec,
                      const char *pair, char *err, size_t errlen);
/* Claims granted stay, for good. */
void xlft_arbiter_close(struct xlft_arbiter *a);

/*
 * Claim generation 'gen' of the pair for host 'me'.  1: granted (also
 * when 'me' already holds it); 0: another host holds it, named in
 * 'holder'; -errno: the arbiter cannot be reached or read, with 'err'
 * saying why (the caller waits and asks again, never goes live).
 */
int xlft_arbiter_claim(struct xlft_arbiter *a, uint64_t gen, const char *me,
                       char *holder, size_t holderlen, char *err,
                       size_t errlen);

#endif /* XLFT_ARBITER_H */
