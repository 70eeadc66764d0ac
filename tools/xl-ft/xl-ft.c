// SPDX-License-Identifier: GPL-2.0-only
/*
 * xl-ft.c - the command line of fault tolerance, what `xl ft-enable`,
 * `ft-disable`, `ft-status` and `ft-failover` hand over to: it asks the
 * host's ftd over its control socket and prints the answer.
 *
 *   xl-ft [--socket PATH] ft-enable GUEST HOST[:PORT]
 *   xl-ft [--socket PATH] ft-disable GUEST
 *   xl-ft [--socket PATH] ft-failover GUEST
 *   xl-ft [--socket PATH] ft-status [GUEST]
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char usage[] =
    "usage: xl-ft [--socket PATH] ft-enable GUEST HOST[:PORT]\n"
    "       xl-ft [--socket PATH] ft-disable GUEST\n"
    "       xl-ft [--socket PATH] ft-failover GUEST\n"
    "       xl-ft [--socket PATH] ft-status [GUEST]\n"
    "Asks this host's ftd (default socket /run/xenft/ftd.sock).\n"
    "Exit status: 0 done, 1 refused or ftd unreachable, 2 usage.\n";

int main(int argc, char **argv)
{
    const char *path = "/run/xenft/ftd.sock";
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    char req[512], ans[4096];
    size_t got = 0;
    int fd, n, i = 1;

    if (argc > 2 && !strcmp(argv[1], "--socket")) {
        path = argv[2];
        i = 3;
    }
    if (i < argc && !strcmp(argv[i], "ft-enable") && argc - i == 3)
        n = snprintf(req, sizeof(req), "enable %s %s\n", argv[i + 1],
                     argv[i + 2]);
    else if (i < argc && !strcmp(argv[i], "ft-disable") && argc - i == 2)
        n = snprintf(req, sizeof(req), "disable %s\n", argv[i + 1]);
    else if (i < argc && !strcmp(argv[i], "ft-failover") && argc - i == 2)
        n = snprintf(req, sizeof(req), "failover %s\n", argv[i + 1]);
    else if (i < argc && !strcmp(argv[i], "ft-status") && argc - i <= 2)
        n = snprintf(req, sizeof(req), "status%s%s\n", argc - i == 2 ?
                     " " : "", argc - i == 2 ? argv[i + 1] : "");
    else {
        fputs(usage, argc == 2 && !strcmp(argv[1], "--help") ? stdout
                                                              : stderr);
        return argc == 2 && !strcmp(argv[1], "--help") ? 0 : 2;
    }
    if (n < 0 || (size_t)n >= sizeof(req) || strlen(path) >=
        sizeof(sa.sun_path)) {
        fprintf(stderr, "xl-ft: arguments too long\n");
        return 2;
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        fprintf(stderr, "xl-ft: cannot reach ftd at %s: %s%s\n", path,
                strerror(errno), errno == ENOENT || errno == ECONNREFUSED ?
                " (is ftd running on this host?)" : "");
        return 1;
    }
    if (write(fd, req, (size_t)n) != n) {
        fprintf(stderr, "xl-ft: %s: %s\n", path, strerror(errno));
        return 1;
    }
    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        ssize_t r;

        /* ftd answers at once; a connect to a peer takes 5 s at most. */
        if (poll(&p, 1, 15000) != 1) {
            fprintf(stderr, "xl-ft: ftd did not answer\n");
            return 1;
        }
        r = read(fd, ans + got, sizeof(ans) - 1 - got);
        if (r <= 0)
            break;
        got += (size_t)r;
        if (got == sizeof(ans) - 1)
            break;
    }
    close(fd);
    ans[got] = '\0';
    fputs(ans, stdout);
    return !strncmp(ans, "error", 5) ? 1 : 0;
}
