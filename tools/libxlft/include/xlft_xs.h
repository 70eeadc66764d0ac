/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_xs.h - FT status and control in xenstore, under
 * /libxl/<domid>/ft/ (ARCHITECTURE.md, "Status"): ftd writes the status
 * keys there, `xl-ft` and people read them with xenstore-ls, and a
 * request written to the `control` key is handed to ftd through a watch.
 *
 * Errors are negative errno values; 'err' gets a message naming the
 * domain and what is wrong.  -ESRCH: the domain does not exist.
 */
#ifndef XLFT_XS_H
#define XLFT_XS_H

#include <stddef.h>
#include <stdint.h>

struct xlft_xs;

/* One status key and its value. */
struct xlft_xs_kv {
    const char *key;
    const char *val;
};

/*
 * The status keys: state, role, peer, error (text, at most
 * XLFT_XS_VAL_MAX bytes, printable) and seq-sent, seq-acked, lag-us,
 * log-bw (unsigned decimal).
 */
#define XLFT_XS_VAL_MAX 256

int xlft_xs_open(struct xlft_xs **s, char *err, size_t errlen);
void xlft_xs_close(struct xlft_xs *s);

/*
 * Write the n keys of 'kv' under /libxl/<domid>/ft/ in one transaction
 * (retried a bounded number of times when xenstore says EAGAIN).  An
 * unknown key or a bad value is refused (-EINVAL) before anything is
 * written.
 */
int xlft_xs_status_write(struct xlft_xs *s, uint32_t domid,
                         const struct xlft_xs_kv *kv, size_t n, char *err,
                         size_t errlen);

/*
 * Watch /libxl/<domid>/ft/control (one domain per handle).  Then poll
 * xlft_xs_fd() for reading and call xlft_xs_control_read().
 */
int xlft_xs_control_watch(struct xlft_xs *s, uint32_t domid, char *err,
                          size_t errlen);
int xlft_xs_fd(const struct xlft_xs *s);

/*
 * Take the pending request, if any: 1 with it in 'req' (the key is then
 * removed, so that the same request written again is seen again), 0 if
 * there is none.  Requests written faster than they are taken coalesce:
 * the latest wins.  A request that does not fit 'reqlen' is refused
 * (-EMSGSIZE) and removed.
 */
int xlft_xs_control_read(struct xlft_xs *s, char *req, size_t reqlen,
                         char *err, size_t errlen);

#endif /* XLFT_XS_H */
