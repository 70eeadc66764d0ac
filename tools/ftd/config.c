// SPDX-License-Identifier: GPL-2.0-only
/*
 * config.c - /etc/xen/ft.conf: "key = value" lines, '#' comments, and
 * "[guest NAME]" sections for the guests this host may protect or
 * run a copy of, with the hosts each may be paired with.  Every
 * mistake is refused with the line it is on; an unknown key is named
 * with the key it was probably meant to be.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "config.h"

enum kind { K_STR, K_BOOLENC, K_U32, K_U64 };

struct key {
    const char *name;
    enum kind kind;
    size_t off, size;           /* K_STR: field and its size */
    uint64_t min, max;
};

#define STR(n, f) { n, K_STR, offsetof(struct ftd_config, f), \
                    sizeof(((struct ftd_config *)0)->f), 0, 0 }
#define NUM(n, k, f, lo, hi) { n, k, offsetof(struct ftd_config, f), 0, \
                               lo, hi }

static const struct key host_keys[] = {
    STR("host-name", host_name),
    STR("listen", listen),
    STR("key", key),
    STR("arbiter", arbiter),
    NUM("encryption", K_BOOLENC, encrypt, 0, 1),
    NUM("heartbeat-ms", K_U32, heartbeat_ms, 1, 10000),
    NUM("timeout-ms", K_U32, timeout_ms, 3, 600000),
    NUM("ring-bytes", K_U32, ring_bytes, 131072, 1u << 30),
    NUM("buffer-mib", K_U32, buffer_mib, 1, 4096),
    NUM("lag-limit-us", K_U64, lag_limit_us, 1, UINT32_MAX),
    STR("run-dir", run_dir),
    STR("ftvm", ftvm),
    STR("backend", backend),
    STR("counter", counter),
    STR("metrics-file", metrics_file),
};

static const char *const guest_keys[] = { "disk", "net", "mem", "peers",
                                          "key", "xen-config" };

bool ftd_name_ok(const char *s)
{
    size_t n = strlen(s);

    if (!n || n > FTD_NAME_MAX || s[0] == '.')
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' &&
            *s != '.')
            return false;
    return true;
}

/* Edit distance, for "did you mean". */
static unsigned int distance(const char *a, const char *b)
{
    unsigned int d[32][32];
    size_t la = strlen(a), lb = strlen(b);

    if (la >= 32 || lb >= 32)
        return 99;
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (unsigned int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (unsigned int)j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            unsigned int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            unsigned int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;

            d[i][j] = sub < del ? (sub < ins ? sub : ins)
                                : (del < ins ? del : ins);
        }
    }
    return d[la][lb];
}

static const char *closest(const char *word, bool in_guest)
{
    const char *best = NULL;
    unsigned int bd = 3;        /* beyond two edits it is no typo */
    size_t n = in_guest ? sizeof(guest_keys) / sizeof(guest_keys[0])
                        : sizeof(host_keys) / sizeof(host_keys[0]);

    for (size_t i = 0; i < n; i++) {
        const char *k = in_guest ? guest_keys[i] : host_keys[i].name;
        unsigned int d = distance(word, k);

        if (d < bd) {
            bd = d;
            best = k;
        }
    }
    return best;
}

static char *trim(char *s)
{
    char *e;

    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static bool parse_num(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;

    if (!isdigit((unsigned char)*v))
        return false;
    errno = 0;
    *out = strtoull(v, &end, 10);
    return !*end && !errno && *out >= lo && *out <= hi;
}

static int set_host(struct ftd_config *c, const char *k, const char *v,
                    char *why, size_t len)
{
    for (size_t i = 0; i < sizeof(host_keys) / sizeof(host_keys[0]); i++) {
        const struct key *d = &host_keys[i];
        char *field = (char *)c + d->off;
        uint64_t n;

        if (strcmp(k, d->name))
            continue;
        switch (d->kind) {
        case K_STR:
            if (strlen(v) >= d->size) {
                snprintf(why, len, "%s: at most %zu characters", k,
                         d->size - 1);
                return -EINVAL;
            }
            strcpy(field, v);
            return 0;
        case K_BOOLENC:
            if (strcmp(v, "required") && strcmp(v, "disabled")) {
                snprintf(why, len, "encryption is 'required' or "
                         "'disabled' (for measurement only), not '%s'", v);
                return -EINVAL;
            }
            *(bool *)field = !strcmp(v, "required");
            return 0;
        case K_U32:
        case K_U64:
            if (!parse_num(v, d->min, d->max, &n)) {
                snprintf(why, len, "%s wants a whole number from %llu to "
                         "%llu, not '%s'", k, (unsigned long long)d->min,
                         (unsigned long long)d->max, v);
                return -EINVAL;
            }
            if (d->kind == K_U32)
                *(uint32_t *)field = (uint32_t)n;
            else
                *(uint64_t *)field = n;
            return 0;
        }
    }
    return -ENOENT;
}

/* "hostB, hostC": names, apart by commas (and blanks), each once. */
static int set_peers(struct ftd_guest *g, const char *v, char *why,
                     size_t len)
{
    char list[1024], *save = NULL;

    if (g->npeers) {
        snprintf(why, len, "peers given twice for guest %s; name every "
                 "host on one line", g->name);
        return -EINVAL;
    }
    snprintf(list, sizeof(list), "%s", v);
    for (char *t = strtok_r(list, ", \t", &save); t;
         t = strtok_r(NULL, ", \t", &save)) {
        if (!ftd_name_ok(t)) {
            snprintf(why, len, "peers: '%.64s' is not a host name "
                     "(letters, digits, '-', '_', '.')", t);
            return -EINVAL;
        }
        for (unsigned int i = 0; i < g->npeers; i++) {
            if (!strcmp(g->peers[i], t)) {
                snprintf(why, len, "peers: %s named twice", t);
                return -EINVAL;
            }
        }
        if (g->npeers == FTD_PEERS_MAX) {
            snprintf(why, len, "peers: more than %d hosts", FTD_PEERS_MAX);
            return -EINVAL;
        }
        strcpy(g->peers[g->npeers++], t);
    }
    if (!g->npeers) {
        snprintf(why, len, "peers names no host");
        return -EINVAL;
    }
    return 0;
}

static int set_guest(struct ftd_guest *g, const char *k, const char *v,
                     char *why, size_t len)
{
    uint64_t n;

    if (!strcmp(k, "peers"))
        return set_peers(g, v, why, len);
    if (!strcmp(k, "key")) {
        if (strlen(v) >= sizeof(g->key)) {
            snprintf(why, len, "key: at most %zu characters",
                     sizeof(g->key) - 1);
            return -EINVAL;
        }
        strcpy(g->key, v);
        return 0;
    }

    if (!strcmp(k, "disk") || !strcmp(k, "net") ||
        !strcmp(k, "xen-config")) {
        char *field = !strcmp(k, "disk") ? g->disk :
                      !strcmp(k, "net") ? g->net : g->xen_config;
        size_t size = !strcmp(k, "disk") ? sizeof(g->disk) :
                      !strcmp(k, "net") ? sizeof(g->net)
                                        : sizeof(g->xen_config);

        if (strlen(v) >= size) {
            snprintf(why, len, "%s: at most %zu characters", k, size - 1);
            return -EINVAL;
        }
        strcpy(field, v);
        return 0;
    }
    if (!strcmp(k, "mem")) {
        if (!parse_num(v, 2, 1024, &n)) {
            snprintf(why, len, "mem wants MiB from 2 to 1024, not '%s'", v);
            return -EINVAL;
        }
        g->mem_mib = (uint32_t)n;
        return 0;
    }
    return -ENOENT;
}

static void defaults(struct ftd_config *c)
{
    memset(c, 0, sizeof(*c));
    if (gethostname(c->host_name, sizeof(c->host_name)) ||
        !ftd_name_ok(c->host_name))
        strcpy(c->host_name, "localhost");
    strcpy(c->listen, "0.0.0.0:7800");
    strcpy(c->key, "/etc/xen/ft.key");
    strcpy(c->run_dir, "/run/xenft");
    strcpy(c->ftvm, "ftvm");
    strcpy(c->backend, BACKEND_DEFAULT);
    strcpy(c->counter, "auto");
    c->encrypt = true;
}

int ftd_config_load(struct ftd_config *c, const char *path, char *err,
                    size_t errlen)
{
    FILE *f = fopen(path, "r");
    struct ftd_guest *g = NULL;
    char line[1024], why[300];
    unsigned int no = 0;
    int rc = 0;

    defaults(c);
    if (!f) {
        rc = -errno;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return rc;
    }
    while (fgets(line, sizeof(line), f)) {
        char *s, *eq, *k, *v;

        no++;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(why, sizeof(why), "line longer than %zu characters",
                     sizeof(line) - 2);
            rc = -EINVAL;
            break;
        }
        s = trim(line);
        if (!*s || *s == '#')
            continue;
        if (*s == '[') {
            char name[FTD_NAME_MAX + 2];
            char tail;

            if (sscanf(s, "[guest %65[^] ]]%c", name, &tail) != 1 ||
                !ftd_name_ok(name)) {
                snprintf(why, sizeof(why), "a section is [guest NAME], "
                         "NAME of letters, digits, '-', '_' and '.'");
                rc = -EINVAL;
                break;
            }
            if (ftd_config_guest(c, name)) {
                snprintf(why, sizeof(why), "guest %s twice", name);
                rc = -EINVAL;
                break;
            }
            if (c->nguests == FTD_GUESTS_MAX) {
                snprintf(why, sizeof(why), "more than %d guests",
                         FTD_GUESTS_MAX);
                rc = -EINVAL;
                break;
            }
            g = &c->guests[c->nguests++];
            strcpy(g->name, name);
            continue;
        }
        eq = strchr(s, '=');
        if (!eq) {
            snprintf(why, sizeof(why), "expected 'key = value' or "
                     "'[guest NAME]'");
            rc = -EINVAL;
            break;
        }
        *eq = '\0';
        k = trim(s);
        v = trim(eq + 1);
        if (!*v) {
            snprintf(why, sizeof(why), "%s has no value", k);
            rc = -EINVAL;
            break;
        }
        rc = g ? set_guest(g, k, v, why, sizeof(why))
               : set_host(c, k, v, why, sizeof(why));
        if (rc == -ENOENT) {
            const char *near = closest(k, g != NULL);

            snprintf(why, sizeof(why), "unknown key '%s'%s%s%s%s", k,
                     near ? " (did you mean '" : "", near ? near : "",
                     near ? "'?)" : "", g ? " in a guest section" : "");
            rc = -EINVAL;
        }
        if (rc)
            break;
    }
    if (!rc && ferror(f)) {
        snprintf(why, sizeof(why), "read error");
        rc = -EIO;
    }
    fclose(f);
    if (rc) {
        snprintf(err, errlen, "%s:%u: %s", path, no, why);
        return rc;
    }
    if (!c->arbiter[0]) {
        snprintf(err, errlen, "%s: no arbiter (arbiter = file:DIR or "
                 "etcd:URL): without one, nobody may go live", path);
        return -EINVAL;
    }
    if (!ftd_name_ok(c->host_name)) {
        snprintf(err, errlen, "%s: host-name '%s' is not a name", path,
                 c->host_name);
        return -EINVAL;
    }
    if (!backend_named(c->backend)) {
        snprintf(err, errlen, "%s: backend '%s': ftvm or xen", path,
                 c->backend);
        return -EINVAL;
    }
    if (backend_counter_named(c->counter, &c->counter_flags)) {
        snprintf(err, errlen, "%s: counter '%s': auto, branches or steps",
                 path, c->counter);
        return -EINVAL;
    }
    if (c->counter_flags && strcmp(c->backend, "xen")) {
        snprintf(err, errlen, "%s: counter '%s': only with backend = xen "
                 "(ftvm counts every instruction itself)", path, c->counter);
        return -EINVAL;
    }
    if (c->timeout_ms && c->heartbeat_ms &&
        c->timeout_ms < 3ull * c->heartbeat_ms) {
        snprintf(err, errlen, "%s: timeout-ms must be at least three "
                 "heartbeats (%u)", path, 3 * c->heartbeat_ms);
        return -EINVAL;
    }
    for (unsigned int i = 0; i < c->nguests; i++) {
        const struct ftd_guest *gi = &c->guests[i];

        for (unsigned int j = 0; j < gi->npeers; j++) {
            if (strcmp(gi->peers[j], c->host_name))
                continue;
            snprintf(err, errlen, "%s: guest %s: peers names this host "
                     "(%s): a guest is paired with another host", path,
                     gi->name, c->host_name);
            return -EINVAL;
        }
    }
    return 0;
}

int ftd_config_peer_ok(const struct ftd_config *c, const char *name,
                       const char *peer, char *why, size_t len)
{
    const struct ftd_guest *g = ftd_config_guest(c, name);
    char list[FTD_PEERS_MAX * (FTD_NAME_MAX + 2)] = "";

    if (!g) {
        snprintf(why, len, "guest %s: not configured on this host (no "
                 "[guest %s] section with peers= in ft.conf)", name, name);
        return -ECONNREFUSED;
    }
    /* No line is no door: an upgraded host pairs nothing until told. */
    if (!g->npeers) {
        snprintf(why, len, "guest %s has no peers= line in this host's "
                 "ft.conf: no host may be paired with it", name);
        return -ECONNREFUSED;
    }
    if (!peer)
        return 0;
    for (unsigned int i = 0; i < g->npeers; i++) {
        if (!strcmp(g->peers[i], peer))
            return 0;
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
                 i ? ", " : "", g->peers[i]);
    }
    snprintf(why, len, "host %s is not among the peers of guest %s in this "
             "host's ft.conf (peers = %s)", peer, name, list);
    return -ECONNREFUSED;
}

const char *ftd_config_key(const struct ftd_config *c, const char *name)
{
    const struct ftd_guest *g = ftd_config_guest(c, name);

    return g && g->key[0] ? g->key : c->key;
}

const struct ftd_guest *ftd_config_guest(const struct ftd_config *c,
                                         const char *name)
{
    for (unsigned int i = 0; i < c->nguests; i++)
        if (!strcmp(c->guests[i].name, name))
            return &c->guests[i];
    return NULL;
}
