/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * metrics.h - ftd's figures in the Prometheus text exposition format,
 * in a file for node_exporter's textfile collector (ft.conf
 * `metrics-file`; the metrics: ft.conf(5)).
 */
#ifndef FTD_METRICS_H
#define FTD_METRICS_H

#include <stddef.h>

struct metrics;
struct service;

/* Writes the file once at once: 0, or -errno and 'why' naming it. */
int metrics_new(struct metrics **m, const char *path, const char *host,
                char *why, size_t len);
void metrics_free(struct metrics *m);

/* Once a second: counts what happened; rewrites the file now and then. */
void metrics_tick(struct metrics *m, struct service *s);

#endif /* FTD_METRICS_H */
