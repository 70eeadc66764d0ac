// SPDX-License-Identifier: GPL-2.0-only
/*
 * xen_speed.c - a scheduler cap as the speed control of a Xen guest
 * (xlft_xen_speed.h).
 */
#include <errno.h>
#include <stdio.h>

#include <libxl.h>
#include <xentoollog.h>

#include "xlft_xen_speed.h"

int xlft_xen_set_speed(uint32_t domid, uint32_t pct, char *err,
                       size_t errlen)
{
    xentoollog_logger_stdiostream *log;
    libxl_domain_sched_params p;
    libxl_ctx *ctx = NULL;
    int rc = -EIO;

    if (!pct || pct > 100) {
        snprintf(err, errlen, "domain %u: a speed of %u%% (1 to 100)",
                 domid, pct);
        return -EINVAL;
    }
    log = xtl_createlogger_stdiostream(stderr, XTL_ERROR, 0);
    if (!log || libxl_ctx_alloc(&ctx, LIBXL_VERSION, 0,
                                (xentoollog_logger *)log)) {
        snprintf(err, errlen, "domain %u: cannot open libxl (not dom0?)",
                 domid);
        goto out;
    }
    libxl_domain_sched_params_init(&p);
    if (libxl_domain_sched_params_get(ctx, domid, &p)) {
        snprintf(err, errlen, "domain %u: cannot read its scheduling "
                 "parameters (no such domain?)", domid);
        rc = -ESRCH;
    } else if (p.sched != LIBXL_SCHEDULER_CREDIT &&
               p.sched != LIBXL_SCHEDULER_CREDIT2) {
        snprintf(err, errlen, "domain %u: its scheduler (%s) has no cap "
                 "to slow it down with (credit or credit2 have)", domid,
                 libxl_scheduler_to_string(p.sched));
        rc = -EOPNOTSUPP;
    } else {
        /* A cap of 0 is none. */
        p.cap = pct == 100 ? 0 : (int)pct;
        rc = libxl_domain_sched_params_set(ctx, domid, &p) ? -EIO : 0;
        if (rc)
            snprintf(err, errlen, "domain %u: the scheduler refused a cap "
                     "of %u%%", domid, pct);
    }
    libxl_domain_sched_params_dispose(&p);
out:
    if (ctx)
        libxl_ctx_free(ctx);
    if (log)
        xtl_logger_destroy((xentoollog_logger *)log);
    return rc;
}
