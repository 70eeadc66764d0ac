// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_layout.c - the documents' tables of the fixed layouts (WIRE.md,
 * FORMAT.md) against the lists of fields the code takes its offsets
 * from (xlft_layout.h): the same fields in the same order, at the same
 * offsets, of the same sizes, so that the two cannot drift apart.
 *
 * A table in a document is a fenced block whose first line is the
 * layout's title, "NAME, N bytes" (then anything), N its size; then a
 * line per field, "OFFSET  SIZE  meaning", lines of more meaning that
 * start with a space, and at most one last line "OFFSET  ." or
 * "OFFSET  word..." for what follows a header of variable length.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xlft_copy.h"
#include "xlft_frame.h"
#include "xlft_logfile.h"
#include "sync_hdr.h"
#include "unit.h"

#define WIRE_MD   "tools/libxlft/WIRE.md"
#define FORMAT_MD "hvm/core/FORMAT.md"

struct field {
    const char *name;
    unsigned int off, size;
};

struct layout {
    const char *doc;
    const char *title;
    unsigned int type;          /* XLFT_T_*, 0 for none */
    unsigned int size;
    bool tail;                  /* bytes of their own follow */
    const struct field *fields;
    size_t nfields;
};

#define FIELD(name, off, size) { #name, off, size },
#define FIELDS(LIST) (const struct field[]){ LIST(FIELD) }, \
    sizeof((const struct field[]){ LIST(FIELD) }) / sizeof(struct field)

static const struct layout layouts[] = {
    { WIRE_MD, "frame header", 0, XLFT_HDR_SIZE, true,
      FIELDS(XLFT_HDR_FIELDS) },
    { WIRE_MD, "HELLO", XLFT_T_HELLO, XLFT_HELLO_SIZE, false,
      FIELDS(XLFT_HELLO_FIELDS) },
    { WIRE_MD, "HELLO_ACK", XLFT_T_HELLO_ACK, XLFT_HELLO_ACK_SIZE, false,
      FIELDS(XLFT_HELLO_ACK_FIELDS) },
    { WIRE_MD, "LOG", XLFT_T_LOG, XLFT_LOG_HDR_SIZE, true,
      FIELDS(XLFT_LOG_FIELDS) },
    { WIRE_MD, "ACK", XLFT_T_ACK, XLFT_ACK_SIZE, false,
      FIELDS(XLFT_ACK_FIELDS) },
    { WIRE_MD, "HEARTBEAT", XLFT_T_HEARTBEAT, XLFT_HEARTBEAT_SIZE, false,
      FIELDS(XLFT_HEARTBEAT_FIELDS) },
    { WIRE_MD, "STATE", XLFT_T_STATE, XLFT_STATE_HDR_SIZE, true,
      FIELDS(XLFT_STATE_FIELDS) },
    { WIRE_MD, "GOLIVE", XLFT_T_GOLIVE, XLFT_GOLIVE_SIZE, false,
      FIELDS(XLFT_GOLIVE_FIELDS) },
    { WIRE_MD, "SHUTDOWN", XLFT_T_SHUTDOWN, XLFT_SHUTDOWN_SIZE, false,
      FIELDS(XLFT_SHUTDOWN_FIELDS) },
    { WIRE_MD, "ERROR", XLFT_T_ERROR, XLFT_ERROR_HDR_SIZE, true,
      FIELDS(XLFT_ERROR_FIELDS) },
    { WIRE_MD, "state header", 0, SYNC_HDR, true,
      FIELDS(SYNC_HDR_FIELDS) },
    { WIRE_MD, "copy header", 0, XLFT_COPY_HDR_SIZE, true,
      FIELDS(XLFT_COPY_HDR_FIELDS) },
    { WIRE_MD, "copy devices", 0, XLFT_COPY_DEV_SIZE, true,
      FIELDS(XLFT_COPY_DEV_FIELDS) },
    { WIRE_MD, "copy reply", 0, XLFT_COPY_REPLY_SIZE, false,
      FIELDS(XLFT_COPY_REPLY_FIELDS) },
    { FORMAT_MD, "file header", 0, XLFT_LOGFILE_HDR_SIZE, false,
      FIELDS(XLFT_LOGFILE_HDR_FIELDS) },
    { FORMAT_MD, "block header", 0, XLFT_LOGBLOCK_HDR_SIZE, true,
      FIELDS(XLFT_LOGBLOCK_HDR_FIELDS) },
};

#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

/* A document's lines, with whether each is inside a fenced block (the
 * fences themselves are not). */
struct doc {
    char **line;
    bool *fenced;
    size_t n;
};

/* From the source tree, whether run from it or from tests/unit. */
static bool doc_read(const char *rel, struct doc *d)
{
    char path[256], buf[1024];
    bool fence = false;
    FILE *f;

    snprintf(path, sizeof(path), "../../%s", rel);
    f = fopen(path, "r");
    if (!f)
        f = fopen(rel, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s from here or ../..\n", rel);
        return false;
    }
    memset(d, 0, sizeof(*d));
    while (fgets(buf, sizeof(buf), f)) {
        bool marker = !strncmp(buf, "```", 3);

        buf[strcspn(buf, "\n")] = '\0';
        if (marker)
            fence = !fence;
        d->line = realloc(d->line, (d->n + 1) * sizeof(*d->line));
        d->fenced = realloc(d->fenced, (d->n + 1) * sizeof(*d->fenced));
        CU_ASSERT_FATAL(d->line && d->fenced);
        d->line[d->n] = strdup(buf);
        d->fenced[d->n++] = fence && !marker;
    }
    fclose(f);
    return true;
}

static void doc_free(struct doc *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->line[i]);
    free(d->line);
    free(d->fenced);
}

static const char *skip_blanks(const char *s)
{
    while (*s == ' ')
        s++;
    return s;
}

/* Where 'l' is drawn in 'd', its title line; -1 (said) if not once. */
static long find_title(const struct doc *d, const struct layout *l)
{
    size_t tlen = strlen(l->title);
    long at = -1;

    for (size_t i = 0; i < d->n; i++) {
        const char *s = skip_blanks(d->line[i]);

        if (!d->fenced[i] || strncmp(s, l->title, tlen) ||
            strncmp(s + tlen, ", ", 2))
            continue;
        if (at >= 0) {
            fprintf(stderr, "%s: \"%s\" drawn twice, lines %ld and %zu\n",
                    l->doc, l->title, at + 1, i + 1);
            return -1;
        }
        at = (long)i;
    }
    if (at < 0)
        fprintf(stderr, "%s: no table \"%s, N bytes\"\n", l->doc, l->title);
    return at;
}

/* 0 if the table of 'l' in 'd' is its list; else -1, said on stderr. */
static int check_table(const struct doc *d, const struct layout *l)
{
    long at = find_title(d, l);
    const char *s;
    char *end;
    size_t i = 0;
    bool ended = false;

    if (at < 0)
        return -1;
    s = skip_blanks(d->line[at]) + strlen(l->title) + 2;
    if (strtoul(s, &end, 10) != l->size || strncmp(end, " bytes", 6)) {
        fprintf(stderr, "%s:%ld: %s is %u bytes, not \"%s\"\n", l->doc,
                at + 1, l->title, l->size, s);
        return -1;
    }
    for (size_t k = (size_t)at + 1; k < d->n && d->fenced[k]; k++) {
        const char *row = skip_blanks(d->line[k]);
        unsigned long off, size;

        if (!*row)
            break;
        if (!isdigit((unsigned char)*row))
            continue;                   /* more of the meaning above */
        off = strtoul(row, &end, 10);
        row = skip_blanks(end);
        if (ended) {
            fprintf(stderr, "%s:%zu: a field after the end of %s\n",
                    l->doc, k + 1, l->title);
            return -1;
        }
        if (!isdigit((unsigned char)*row)) {
            if (!l->tail) {
                fprintf(stderr, "%s:%zu: in the code, nothing follows "
                        "%s\n", l->doc, k + 1, l->title);
                return -1;
            }
            if (off != l->size || i != l->nfields) {
                fprintf(stderr, "%s:%zu: what follows %s at %lu, after "
                        "%zu fields; the code's at %u, after %zu\n",
                        l->doc, k + 1, l->title, off, i, l->size,
                        l->nfields);
                return -1;
            }
            ended = true;
            continue;
        }
        size = strtoul(row, &end, 10);
        if (i == l->nfields) {
            fprintf(stderr, "%s:%zu: %s has a field at %lu the code has "
                    "not\n", l->doc, k + 1, l->title, off);
            return -1;
        }
        if (off != l->fields[i].off || size != l->fields[i].size) {
            fprintf(stderr, "%s:%zu: %s field %zu at %lu, %lu bytes; the "
                    "code's, %s, at %u, %u bytes\n", l->doc, k + 1,
                    l->title, i + 1, off, size, l->fields[i].name,
                    l->fields[i].off, l->fields[i].size);
            return -1;
        }
        i++;
    }
    if (i != l->nfields || ended != l->tail) {
        fprintf(stderr, "%s: %s has %zu of %zu fields%s\n", l->doc,
                l->title, i, l->nfields,
                ended != l->tail ? ", or its tail is missing" : "");
        return -1;
    }
    return 0;
}

static void test_tables(void)
{
    struct doc wire, format;
    size_t ok = 0;

    CU_ASSERT_FATAL(doc_read(WIRE_MD, &wire));
    CU_ASSERT_FATAL(doc_read(FORMAT_MD, &format));
    for (size_t i = 0; i < NLAYOUTS; i++) {
        const struct layout *l = &layouts[i];

        if (!check_table(strcmp(l->doc, WIRE_MD) ? &format : &wire, l))
            ok++;
    }
    CU_ASSERT_EQUAL(ok, NLAYOUTS);
    doc_free(&wire);
    doc_free(&format);
}

/* WIRE.md's table of frames: "| type | name | direction | N bytes..." */
static void test_types(void)
{
    bool seen[XLFT_T_MAX + 1] = { false };
    struct doc wire;
    unsigned int nseen = 0;

    CU_ASSERT_FATAL(doc_read(WIRE_MD, &wire));
    for (size_t i = 0; i < wire.n; i++) {
        char name[32], *cell, *end;
        unsigned long type, size;
        const struct layout *l = NULL;

        if (wire.fenced[i] || strncmp(wire.line[i], "| ", 2) ||
            !isdigit((unsigned char)wire.line[i][2]))
            continue;
        type = strtoul(wire.line[i] + 2, &end, 10);
        cell = strrchr(end, '|');
        while (cell && cell > end && *--cell != '|')
            ;
        if (sscanf(end, " | %31[A-Z_] |", name) != 1 || !cell ||
            cell == end) {
            fprintf(stderr, "%s:%zu: not a row of the table of frames\n",
                    WIRE_MD, i + 1);
            CU_FAIL("a row of WIRE.md's table of frames is not one");
            continue;
        }
        /* The last cell: the payload's size, or its fixed part's. */
        size = strtoul(skip_blanks(cell + 1), NULL, 10);
        for (size_t k = 0; k < NLAYOUTS; k++)
            if (layouts[k].type == type && type)
                l = &layouts[k];
        if (!l || strcmp(name, xlft_type_name((unsigned int)type)) ||
            size != l->size || seen[type]) {
            fprintf(stderr, "%s:%zu: type %lu %s of %lu bytes; the code "
                    "has %s of %u\n", WIRE_MD, i + 1, type, name, size,
                    xlft_type_name((unsigned int)type), l ? l->size : 0);
            CU_FAIL("WIRE.md's table of frames differs from the code");
            continue;
        }
        seen[type] = true;
        nseen++;
    }
    CU_ASSERT_EQUAL(nseen, XLFT_T_MAX);
    doc_free(&wire);
}

void register_layout_tests(void)
{
    CU_pSuite s = CU_add_suite("layouts: the documents' tables", NULL, NULL);

    CU_add_test(s, "WIRE.md and FORMAT.md draw the code's lists of fields",
                test_tables);
    CU_add_test(s, "WIRE.md's table of frames: numbers, names, sizes",
                test_types);
}
