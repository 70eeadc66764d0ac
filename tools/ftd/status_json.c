// SPDX-License-Identifier: GPL-2.0-only
/*
 * status_json.c - every pair's status as one JSON document on one line
 * (so that a watch of it is JSON lines).  The schema, its version and
 * what is null when: tools/xl-ft/STATUS.md.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pair.h"
#include "pair_stats.h"
#include "status_json.h"
#include "views.h"

struct doc {
    struct evbuffer *out;
    int n;                      /* pairs written */
};

/* A JSON string, or null for NULL. */
static void str(struct evbuffer *out, const char *s)
{
    if (!s) {
        evbuffer_add_printf(out, "null");
        return;
    }
    evbuffer_add(out, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\')
            evbuffer_add_printf(out, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            evbuffer_add_printf(out, "\\u%04x", c);
        else
            evbuffer_add(out, s, 1);
    }
    evbuffer_add(out, "\"", 1);
}

static void key(struct evbuffer *out, const char *k)
{
    evbuffer_add_printf(out, ",\"%s\":", k);
}

static void num_or_null(struct evbuffer *out, const char *k, bool have,
                        double v)
{
    key(out, k);
    if (have)
        evbuffer_add_printf(out, "%.3f", v);
    else
        evbuffer_add_printf(out, "null");
}

static void u64_or_null(struct evbuffer *out, const char *k, bool have,
                        uint64_t v)
{
    key(out, k);
    if (have)
        evbuffer_add_printf(out, "%" PRIu64, v);
    else
        evbuffer_add_printf(out, "null");
}

static void pair_fields(struct evbuffer *out, const struct pair_view *v)
{
    struct pair_stats st;
    bool primary;

    pair_stats(v->pair, &st);
    primary = !strcmp(st.role, "primary");
    key(out, "role");
    str(out, st.role);
    key(out, "state");
    str(out, st.state);
    u64_or_null(out, "generation", st.gen != 0, st.gen);
    u64_or_null(out, "records_sent", primary, st.sent);
    u64_or_null(out, "records_acked", primary, st.acked);
    u64_or_null(out, "records_held", !primary, st.held);
    u64_or_null(out, "records_unacked", primary, st.sent - st.acked);
    u64_or_null(out, "lag_us", st.have_lag, st.lag_us);
    u64_or_null(out, "lag_last_us", st.have_lag, st.lag_last_us);
    num_or_null(out, "records_per_s", st.have_rate, st.rec_s);
    num_or_null(out, "log_mbit_s", st.have_rate, st.log_mbit_s);
    num_or_null(out, "predicted_log_mbit_s", st.have_rate,
                st.predicted_mbit_s);
    u64_or_null(out, "ack_rtt_us", st.have_rtt, st.ack_rtt_us);
    u64_or_null(out, "log_bytes", true, st.log_bytes);
    u64_or_null(out, "dma_bytes", true, st.dma_bytes);
    u64_or_null(out, "held_outputs", st.have_held_outputs,
                st.held_outputs);
    key(out, "arbiter_holder");
    str(out, st.holder);
    key(out, "copy");
    if (st.syncing) {
        evbuffer_add_printf(out, "{\"bytes_sent\":%" PRIu64, st.sync_done);
        u64_or_null(out, "bytes_total", st.sync_total != 0, st.sync_total);
        evbuffer_add_printf(out, "}");
    } else {
        evbuffer_add_printf(out, "null");
    }
    key(out, "went_live");
    evbuffer_add_printf(out, st.went_live ? "true" : "false");
    key(out, "diverged");
    evbuffer_add_printf(out, st.diverged ? "true" : "false");
}

static void one(void *arg, const struct pair_view *v)
{
    struct doc *d = arg;
    struct evbuffer *out = d->out;

    evbuffer_add_printf(out, "%s{\"name\":", d->n++ ? "," : "");
    str(out, v->name[0] ? v->name : NULL);
    key(out, "peer");
    str(out, v->peer[0] ? v->peer : NULL);
    if (v->kind == VIEW_PAIR && v->pair) {
        pair_fields(out, v);
    } else {
        key(out, "role");
        str(out, v->kind == VIEW_PAIR ? NULL : "primary");
        key(out, "state");
        str(out, v->kind == VIEW_CONNECTING ? "connecting" :
                 v->kind == VIEW_REPROTECT ? "unprotected" : "ended");
    }
    key(out, "ended");
    evbuffer_add_printf(out, v->kind == VIEW_PAIR && v->ended ? "true"
                                                              : "false");
    key(out, "end_reason");
    str(out, v->kind == VIEW_PAIR && v->ended ? v->end_why : NULL);
    key(out, "connecting");
    if (v->kind == VIEW_CONNECTING)
        evbuffer_add_printf(out, "{\"seconds_left\":%ld}", v->secs);
    else
        evbuffer_add_printf(out, "null");
    key(out, "reprotect");
    if (v->kind == VIEW_REPROTECT) {
        evbuffer_add_printf(out, "{\"attempt\":%u,\"next_in_s\":%ld,"
                            "\"last_error\":", v->attempt, v->secs);
        str(out, v->last);
        evbuffer_add_printf(out, "}");
    } else {
        evbuffer_add_printf(out, "null");
    }
    evbuffer_add_printf(out, "}");
}

void status_json(struct service *s, const char *host, const char *version,
                 const char *name, struct evbuffer *out)
{
    struct doc d = { .out = out };
    struct evbuffer *pairs = evbuffer_new();
    struct timespec now;
    char *end;
    long v = strtol(version, &end, 10);

    if (*end || end == version || v != STATUS_JSON_VERSION) {
        evbuffer_add_printf(out, "error: status schema version '%s' is not "
                            "spoken here: this ftd speaks version %d\n",
                            version, STATUS_JSON_VERSION);
        goto out;
    }
    if (!pairs) {
        evbuffer_add_printf(out, "error: out of memory\n");
        goto out;
    }
    d.out = pairs;
    if (!service_views(s, name, one, &d) && name) {
        evbuffer_add_printf(out, "error: no pair for %s on this host\n",
                            name);
        goto out;
    }
    clock_gettime(CLOCK_REALTIME, &now);
    evbuffer_add_printf(out, "{\"version\":%d,\"host\":",
                        STATUS_JSON_VERSION);
    str(out, host);
    evbuffer_add_printf(out, ",\"time\":%lld.%03ld,\"pairs\":[",
                        (long long)now.tv_sec, now.tv_nsec / 1000000);
    evbuffer_add_buffer(out, pairs);
    evbuffer_add_printf(out, "]}\n");
out:
    if (pairs)
        evbuffer_free(pairs);
}
