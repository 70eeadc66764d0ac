/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config.h - /etc/xen/ft.conf, the settings of ftd on one host (format
 * and every key: config/ft.conf).
 */
#ifndef FTD_CONFIG_H
#define FTD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FTD_NAME_MAX    64
#define FTD_GUESTS_MAX  64
#define FTD_PEERS_MAX   8

/*
 * A guest this host may protect or hold a copy of (as the secondary,
 * ftd starts it itself), and the hosts it may be paired with.
 */
struct ftd_guest {
    char name[FTD_NAME_MAX + 1];
    char disk[256];             /* --disk of its ftvm, "" for none */
    char net[64];               /* --net of its ftvm, "" for none */
    uint32_t mem_mib;           /* 0: ftvm's default */
    char peers[FTD_PEERS_MAX][FTD_NAME_MAX + 1];
    unsigned int npeers;        /* 0: no peers line, no pairing at all */
    char key[256];              /* its own key file, "" for the host's */
    char xen_config[256];       /* xen: its xl config here, "" for none */
};

struct ftd_config {
    char host_name[FTD_NAME_MAX + 1];
    char listen[128];           /* ADDR:PORT for secondaries */
    char key[256];              /* the pre-shared key file */
    char arbiter[300];
    bool encrypt;
    uint32_t heartbeat_ms, timeout_ms;
    uint32_t ring_bytes;
    uint32_t buffer_mib;
    uint64_t lag_limit_us;
    char run_dir[200];          /* sockets, consoles: <dir>/<guest>.* */
    char ftvm[256];             /* the ftvm program */
    char backend[8];            /* backend_named()'s (backend.h) */
    char counter[12];           /* backend_counter_named()'s */
    unsigned int counter_flags; /* its BACKEND_F_COUNTER bits */
    char metrics_file[256];     /* Prometheus textfile, "" for none */
    struct ftd_guest guests[FTD_GUESTS_MAX];
    unsigned int nguests;
};

/*
 * Read 'path' into 'c' (defaults first).  0, or -errno with 'err'
 * naming the file, the line and what is wrong with it.
 */
int ftd_config_load(struct ftd_config *c, const char *path, char *err,
                    size_t errlen);

/* The guest called 'name', or NULL. */
const struct ftd_guest *ftd_config_guest(const struct ftd_config *c,
                                         const char *name);

/*
 * May guest 'name' be paired with host 'peer' (NULL: with any host its
 * section names)?  0, or -ECONNREFUSED with 'why' saying what ft.conf
 * lacks.
 */
int ftd_config_peer_ok(const struct ftd_config *c, const char *name,
                       const char *peer, char *why, size_t len);

/* The key file of guest 'name': its own, or the host's. */
const char *ftd_config_key(const struct ftd_config *c, const char *name);

/* A pair or guest name: 1 to FTD_NAME_MAX of [A-Za-z0-9._-], no '.' first. */
bool ftd_name_ok(const char *s);

#endif /* FTD_CONFIG_H */
