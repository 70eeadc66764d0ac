/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libxlft.h - xenft's dom0 library, for programs such as ftd and xl-ft.
 *
 * libxlft is what dom0 needs to keep a copy of a guest in lockstep on
 * another host: the logging channel between the two (frames, a PSK
 * handshake that proves each host's name, AES-256-GCM, a libevent
 * endpoint with bounded queues), heartbeats and the secondary's lag,
 * the arbiter that lets exactly one copy go on, stored logs, the output
 * gate, and the two ways to reach a guest's ring: ftvm's control socket
 * and Xen's FT domctl.  Names are xlft_ and XLFT_; errors are negative
 * errno values, with a message where the caller passes a buffer.
 *
 * The layers, each using only those above it here (the build gives a
 * directory no other headers, and make check-layers tries):
 *
 *   hvm/core        ring ABI and record codec; dom0 sees only its
 *                   headers "Exported to dom0" (hvm/core/ABI.md)
 *   tools/libxlft   this library
 *   hvm/ftvm, tools/ftd, tools/xl-ft, tools/ftlog
 *                   its users: these headers (ftvm, a hypervisor as Xen
 *                   is, takes all of hvm/core too)
 *
 * libxlft's public headers are those beside this one; the headers
 * beside its sources are its own.  This one includes what a program
 * such as ftd or xl-ft uses.  Included on their own: xlft_gate.h and
 * xlft_ftvm_ctl.h (ftvm's side), xlft_netgate.h (a Xen vif's frames),
 * and the xen backend's xlft_xen*.h and xlft_xs.h, which need Xen's
 * headers.
 */
#ifndef LIBXLFT_H
#define LIBXLFT_H

#include "xlft_arbiter.h"       /* which copy may go on */
#include "xlft_channel.h"       /* the logging channel, its frames */
#include "xlft_ftvm.h"          /* ftvm serve's control socket, rings */
#include "xlft_heartbeat.h"     /* failure detection */
#include "xlft_json.h"          /* a server's JSON reply */
#include "xlft_lag.h"           /* how far the secondary is behind */
#include "xlft_logfile.h"       /* stored logs */
#include "xlft_path.h"          /* directories nobody else can change */

#endif /* LIBXLFT_H */
