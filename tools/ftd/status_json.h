/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * status_json.h - the status of every pair as one JSON document, for
 * `xl-ft ft-status --json` (the schema: tools/xl-ft/STATUS.md).
 */
#ifndef FTD_STATUS_JSON_H
#define FTD_STATUS_JSON_H

#include <event2/buffer.h>

struct service;

/* The schema's version: a change to it is a new number. */
#define STATUS_JSON_VERSION 2

/*
 * The answer to "status-json VERSION [NAME]" into 'out': the document
 * on one line, or "error: ..." for a version not spoken here or a
 * guest with no pair.
 */
void status_json(struct service *s, const char *host, const char *version,
                 const char *name, struct evbuffer *out);

#endif /* FTD_STATUS_JSON_H */
