/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_json.h - just enough JSON to read a server's reply: etcd's
 * gateway (the arbiter), libxl's configuration of a guest (the xen
 * backend), ftd's status for xl-ft.
 *
 * A document is checked whole first (RFC 8259 syntax, nesting at most
 * XLFT_JSON_DEPTH deep); then single values are looked up by path and
 * decoded on demand, without building a tree.
 */
#ifndef XLFT_JSON_H
#define XLFT_JSON_H

#include <stddef.h>
#include <stdint.h>

#define XLFT_JSON_DEPTH 32

enum xlft_json_type {
    XLFT_JSON_OBJECT, XLFT_JSON_ARRAY, XLFT_JSON_STRING, XLFT_JSON_NUMBER,
    XLFT_JSON_TRUE, XLFT_JSON_FALSE, XLFT_JSON_NULL,
};

struct xlft_json {
    enum xlft_json_type type;
    const char *p;      /* the value's text; a string's without quotes */
    size_t n;
};

/* 0 if s[0..n) is one JSON value (with white space around); -EBADMSG. */
int xlft_json_check(const char *s, size_t n);

/*
 * The value at 'path' in a checked document: object member names and
 * array indexes separated by '.', e.g. "responses.0.kvs".  1 found,
 * 0 absent (also when the path runs through something else than an
 * object or array).
 */
int xlft_json_get(const char *s, size_t n, const char *path,
                  struct xlft_json *v);

/*
 * The members of a checked object or the items of an array, in order:
 * '*pos' NULL to start; 1 with the next in 'val' (and an object's
 * member name in 'key', as a string value), 0 at the end.
 */
int xlft_json_next(const struct xlft_json *c, const char **pos,
                   struct xlft_json *key, struct xlft_json *val);

/* A string value, unescaped and NUL-terminated: 0, or -EBADMSG for a
 * non-string, a NUL or a non-ASCII escape, -EMSGSIZE if it does not fit
 * (then 'out' holds as much as fits). */
int xlft_json_str(const struct xlft_json *v, char *out, size_t outlen);

/* An integer given as a number or as a string of digits (as the etcd
 * gateway writes 64-bit fields): 0, or -EBADMSG. */
int xlft_json_int(const struct xlft_json *v, int64_t *out);

#endif /* XLFT_JSON_H */
