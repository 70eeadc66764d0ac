// SPDX-License-Identifier: GPL-2.0-only
/*
 * json.c - just enough JSON to read a server's reply (xlft_json.h).
 *
 * One scanner serves both the check and the look-ups: skip() steps over
 * exactly one value and returns NULL at the first byte that breaks the
 * grammar, so a look-up can never run past a truncated document.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "xlft_json.h"

static const char *ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static bool hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F');
}

/* p at the opening quote; returns past the closing one. */
static const char *skip_string(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        unsigned char c = (unsigned char)*p;

        if (c == '"')
            return p + 1;
        if (c < 0x20)
            return NULL;
        if (c != '\\')
            continue;
        if (++p >= end)
            return NULL;
        if (*p == 'u') {
            if (end - p < 5 || !hex(p[1]) || !hex(p[2]) || !hex(p[3]) ||
                !hex(p[4]))
                return NULL;
            p += 4;
        } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
            return NULL;
        }
    }
    return NULL;
}

static const char *digits(const char *p, const char *end)
{
    const char *s = p;

    while (p < end && *p >= '0' && *p <= '9')
        p++;
    return p > s ? p : NULL;
}

static const char *skip_number(const char *p, const char *end)
{
    if (p < end && *p == '-')
        p++;
    if (p < end && *p == '0')
        p++;
    else if (!(p = digits(p, end)))
        return NULL;
    if (p < end && *p == '.' && !(p = digits(p + 1, end)))
        return NULL;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (!(p = digits(p, end)))
            return NULL;
    }
    return p;
}

static const char *word(const char *p, const char *end, const char *w)
{
    size_t n = strlen(w);

    return (size_t)(end - p) >= n && !memcmp(p, w, n) ? p + n : NULL;
}

/* p at a value (no white space before it). */
static const char *skip(const char *p, const char *end, int depth)
{
    char close;

    if (p >= end)
        return NULL;
    switch (*p) {
    case '"':
        return skip_string(p, end);
    case 't':
        return word(p, end, "true");
    case 'f':
        return word(p, end, "false");
    case 'n':
        return word(p, end, "null");
    case '{':
    case '[':
        break;
    default:
        return skip_number(p, end);
    }
    if (depth >= XLFT_JSON_DEPTH)
        return NULL;
    close = *p == '{' ? '}' : ']';
    p = ws(p + 1, end);
    if (p < end && *p == close)
        return p + 1;
    for (;;) {
        if (close == '}') {
            if (p >= end || *p != '"' || !(p = skip_string(p, end)))
                return NULL;
            p = ws(p, end);
            if (p >= end || *p != ':')
                return NULL;
            p = ws(p + 1, end);
        }
        if (!(p = skip(p, end, depth + 1)))
            return NULL;
        p = ws(p, end);
        if (p >= end)
            return NULL;
        if (*p == close)
            return p + 1;
        if (*p != ',')
            return NULL;
        p = ws(p + 1, end);
    }
}

int xlft_json_check(const char *s, size_t n)
{
    const char *end = s + n, *p = skip(ws(s, end), end, 0);

    return p && ws(p, end) == end ? 0 : -EBADMSG;
}

static void set(struct xlft_json *v, const char *p, const char *q)
{
    switch (*p) {
    case '{': v->type = XLFT_JSON_OBJECT; break;
    case '[': v->type = XLFT_JSON_ARRAY; break;
    case '"': v->type = XLFT_JSON_STRING; p++; q--; break;
    case 't': v->type = XLFT_JSON_TRUE; break;
    case 'f': v->type = XLFT_JSON_FALSE; break;
    case 'n': v->type = XLFT_JSON_NULL; break;
    default: v->type = XLFT_JSON_NUMBER; break;
    }
    v->p = p;
    v->n = (size_t)(q - p);
}

/* In the object or array at p, the member named / indexed by name[0..k). */
static const char *member(const char *p, const char *end, const char *name,
                          size_t k)
{
    bool obj = *p == '{';
    char close = obj ? '}' : ']';
    unsigned long want = 0, i = 0;

    if (!obj) {
        if (!k || k > 9)
            return NULL;
        for (size_t j = 0; j < k; j++) {
            if (name[j] < '0' || name[j] > '9')
                return NULL;
            want = want * 10 + (unsigned long)(name[j] - '0');
        }
    }
    p = ws(p + 1, end);
    if (p < end && *p == close)
        return NULL;
    for (;; i++) {
        bool hit = !obj && i == want;

        if (obj) {
            const char *q;

            if (p >= end || *p != '"' || !(q = skip_string(p, end)))
                return NULL;
            hit = (size_t)(q - p) == k + 2 && !memcmp(p + 1, name, k);
            p = ws(q, end);
            if (p >= end || *p != ':')
                return NULL;
            p = ws(p + 1, end);
        }
        if (hit)
            return p;
        if (!(p = skip(p, end, 0)))
            return NULL;
        p = ws(p, end);
        if (p >= end || *p != ',')
            return NULL;
        p = ws(p + 1, end);
    }
}

int xlft_json_get(const char *s, size_t n, const char *path,
                  struct xlft_json *v)
{
    const char *end = s + n, *p = ws(s, end), *q;

    while (*path) {
        size_t k = strcspn(path, ".");

        if (p >= end || (*p != '{' && *p != '['))
            return 0;
        if (!(p = member(p, end, path, k)))
            return 0;
        path += k + (path[k] == '.');
    }
    q = skip(p, end, 0);
    if (!q)
        return 0;
    set(v, p, q);
    return 1;
}

int xlft_json_next(const struct xlft_json *c, const char **pos,
                   struct xlft_json *key, struct xlft_json *val)
{
    const char *end = c->p + c->n, *p, *q;
    bool obj = c->type == XLFT_JSON_OBJECT;

    if (!obj && c->type != XLFT_JSON_ARRAY)
        return 0;
    /* c->p is at the opening bracket, *pos past the previous value. */
    p = ws(*pos ? *pos : c->p + 1, end);
    if (*pos) {
        if (p >= end || *p != ',')
            return 0;
        p = ws(p + 1, end);
    }
    if (obj) {
        if (p >= end || *p != '"' || !(q = skip_string(p, end)))
            return 0;
        if (key)
            set(key, p, q);
        p = ws(q, end);
        if (p >= end || *p != ':')
            return 0;
        p = ws(p + 1, end);
    }
    q = skip(p, end, 0);
    if (!q)
        return 0;
    set(val, p, q);
    *pos = q;
    return 1;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    return (c | 0x20) - 'a' + 10;
}

int xlft_json_str(const struct xlft_json *v, char *out, size_t outlen)
{
    size_t o = 0;

    if (v->type != XLFT_JSON_STRING)
        return -EBADMSG;
    for (size_t i = 0; i < v->n; i++) {
        char c = v->p[i];

        if (c == '\\') {
            c = v->p[++i];
            switch (c) {
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u': {
                int u = 0;

                for (int j = 1; j <= 4; j++)
                    u = u * 16 + hexval(v->p[i + j]);
                if (u == 0 || u >= 0x80)
                    return -EBADMSG;
                c = (char)u;
                i += 4;
                break;
            }
            default: break;     /* '"', '\\', '/' stand for themselves */
            }
        }
        if (o + 1 >= outlen) {
            if (outlen)
                out[o] = '\0';
            return -EMSGSIZE;
        }
        out[o++] = c;
    }
    if (!outlen)
        return -EMSGSIZE;
    out[o] = '\0';
    return 0;
}

int xlft_json_int(const struct xlft_json *v, int64_t *out)
{
    const char *p = v->p;
    size_t n = v->n, i = 0;
    bool neg = false;
    uint64_t x = 0;

    if (v->type != XLFT_JSON_STRING && v->type != XLFT_JSON_NUMBER)
        return -EBADMSG;
    if (n && p[0] == '-') {
        neg = true;
        i++;
    }
    if (i == n || n - i > 19 || (p[i] == '0' && n - i > 1))
        return -EBADMSG;
    for (; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -EBADMSG;
        x = x * 10 + (uint64_t)(p[i] - '0');
    }
    if (x > (uint64_t)INT64_MAX)
        return -EBADMSG;
    *out = neg ? -(int64_t)x : (int64_t)x;
    return 0;
}
