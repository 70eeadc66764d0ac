// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftd.c - the fault-tolerance daemon:
 *
 *   ftd [--config FILE]      the per-host service (service.c), driven by
 *                            xl-ft; settings in FILE (/etc/xen/ft.conf)
 *   ftd primary   --pair NAME --guest SOCKET --peer HOST:PORT OPTIONS
 *   ftd secondary --pair NAME --guest SOCKET --listen ADDR:PORT OPTIONS
 *                            one pair, set up by hand
 *
 * With --backend ftvm (the default) the primary's guest runs under
 * `ftvm serve --control SOCKET`; the secondary's waits under `ftvm serve
 * --incoming --control SOCKET`.  With --backend xen the guest is a Xen
 * domain (name or id) and the secondary's copy is created by the restore.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include "config.h"
#include "net.h"
#include "pair.h"
#include "service.h"
#include "xlft_crypto.h"
#include "xlft_trace.h"

static const char usage[] =
    "usage: ftd [--config FILE]     (the service; default /etc/xen/ft.conf)\n"
    "       ftd primary --pair NAME --guest GUEST --peer HOST:PORT\n"
    "                   --key FILE --arbiter SPEC [OPTIONS]\n"
    "       ftd secondary --pair NAME --guest GUEST --listen ADDR:PORT\n"
    "                   --key FILE --arbiter SPEC [OPTIONS]\n"
    "options: --backend ftvm|xen GUEST is ftvm's control socket (default),\n"
    "                            or a Xen domain; a Xen secondary takes no\n"
    "                            --guest: the copy creates it\n"
    "         --xen-config FILE  a Xen secondary: the guest's xl config on\n"
    "                            this host; the primary's must agree with\n"
    "                            it on what runs in dom0\n"
    "         --host-name NAME   this host, to its peer and the arbiter\n"
    "                            (default: its host name)\n"
    "         --peer-name NAME   the host the peer must prove it is\n"
    "                            (default: any but this one)\n"
    "         --encryption required|disabled   (default required)\n"
    "         --heartbeat MS --timeout MS      (default 50, 300)\n"
    "         --ring BYTES       each shared ring (default 1 MiB)\n"
    "         --buffer MIB       secondary: log held ahead (default 64)\n"
    "         --lag-limit US     slow the guest down while the secondary\n"
    "                            lags more than this\n"
    "         --counter auto|branches|steps   xen: what the log counts\n"
    "                            (default auto: branches on Intel, steps\n"
    "                            on AMD); both hosts must say the same\n"
    "         --unsafe-no-counter   xen, test hypervisors only: record on\n"
    "                            a CPU without a branch counter (the log\n"
    "                            cannot be replayed exactly)\n"
    "Exit status: 0 the pair ended (orderly, live or halted), 1 error,\n"
    "2 usage.\n";

struct run {
    struct event_base *base;
    const char *copy_config;    /* --xen-config */
    int err;
    char why[600];
};

static int bad_usage(const char *what)
{
    fprintf(stderr, "ftd: %s\n\n%s", what, usage);
    return 2;
}

/*
 * A secondary given no guest: its copy is what --xen-config allows,
 * whatever its name (backend.h, args_ok).
 */
static int copy_from(void *arg, const char *name, char *cfg, size_t len,
                     char *why, size_t whylen)
{
    const struct run *run = arg;

    if (strlen(run->copy_config) >= len) {
        snprintf(why, whylen, "guest %s: --xen-config: a path of at most "
                 "%zu characters", name, len - 1);
        return -ENAMETOOLONG;
    }
    strcpy(cfg, run->copy_config);
    return 0;
}

static void on_end(void *arg, int err, const char *why)
{
    struct run *r = arg;

    r->err = err;
    snprintf(r->why, sizeof(r->why), "%s", why);
    event_base_loopexit(r->base, NULL);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    struct run *r = arg;

    (void)what;
    r->err = -EINTR;
    snprintf(r->why, sizeof(r->why), "stopped by signal %d", (int)sig);
    event_base_loopexit(r->base, NULL);
}

/* Listen on ADDR:PORT and take the first connection. */
static int answer(const char *spec, char *peer, char *why, size_t len)
{
    int lfd = ftd_listen(spec, 1, why, len), fd;

    if (lfd < 0)
        return -1;
    printf("ftd: listening on %s\n", spec);
    fflush(stdout);
    fd = ftd_accept(lfd, peer);
    if (fd < 0)
        snprintf(why, len, "accept on %s: %s", spec, strerror(errno));
    close(lfd);
    return fd;
}

static bool number(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
    char *end;

    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return !*end && !errno && *v >= min && *v <= max;
}

/* The per-host service. */
static int service(int argc, char **argv)
{
    const char *path = "/etc/xen/ft.conf";
    static struct ftd_config cfg;
    struct event_base *base;
    struct event *sigs[2];
    struct run run = { 0 };
    char why[600];
    int rc;

    if (argc == 3 && !strcmp(argv[1], "--config"))
        path = argv[2];
    else if (argc != 1)
        return bad_usage("the service takes --config FILE only");
    if (ftd_config_load(&cfg, path, why, sizeof(why))) {
        fprintf(stderr, "ftd: %s\n", why);
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    xlft_trace_start("ftd");
    base = event_base_new();
    if (!base) {
        fprintf(stderr, "ftd: cannot set up the event loop\n");
        return 1;
    }
    run.base = base;
    sigs[0] = evsignal_new(base, SIGTERM, on_signal, &run);
    sigs[1] = evsignal_new(base, SIGINT, on_signal, &run);
    evsignal_add(sigs[0], NULL);
    evsignal_add(sigs[1], NULL);
    rc = service_run(&cfg, base, why, sizeof(why));
    if (rc)
        fprintf(stderr, "ftd: %s\n", why);
    else
        fprintf(stderr, "ftd: %s\n", run.why);
    event_free(sigs[0]);
    event_free(sigs[1]);
    event_base_free(base);
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "pair", required_argument, NULL, 'p' },
        { "guest", required_argument, NULL, 'g' },
        { "peer", required_argument, NULL, 'P' },
        { "listen", required_argument, NULL, 'l' },
        { "key", required_argument, NULL, 'k' },
        { "arbiter", required_argument, NULL, 'a' },
        { "host-name", required_argument, NULL, 'H' },
        { "peer-name", required_argument, NULL, 'N' },
        { "encryption", required_argument, NULL, 'e' },
        { "heartbeat", required_argument, NULL, 'b' },
        { "timeout", required_argument, NULL, 't' },
        { "ring", required_argument, NULL, 'r' },
        { "buffer", required_argument, NULL, 'B' },
        { "lag-limit", required_argument, NULL, 'L' },
        { "backend", required_argument, NULL, 'X' },
        { "unsafe-no-counter", no_argument, NULL, 'U' },
        { "counter", required_argument, NULL, 'C' },
        { "xen-config", required_argument, NULL, 'x' },
        { NULL, 0, NULL, 0 },
    };
    const char *peer_spec = NULL, *listen_spec = NULL, *key_path = NULL;
    struct pair_cfg cfg = { .encrypt = true,
                            .backend = backend_named(BACKEND_DEFAULT) };
    struct backend_args args;
    uint8_t key[XLFT_KEY_SIZE];
    char me[256], peer[FTD_PEER_MAX], why[600], line[400];
    struct run run = { 0 };
    struct event *sigs[2];
    struct pair *p;
    unsigned int counter;
    uint64_t v;
    int c, fd;

    if (argc == 2 && !strcmp(argv[1], "--help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc < 2 || (strcmp(argv[1], "primary") &&
                     strcmp(argv[1], "secondary")))
        return service(argc, argv);
    cfg.role = !strcmp(argv[1], "primary") ? PAIR_PRIMARY : PAIR_SECONDARY;
    if (gethostname(me, sizeof(me)) || !ftd_name_ok(me))
        snprintf(me, sizeof(me), "localhost");
    cfg.me = me;
    optind = 2;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'p': cfg.name = optarg; break;
        case 'g': cfg.guest = optarg; break;
        case 'P': peer_spec = optarg; break;
        case 'l': listen_spec = optarg; break;
        case 'k': key_path = optarg; break;
        case 'a': cfg.arbiter = optarg; break;
        case 'H': cfg.me = optarg; break;
        case 'N': cfg.peer_name = optarg; break;
        case 'x': run.copy_config = optarg; break;
        case 'U':
            cfg.backend_flags |= BACKEND_F_UNSAFE_NO_COUNTER;
            break;
        case 'C':
            if (backend_counter_named(optarg, &counter))
                return bad_usage("--counter: auto, branches or steps");
            cfg.backend_flags = (cfg.backend_flags & ~BACKEND_F_COUNTER) |
                                counter;
            break;
        case 'X':
            cfg.backend = backend_named(optarg);
            if (!cfg.backend)
                return bad_usage("--backend: ftvm or xen");
            break;
        case 'e':
            if (strcmp(optarg, "required") && strcmp(optarg, "disabled"))
                return bad_usage("--encryption: required or disabled");
            cfg.encrypt = !strcmp(optarg, "required");
            break;
        case 'b':
            if (!number(optarg, 1, 10000, &v))
                return bad_usage("--heartbeat: milliseconds, 1 to 10000");
            cfg.hb.interval_ms = (uint32_t)v;
            break;
        case 't':
            if (!number(optarg, 3, 600000, &v))
                return bad_usage("--timeout: milliseconds, 3 to 600000");
            cfg.hb.timeout_ms = (uint32_t)v;
            break;
        case 'r':
            if (!number(optarg, 1, 1u << 30, &v))
                return bad_usage("--ring: bytes, a power of two from "
                                 "131072 to 1073741824");
            cfg.ring_data = (uint32_t)v;
            break;
        case 'B':
            if (!number(optarg, 1, 4096, &v))
                return bad_usage("--buffer: MiB, 1 to 4096");
            cfg.buffer_max = (size_t)v << 20;
            break;
        case 'L':
            if (!number(optarg, 1, UINT32_MAX, &v))
                return bad_usage("--lag-limit: microseconds");
            cfg.lag_limit_us = v;
            break;
        default:
            return bad_usage("unknown option");
        }
    }
    if (optind != argc)
        return bad_usage("unexpected argument");
    args = (struct backend_args){
        .secondary = cfg.role == PAIR_SECONDARY, .guest = cfg.guest,
        .copy_config = run.copy_config, .flags = cfg.backend_flags,
    };
    if (cfg.backend->args_ok(&args, why, sizeof(why)))
        return bad_usage(why);
    if (!cfg.guest)
        cfg.resolve = copy_from;
    if (!cfg.name || !key_path || !cfg.arbiter)
        return bad_usage("--pair, --key and --arbiter are needed");
    if (!ftd_name_ok(cfg.name) || !ftd_name_ok(cfg.me) ||
        (cfg.peer_name && !ftd_name_ok(cfg.peer_name)))
        return bad_usage("--pair, --host-name and --peer-name are names: "
                         "letters, digits, '-', '_' and '.'");
    if (cfg.peer_name && !strcmp(cfg.peer_name, cfg.me))
        return bad_usage("--peer-name is this host's own name");
    if (cfg.role == PAIR_PRIMARY ? !peer_spec || listen_spec
                                 : !listen_spec || peer_spec)
        return bad_usage("a primary names its --peer, a secondary where "
                         "to --listen");
    if (xlft_key_load(key_path, key, why, sizeof(why))) {
        fprintf(stderr, "ftd: %s\n", why);
        return 1;
    }
    cfg.key = key;

    signal(SIGPIPE, SIG_IGN);
    fd = cfg.role == PAIR_PRIMARY ? ftd_dial(peer_spec, NULL, 10000, why,
                                             sizeof(why))
                                  : answer(listen_spec, peer, why,
                                           sizeof(why));
    if (fd < 0) {
        fprintf(stderr, "ftd: %s %s: %s\n", argv[1], cfg.name, why);
        return 1;
    }
    cfg.peer = cfg.role == PAIR_PRIMARY ? peer_spec : peer;
    xlft_trace_start("ftd");
    run.base = event_base_new();
    if (!run.base) {
        fprintf(stderr, "ftd: cannot set up the event loop\n");
        close(fd);
        return 1;
    }
    cfg.base = run.base;
    cfg.fd = fd;
    cfg.on_end = on_end;
    cfg.arg = &run;
    if (pair_start(&p, &cfg, why, sizeof(why))) {
        fprintf(stderr, "ftd: %s %s: %s\n", argv[1], cfg.name, why);
        event_base_free(run.base);
        return 1;
    }
    sigs[0] = evsignal_new(run.base, SIGTERM, on_signal, &run);
    sigs[1] = evsignal_new(run.base, SIGINT, on_signal, &run);
    evsignal_add(sigs[0], NULL);
    evsignal_add(sigs[1], NULL);
    event_base_dispatch(run.base);
    /* What the pair said last reaches the peer before ftd goes. */
    while (pair_closing(p) && !event_base_loop(run.base, EVLOOP_ONCE))
        ;

    pair_status(p, line, sizeof(line));
    printf("ftd: %s\nftd: %s\n", line, run.why);
    pair_free(p);
    event_free(sigs[0]);
    event_free(sigs[1]);
    event_base_free(run.base);
    return run.err && run.err != -EINTR ? 1 : 0;
}
