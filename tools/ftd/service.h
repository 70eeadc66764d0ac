/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * service.h - ftd as the per-host service: secondaries accepted, pairs
 * enabled, disabled and switched over on command from xl-ft.
 */
#ifndef FTD_SERVICE_H
#define FTD_SERVICE_H

#include <stddef.h>

#include <event2/event.h>

#include "config.h"

/* Serve until the loop is told to exit; -errno and 'why' if it cannot. */
int service_run(const struct ftd_config *cfg, struct event_base *base,
                char *why, size_t len);

#endif /* FTD_SERVICE_H */
