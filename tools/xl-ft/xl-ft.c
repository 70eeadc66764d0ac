// SPDX-License-Identifier: GPL-2.0-only
/*
 * xl-ft.c - the command line of fault tolerance, what `xl ft-enable`,
 * `ft-disable`, `ft-status` and `ft-failover` hand over to: it asks the
 * host's ftd over its control socket and prints the answer.
 *
 *   xl-ft [--socket PATH] ft-enable GUEST HOST[:PORT]
 *   xl-ft [--socket PATH] ft-disable GUEST
 *   xl-ft [--socket PATH] ft-failover GUEST
 *   xl-ft [--socket PATH] ft-status [--json] [--watch [--count N]] [GUEST]
 *   xl-ft check CFG
 *   xl-ft create CFG
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "create.h"
#include "ctl.h"
#include "status.h"

static const char usage[] =
    "usage: xl-ft [--socket PATH] ft-enable GUEST HOST[:PORT]\n"
    "       xl-ft [--socket PATH] ft-disable GUEST\n"
    "       xl-ft [--socket PATH] ft-failover GUEST\n"
    "       xl-ft [--socket PATH] ft-status [--json] [--watch [--count N]]"
    " [GUEST]\n"
    "       xl-ft check CFG\n"
    "       xl-ft create CFG\n"
    "Asks this host's ftd (default socket /run/xenft/ftd.sock); check\n"
    "and create read an xl configuration and make the guest with ftdm.\n"
    "Exit status: 0 done, 1 refused or ftd unreachable, 2 usage.\n";

static int bad_usage(const char *what)
{
    if (what)
        fprintf(stderr, "xl-ft: %s\n", what);
    fputs(usage, stderr);
    return 2;
}

static int status_args(const char *socket, int argc, char **argv)
{
    struct status_opts o = { .socket = socket };

    for (int i = 0; i < argc; i++) {
        char *end;

        if (!strcmp(argv[i], "--json")) {
            o.json = true;
        } else if (!strcmp(argv[i], "--watch")) {
            o.watch = true;
        } else if (!strcmp(argv[i], "--count")) {
            if (++i == argc)
                return bad_usage("--count needs a number");
            o.count = strtol(argv[i], &end, 10);
            if (*end || end == argv[i] || o.count < 1)
                return bad_usage("--count takes a number of refreshes, 1 "
                                 "or more");
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "xl-ft: ft-status: unknown option %s\n",
                    argv[i]);
            return bad_usage(NULL);
        } else if (!o.guest) {
            o.guest = argv[i];
        } else {
            return bad_usage("ft-status takes one guest at most");
        }
    }
    if (o.count && !o.watch)
        return bad_usage("--count is for --watch");
    if (o.guest && strlen(o.guest) > 200)
        return bad_usage("guest name too long");
    return status_run(&o);
}

int main(int argc, char **argv)
{
    const char *path = "/run/xenft/ftd.sock";
    char req[512], why[300], *ans;
    int n, i = 1, rc;

    if (argc == 2 && !strcmp(argv[1], "--help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "check"))
        return create_check(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "create"))
        return create_run(argv[2]);
    if (argc > 2 && !strcmp(argv[1], "--socket")) {
        path = argv[2];
        i = 3;
    }
    if (i < argc && !strcmp(argv[i], "ft-status"))
        return status_args(path, argc - i - 1, argv + i + 1);
    if (i < argc && !strcmp(argv[i], "ft-enable") && argc - i == 3)
        n = snprintf(req, sizeof(req), "enable %s %s\n", argv[i + 1],
                     argv[i + 2]);
    else if (i < argc && !strcmp(argv[i], "ft-disable") && argc - i == 2)
        n = snprintf(req, sizeof(req), "disable %s\n", argv[i + 1]);
    else if (i < argc && !strcmp(argv[i], "ft-failover") && argc - i == 2)
        n = snprintf(req, sizeof(req), "failover %s\n", argv[i + 1]);
    else
        return bad_usage(NULL);
    if (n < 0 || (size_t)n >= sizeof(req)) {
        fprintf(stderr, "xl-ft: arguments too long\n");
        return 2;
    }
    if (ctl_ask(path, req, &ans, why, sizeof(why))) {
        fprintf(stderr, "xl-ft: %s\n", why);
        return 1;
    }
    fputs(ans, stdout);
    fflush(stdout);
    rc = ctl_refused(ans);
    free(ans);
    /* Accepted: the copy streams now; show it until it is made. */
    if (!rc && !strcmp(argv[i], "ft-enable"))
        progress_run(path, argv[i + 1]);
    return rc;
}
