// SPDX-License-Identifier: GPL-2.0-only
/*
 * frame.c - logging channel frames to and from bytes (WIRE.md).  One
 * set of rules (check_msg) serves the encoder and the decoder, so that
 * whatever is sent decodes and whatever decodes is re-encoded to the
 * same bytes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ft_ring.h"
#include "xlft_frame.h"
#include "bytes.h"
#include "say.h"

const char *xlft_type_name(unsigned int type)
{
    static const char *const names[XLFT_T_MAX + 1] = {
        [XLFT_T_HELLO] = "HELLO",
        [XLFT_T_HELLO_ACK] = "HELLO_ACK",
        [XLFT_T_LOG] = "LOG",
        [XLFT_T_ACK] = "ACK",
        [XLFT_T_HEARTBEAT] = "HEARTBEAT",
        [XLFT_T_STATE] = "STATE",
        [XLFT_T_GOLIVE] = "GOLIVE",
        [XLFT_T_SHUTDOWN] = "SHUTDOWN",
        [XLFT_T_ERROR] = "ERROR",
    };

    if (type > XLFT_T_MAX || !names[type])
        return "unknown";
    return names[type];
}

bool xlft_name_ok(const char *s)
{
    size_t n = strnlen(s, XLFT_NAME_SIZE + 1);

    if (!n || n > XLFT_NAME_SIZE || s[0] == '.')
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' &&
            *s != '.')
            return false;
    return true;
}

/* A name field: the name, then NUL bytes to its end. */
static void name_put(uint8_t out[XLFT_NAME_SIZE], const char *name)
{
    size_t n = strnlen(name, XLFT_NAME_SIZE);

    memset(out, 0, XLFT_NAME_SIZE);
    memcpy(out, name, n);
}

/* Decoded as it is; check_msg refuses what is not a name, NUL-padded. */
static void name_get(char *name, const uint8_t in[XLFT_NAME_SIZE])
{
    size_t n = strnlen((const char *)in, XLFT_NAME_SIZE);

    memcpy(name, in, n);
    name[n] = '\0';
    /* A byte after the first NUL makes it no name: spelt once only. */
    for (size_t i = n; i < XLFT_NAME_SIZE; i++)
        if (in[i])
            name[0] = '\0';
}

void xlft_hdr_put(uint8_t out[XLFT_HDR_SIZE], const struct xlft_hdr *h)
{
    XLFT_PUT(32, out, hdr, magic, XLFT_WIRE_MAGIC);
    XLFT_PUT(8, out, hdr, version, h->version);
    XLFT_PUT(8, out, hdr, type, h->type);
    XLFT_PUT(16, out, hdr, flags, h->flags);
    XLFT_PUT(32, out, hdr, len, h->len);
    XLFT_PUT(64, out, hdr, seq, h->seq);
}

int xlft_hdr_get(const uint8_t *buf, size_t len, struct xlft_hdr *h,
                 char *msg, size_t msglen)
{
    uint32_t magic;

    if (len < XLFT_HDR_SIZE) {
        xlft_say(msg, msglen, "frame header cut short: %zu of %u bytes", len,
            XLFT_HDR_SIZE);
        return -ENODATA;
    }
    magic = XLFT_GET(32, buf, hdr, magic);
    h->version = XLFT_GET(8, buf, hdr, version);
    h->type = XLFT_GET(8, buf, hdr, type);
    h->flags = XLFT_GET(16, buf, hdr, flags);
    h->len = XLFT_GET(32, buf, hdr, len);
    h->seq = XLFT_GET(64, buf, hdr, seq);
    if (magic != XLFT_WIRE_MAGIC) {
        xlft_say(msg, msglen, "not a logging channel frame: magic 0x%08x, "
            "want 0x%08x", magic, XLFT_WIRE_MAGIC);
        return -EBADMSG;
    }
    if (h->type < 1 || h->type > XLFT_T_MAX) {
        xlft_say(msg, msglen, "frame %llu has unknown type %u",
            (unsigned long long)h->seq, h->type);
        return -ENOMSG;
    }
    /* Any version reads a HELLO, and an ERROR refusing one (WIRE.md). */
    if ((h->version < XLFT_WIRE_VERSION_MIN ||
         h->version > XLFT_WIRE_VERSION_MAX) &&
        !(h->version == XLFT_WIRE_VERSION_HELLO &&
          (h->type == XLFT_T_HELLO || h->type == XLFT_T_ERROR))) {
        xlft_say(msg, msglen, "%s frame %llu is channel version %u; this "
            "side speaks versions %u to %u", xlft_type_name(h->type),
            (unsigned long long)h->seq, h->version, XLFT_WIRE_VERSION_MIN,
            XLFT_WIRE_VERSION_MAX);
        return -EPROTONOSUPPORT;
    }
    if (h->flags & ~XLFT_F_ALL) {
        xlft_say(msg, msglen, "%s frame %llu has undefined flags 0x%04x",
            xlft_type_name(h->type), (unsigned long long)h->seq,
            h->flags & ~XLFT_F_ALL);
        return -EBADMSG;
    }
    if (h->len > XLFT_FRAME_MAX - XLFT_HDR_SIZE) {
        xlft_say(msg, msglen, "%s frame %llu claims %u payload bytes, over the "
            "limit of %u", xlft_type_name(h->type),
            (unsigned long long)h->seq, h->len,
            XLFT_FRAME_MAX - XLFT_HDR_SIZE);
        return -EMSGSIZE;
    }
    return 0;
}

/* Fixed part of each type's payload; LOG, STATE, ERROR add bytes. */
static size_t fixed_size(unsigned int type)
{
    switch (type) {
    case XLFT_T_HELLO:      return XLFT_HELLO_SIZE;
    case XLFT_T_HELLO_ACK:  return XLFT_HELLO_ACK_SIZE;
    case XLFT_T_LOG:        return XLFT_LOG_HDR_SIZE;
    case XLFT_T_ACK:        return XLFT_ACK_SIZE;
    case XLFT_T_HEARTBEAT:  return XLFT_HEARTBEAT_SIZE;
    case XLFT_T_STATE:      return XLFT_STATE_HDR_SIZE;
    case XLFT_T_GOLIVE:     return XLFT_GOLIVE_SIZE;
    case XLFT_T_SHUTDOWN:   return XLFT_SHUTDOWN_SIZE;
    case XLFT_T_ERROR:      return XLFT_ERROR_HDR_SIZE;
    default:                return 0;
    }
}

static size_t var_size(const struct xlft_msg *m)
{
    switch (m->type) {
    case XLFT_T_LOG:    return m->u.log.len;
    case XLFT_T_STATE:  return m->u.state.len;
    case XLFT_T_ERROR:  return m->u.error.len;
    default:            return 0;
    }
}

static bool role_ok(uint8_t role)
{
    return role == XLFT_ROLE_PRIMARY || role == XLFT_ROLE_SECONDARY;
}

static bool enc_ok(uint8_t enc)
{
    return enc == XLFT_ENC_DISABLED || enc == XLFT_ENC_REQUIRED;
}

/* A HELLO laid out as this code reads it offers a version it speaks. */
static bool offers_ours(unsigned int lo, unsigned int hi)
{
    return lo <= XLFT_WIRE_VERSION_MAX && hi >= XLFT_WIRE_VERSION_MIN;
}

/* The rules of WIRE.md beyond sizes; -1 with a message if one fails. */
static int check_msg(const struct xlft_msg *m, char *msg, size_t msglen)
{
    const char *name = xlft_type_name(m->type);

    switch (m->type) {
    case XLFT_T_HELLO: {
        const struct xlft_hello *h = &m->u.hello;

        if (h->ver_min < 1 || h->ver_min > h->ver_max) {
            xlft_say(msg, msglen, "HELLO: version range %u-%u is empty or "
                "starts at 0", h->ver_min, h->ver_max);
            return -1;
        }
        if (!offers_ours(h->ver_min, h->ver_max)) {
            xlft_say(msg, msglen, "HELLO: versions %u to %u have another "
                "layout", h->ver_min, h->ver_max);
            return -1;
        }
        if (!role_ok(h->role) || !enc_ok(h->enc) || !h->log_version) {
            xlft_say(msg, msglen, "HELLO: role %u, encryption %u or log "
                "version %u undefined", h->role, h->enc, h->log_version);
            return -1;
        }
        if (!xlft_name_ok(h->host) || !xlft_name_ok(h->pair)) {
            xlft_say(msg, msglen, "HELLO: its host or pair field is no name "
                "(1 to %u of letters, digits, '-', '_', '.', NUL-padded)",
                XLFT_NAME_SIZE);
            return -1;
        }
        if (!ft_kind_defined(h->counter, h->cpu)) {
            xlft_say(msg, msglen, "HELLO: counter %u or CPU %u undefined",
                h->counter, h->cpu);
            return -1;
        }
        return 0;
    }
    case XLFT_T_HELLO_ACK: {
        const struct xlft_hello_ack *a = &m->u.hello_ack;

        if (!a->version || !role_ok(a->role) || !enc_ok(a->enc) ||
            !a->log_version) {
            xlft_say(msg, msglen, "HELLO_ACK: version %u, role %u, encryption "
                "%u or log version %u undefined", a->version, a->role,
                a->enc, a->log_version);
            return -1;
        }
        if (!xlft_name_ok(a->host) || !xlft_name_ok(a->pair)) {
            xlft_say(msg, msglen, "HELLO_ACK: its host or pair field is no "
                "name (1 to %u of letters, digits, '-', '_', '.', "
                "NUL-padded)", XLFT_NAME_SIZE);
            return -1;
        }
        if (!ft_kind_defined(a->counter, a->cpu)) {
            xlft_say(msg, msglen, "HELLO_ACK: counter %u or CPU %u undefined",
                a->counter, a->cpu);
            return -1;
        }
        return 0;
    }
    case XLFT_T_LOG: {
        const struct xlft_log *l = &m->u.log;

        if (!l->first_seq || !l->count || l->count > l->len) {
            xlft_say(msg, msglen, "LOG: first record %llu, %u records in %u "
                "bytes", (unsigned long long)l->first_seq, l->count,
                l->len);
            return -1;
        }
        if (l->count - 1 > UINT64_MAX - l->first_seq) {
            xlft_say(msg, msglen, "LOG: %u records from %llu pass the last "
                "sequence number", l->count,
                (unsigned long long)l->first_seq);
            return -1;
        }
        return 0;
    }
    case XLFT_T_ACK:
        if (m->u.ack.replayed > m->u.ack.acked) {
            xlft_say(msg, msglen, "ACK: record %llu replayed but only %llu held",
                (unsigned long long)m->u.ack.replayed,
                (unsigned long long)m->u.ack.acked);
            return -1;
        }
        return 0;
    case XLFT_T_STATE: {
        const struct xlft_state *s = &m->u.state;

        if (s->offset > s->total || s->len > s->total - s->offset ||
            (!s->len && s->total)) {
            xlft_say(msg, msglen, "STATE: %u bytes at offset %llu of a %llu-byte "
                "stream", s->len, (unsigned long long)s->offset,
                (unsigned long long)s->total);
            return -1;
        }
        return 0;
    }
    case XLFT_T_ERROR: {
        const struct xlft_error *e = &m->u.error;

        if (e->code < 1 || e->code > XLFT_ERR_MAX) {
            xlft_say(msg, msglen, "ERROR: unknown code %u", e->code);
            return -1;
        }
        if (e->len > XLFT_ERROR_REASON_MAX || e->reason[e->len]) {
            xlft_say(msg, msglen, "ERROR: reason of %u bytes", e->len);
            return -1;
        }
        for (unsigned int i = 0; i < e->len; i++) {
            if (e->reason[i] < 0x20 || e->reason[i] > 0x7e) {
                xlft_say(msg, msglen, "ERROR: reason has byte 0x%02x at %u",
                    (uint8_t)e->reason[i], i);
                return -1;
            }
        }
        return 0;
    }
    case XLFT_T_HEARTBEAT:
    case XLFT_T_GOLIVE:
    case XLFT_T_SHUTDOWN:
        return 0;
    default:
        xlft_say(msg, msglen, "unknown frame type %u (%s)", m->type, name);
        return -1;
    }
}

size_t xlft_payload_size(const struct xlft_msg *m)
{
    size_t n = fixed_size(m->type) + var_size(m);

    if (!fixed_size(m->type) || n > XLFT_PLAIN_MAX || check_msg(m, NULL, 0))
        return 0;
    return n;
}

int xlft_payload_put_head(const struct xlft_msg *m, uint8_t *out,
                          size_t cap, struct xlft_data *data,
                          char *msg, size_t msglen)
{
    size_t n = fixed_size(m->type) + var_size(m);

    if (!fixed_size(m->type) || check_msg(m, msg, msglen))
        return -EINVAL;
    if (n > XLFT_PLAIN_MAX) {
        xlft_say(msg, msglen, "%s payload of %zu bytes is over the limit of %u",
            xlft_type_name(m->type), n, XLFT_PLAIN_MAX);
        return -EINVAL;
    }
    if (n > cap) {
        xlft_say(msg, msglen, "%s payload of %zu bytes does not fit in %zu",
            xlft_type_name(m->type), n, cap);
        return -ENOBUFS;
    }
    *data = (struct xlft_data){ NULL, 0 };
    switch (m->type) {
    case XLFT_T_HELLO: {
        const struct xlft_hello *h = &m->u.hello;

        XLFT_PUT(16, out, hello, ver_min, h->ver_min);
        XLFT_PUT(16, out, hello, ver_max, h->ver_max);
        XLFT_PUT(8, out, hello, role, h->role);
        XLFT_PUT(8, out, hello, enc, h->enc);
        XLFT_PUT(16, out, hello, log_version, h->log_version);
        XLFT_PUT(32, out, hello, domid, h->domid);
        name_put(XLFT_AT(out, hello, host), h->host);
        name_put(XLFT_AT(out, hello, pair), h->pair);
        memcpy(XLFT_AT(out, hello, nonce), h->nonce,
               XLFT_SIZEOF(hello, nonce));
        XLFT_PUT(8, out, hello, counter, h->counter);
        XLFT_PUT(8, out, hello, cpu, h->cpu);
        break;
    }
    case XLFT_T_HELLO_ACK: {
        const struct xlft_hello_ack *a = &m->u.hello_ack;

        XLFT_PUT(16, out, hello_ack, version, a->version);
        XLFT_PUT(8, out, hello_ack, role, a->role);
        XLFT_PUT(8, out, hello_ack, enc, a->enc);
        XLFT_PUT(16, out, hello_ack, log_version, a->log_version);
        XLFT_PUT(32, out, hello_ack, domid, a->domid);
        name_put(XLFT_AT(out, hello_ack, host), a->host);
        name_put(XLFT_AT(out, hello_ack, pair), a->pair);
        memcpy(XLFT_AT(out, hello_ack, nonce), a->nonce,
               XLFT_SIZEOF(hello_ack, nonce));
        XLFT_PUT(8, out, hello_ack, counter, a->counter);
        XLFT_PUT(8, out, hello_ack, cpu, a->cpu);
        memcpy(XLFT_AT(out, hello_ack, mac), a->mac,
               XLFT_SIZEOF(hello_ack, mac));
        break;
    }
    case XLFT_T_LOG:
        XLFT_PUT(64, out, log, first_seq, m->u.log.first_seq);
        XLFT_PUT(64, out, log, sent_ns, m->u.log.sent_ns);
        XLFT_PUT(32, out, log, count, m->u.log.count);
        *data = (struct xlft_data){ m->u.log.recs, m->u.log.len };
        break;
    case XLFT_T_ACK:
        XLFT_PUT(64, out, ack, acked, m->u.ack.acked);
        XLFT_PUT(64, out, ack, replayed, m->u.ack.replayed);
        XLFT_PUT(64, out, ack, echo_ns, m->u.ack.echo_ns);
        XLFT_PUT(64, out, ack, recv_ns, m->u.ack.recv_ns);
        break;
    case XLFT_T_HEARTBEAT:
        XLFT_PUT(64, out, heartbeat, sent_ns, m->u.heartbeat.sent_ns);
        XLFT_PUT(64, out, heartbeat, echo_ns, m->u.heartbeat.echo_ns);
        break;
    case XLFT_T_STATE:
        XLFT_PUT(64, out, state, offset, m->u.state.offset);
        XLFT_PUT(64, out, state, total, m->u.state.total);
        XLFT_PUT(64, out, state, base_seq, m->u.state.base_seq);
        *data = (struct xlft_data){ m->u.state.data, m->u.state.len };
        break;
    case XLFT_T_GOLIVE:
        XLFT_PUT(64, out, golive, seq, m->u.golive_seq);
        break;
    case XLFT_T_SHUTDOWN:
        XLFT_PUT(64, out, shutdown, seq, m->u.shutdown_seq);
        break;
    case XLFT_T_ERROR:
        XLFT_PUT(32, out, error, code, m->u.error.code);
        XLFT_PUT(16, out, error, len, m->u.error.len);
        memcpy(out + XLFT_ERROR_HDR_SIZE, m->u.error.reason,
               m->u.error.len);
        break;
    }
    return (int)(n - data->len);
}

int xlft_payload_put(const struct xlft_msg *m, uint8_t *out, size_t cap,
                     char *msg, size_t msglen)
{
    struct xlft_data d;
    int n = xlft_payload_put_head(m, out, cap, &d, msg, msglen);

    if (n < 0)
        return n;
    if (d.len)
        memmove(out + n, d.bytes, d.len);
    return n + (int)d.len;
}

int xlft_payload_get(unsigned int type, const uint8_t *p, size_t len,
                     struct xlft_msg *m, char *msg, size_t msglen)
{
    size_t fixed = fixed_size(type);
    const char *name = xlft_type_name(type);
    bool var = type == XLFT_T_LOG || type == XLFT_T_STATE ||
               type == XLFT_T_ERROR;

    if (!fixed) {
        xlft_say(msg, msglen, "unknown frame type %u", type);
        return -ENOMSG;
    }
    if (len > XLFT_PLAIN_MAX) {
        xlft_say(msg, msglen, "%s payload of %zu bytes is over the limit of %u",
            name, len, XLFT_PLAIN_MAX);
        return -EBADMSG;
    }
    /*
     * Every version's HELLO starts with the range it offers: a peer that
     * offers none of ours is told so, whatever layout the rest has.
     */
    if (type == XLFT_T_HELLO && len >= XLFT_END(hello, ver_max)) {
        unsigned int lo = XLFT_GET(16, p, hello, ver_min);
        unsigned int hi = XLFT_GET(16, p, hello, ver_max);

        if (lo >= 1 && lo <= hi && !offers_ours(lo, hi)) {
            xlft_say(msg, msglen, "no channel version in common: the peer "
                "speaks %u to %u, this side %u to %u%s", lo, hi,
                XLFT_WIRE_VERSION_MIN, XLFT_WIRE_VERSION_MAX,
                hi < 2 ? " (an ftd from before host identities: upgrade it)"
                : hi < 3 ? " (an ftd whose HELLO does not say what its log "
                           "counts: upgrade it)" : "");
            return -EPROTONOSUPPORT;
        }
    }
    if (len < fixed || (len != fixed && !var)) {
        xlft_say(msg, msglen, "%s payload of %zu bytes; it takes %s%zu", name,
            len, var ? "at least " : "", fixed);
        return -EBADMSG;
    }
    memset(m, 0, sizeof(*m));
    m->type = (uint8_t)type;
    switch (type) {
    case XLFT_T_HELLO: {
        struct xlft_hello *h = &m->u.hello;

        h->ver_min = XLFT_GET(16, p, hello, ver_min);
        h->ver_max = XLFT_GET(16, p, hello, ver_max);
        h->role = XLFT_GET(8, p, hello, role);
        h->enc = XLFT_GET(8, p, hello, enc);
        h->log_version = XLFT_GET(16, p, hello, log_version);
        h->domid = XLFT_GET(32, p, hello, domid);
        name_get(h->host, XLFT_AT(p, hello, host));
        name_get(h->pair, XLFT_AT(p, hello, pair));
        memcpy(h->nonce, XLFT_AT(p, hello, nonce),
               XLFT_SIZEOF(hello, nonce));
        h->counter = XLFT_GET(8, p, hello, counter);
        h->cpu = XLFT_GET(8, p, hello, cpu);
        break;
    }
    case XLFT_T_HELLO_ACK: {
        struct xlft_hello_ack *a = &m->u.hello_ack;

        a->version = XLFT_GET(16, p, hello_ack, version);
        a->role = XLFT_GET(8, p, hello_ack, role);
        a->enc = XLFT_GET(8, p, hello_ack, enc);
        a->log_version = XLFT_GET(16, p, hello_ack, log_version);
        a->domid = XLFT_GET(32, p, hello_ack, domid);
        name_get(a->host, XLFT_AT(p, hello_ack, host));
        name_get(a->pair, XLFT_AT(p, hello_ack, pair));
        memcpy(a->nonce, XLFT_AT(p, hello_ack, nonce),
               XLFT_SIZEOF(hello_ack, nonce));
        a->counter = XLFT_GET(8, p, hello_ack, counter);
        a->cpu = XLFT_GET(8, p, hello_ack, cpu);
        memcpy(a->mac, XLFT_AT(p, hello_ack, mac),
               XLFT_SIZEOF(hello_ack, mac));
        break;
    }
    case XLFT_T_LOG:
        m->u.log.first_seq = XLFT_GET(64, p, log, first_seq);
        m->u.log.sent_ns = XLFT_GET(64, p, log, sent_ns);
        m->u.log.count = XLFT_GET(32, p, log, count);
        m->u.log.len = (uint32_t)(len - fixed);
        m->u.log.recs = p + fixed;
        break;
    case XLFT_T_ACK:
        m->u.ack.acked = XLFT_GET(64, p, ack, acked);
        m->u.ack.replayed = XLFT_GET(64, p, ack, replayed);
        m->u.ack.echo_ns = XLFT_GET(64, p, ack, echo_ns);
        m->u.ack.recv_ns = XLFT_GET(64, p, ack, recv_ns);
        break;
    case XLFT_T_HEARTBEAT:
        m->u.heartbeat.sent_ns = XLFT_GET(64, p, heartbeat, sent_ns);
        m->u.heartbeat.echo_ns = XLFT_GET(64, p, heartbeat, echo_ns);
        break;
    case XLFT_T_STATE:
        m->u.state.offset = XLFT_GET(64, p, state, offset);
        m->u.state.total = XLFT_GET(64, p, state, total);
        m->u.state.base_seq = XLFT_GET(64, p, state, base_seq);
        m->u.state.len = (uint32_t)(len - fixed);
        m->u.state.data = p + fixed;
        break;
    case XLFT_T_GOLIVE:
        m->u.golive_seq = XLFT_GET(64, p, golive, seq);
        break;
    case XLFT_T_SHUTDOWN:
        m->u.shutdown_seq = XLFT_GET(64, p, shutdown, seq);
        break;
    case XLFT_T_ERROR: {
        uint16_t rlen = XLFT_GET(16, p, error, len);

        m->u.error.code = XLFT_GET(32, p, error, code);
        if (rlen != len - fixed || rlen > XLFT_ERROR_REASON_MAX) {
            xlft_say(msg, msglen, "ERROR: reason length %u in a %zu-byte "
                "payload", rlen, len);
            return -EBADMSG;
        }
        m->u.error.len = rlen;
        memcpy(m->u.error.reason, p + fixed, rlen);
        m->u.error.reason[rlen] = '\0';
        break;
    }
    }
    if (check_msg(m, msg, msglen))
        return -EBADMSG;
    return 0;
}

void xlft_msg_error(struct xlft_msg *m, uint32_t code, const char *reason)
{
    size_t n = 0;

    memset(m, 0, sizeof(*m));
    m->type = XLFT_T_ERROR;
    m->u.error.code = code;
    for (; reason[n] && n < XLFT_ERROR_REASON_MAX; n++) {
        char c = reason[n];

        m->u.error.reason[n] = c >= 0x20 && c <= 0x7e ? c : '?';
    }
    m->u.error.len = (uint16_t)n;
}

int xlft_frame_put(const struct xlft_msg *m, uint8_t version, uint64_t seq,
                   uint8_t *out, size_t cap, char *msg, size_t msglen)
{
    struct xlft_hdr h = {
        .version = version, .type = m->type, .flags = 0, .seq = seq,
    };
    int n;

    if (cap < XLFT_HDR_SIZE) {
        xlft_say(msg, msglen, "no room for a frame header in %zu bytes", cap);
        return -ENOBUFS;
    }
    n = xlft_payload_put(m, out + XLFT_HDR_SIZE, cap - XLFT_HDR_SIZE,
                         msg, msglen);
    if (n < 0)
        return n;
    h.len = (uint32_t)n;
    xlft_hdr_put(out, &h);
    return (int)XLFT_HDR_SIZE + n;
}

int xlft_frame_get(const uint8_t *buf, size_t len, struct xlft_hdr *h,
                   struct xlft_msg *m, char *msg, size_t msglen)
{
    int rc = xlft_hdr_get(buf, len, h, msg, msglen);

    if (rc)
        return rc;
    if (h->flags & XLFT_F_ENCRYPTED) {
        xlft_say(msg, msglen, "%s frame %llu is encrypted, and no session "
            "holds its key", xlft_type_name(h->type),
            (unsigned long long)h->seq);
        return -EBADMSG;
    }
    if (len - XLFT_HDR_SIZE < h->len) {
        xlft_say(msg, msglen, "%s frame %llu cut short: %zu of %u payload bytes",
            xlft_type_name(h->type), (unsigned long long)h->seq,
            len - XLFT_HDR_SIZE, h->len);
        return -ENODATA;
    }
    rc = xlft_payload_get(h->type, buf + XLFT_HDR_SIZE, h->len, m,
                          msg, msglen);
    if (rc)
        return rc;
    return (int)(XLFT_HDR_SIZE + h->len);
}
