// SPDX-License-Identifier: GPL-2.0-only
/*
 * create.c - `xl-ft check` and `xl-ft create` (create.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "create.h"
#include "xlft_dm_spawn.h"
#include "xlft_xen_cfg_file.h"

static int check(const char *cfg, struct xlft_xen_cfg_file *f)
{
    char err[8192];
    int rc = xlft_xen_cfg_file_check(cfg, f, err, sizeof(err));

    if (rc == -EINVAL)
        fprintf(stderr, "xl-ft: %s is not fit for FT; change:\n%s\n", cfg,
                err);
    else if (rc)
        fprintf(stderr, "xl-ft: %s\n", err);
    return rc ? 1 : 0;
}

int create_check(const char *cfg)
{
    struct xlft_xen_cfg_file f;

    if (check(cfg, &f))
        return 1;
    printf("xl-ft: %s is fit for FT (guest %s; ftdm: %s%s%s%s)\n", cfg,
           f.name, f.tap[0] ? "network on tap " : "no network",
           f.tap, f.disk[0] ? ", disk " : ", no disk", f.disk);
    return 0;
}

/*
 * Run 'argv' (a program on PATH) and wait: its exit status, or -1 if it
 * could not run or was killed.  Its standard output into 'out' when
 * given (at most 'len' - 1 bytes kept).
 */
static int run(char *const argv[], char *out, size_t len)
{
    int p[2] = { -1, -1 }, status;
    size_t used = 0;
    pid_t pid;

    if (out && pipe2(p, O_CLOEXEC))
        return -1;
    pid = fork();
    if (pid == 0) {
        if (out)
            dup2(p[1], 1);
        execvp(argv[0], argv);
        fprintf(stderr, "xl-ft: cannot run %s: %s\n", argv[0],
                strerror(errno));
        _exit(127);
    }
    if (out) {
        close(p[1]);
        while (pid > 0) {
            ssize_t n = read(p[0], out + used, len - 1 - used);

            if (n <= 0 && !(n < 0 && errno == EINTR))
                break;
            if (n > 0)
                used += (size_t)n;
            if (used == len - 1)
                break;
        }
        out[used] = '\0';
        close(p[0]);
    }
    if (pid < 0)
        return -1;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void show_log(const char *log)
{
    char line[1024];
    FILE *f = fopen(log, "r");

    while (f && fgets(line, sizeof(line), f))
        fprintf(stderr, "  %s", line);
    if (f)
        fclose(f);
}

int create_run(const char *cfg)
{
    struct xlft_xen_cfg_file f;
    char domid[32] = "", log[PATH_MAX];
    char *xl_create[] = { "xl", "create", "-p", (char *)cfg, NULL };
    char *xl_domid[] = { "xl", "domid", f.name, NULL };
    char *xl_unpause[] = { "xl", "unpause", domid, NULL };
    char *xl_destroy[] = { "xl", "destroy", f.name, NULL };
    char err[1024];
    unsigned long id;
    pid_t dm = -1;
    char *end;
    int rc = 1;

    if (check(cfg, &f))
        return 1;
    if (run(xl_create, NULL, 0)) {
        fprintf(stderr, "xl-ft: xl create -p %s failed: nothing made\n",
                cfg);
        return 1;
    }
    if (run(xl_domid, domid, sizeof(domid)) || !domid[0]) {
        fprintf(stderr, "xl-ft: guest %s was created, but xl does not "
                "say its domain\n", f.name);
        goto out;
    }
    domid[strcspn(domid, "\n")] = '\0';
    id = strtoul(domid, &end, 10);
    if (*end || !domid[0] || id >= 0x7ff0) {
        fprintf(stderr, "xl-ft: xl domid %s said '%s'\n", f.name, domid);
        goto out;
    }
    xlft_dm_log_path(f.name, log, sizeof(log));
    dm = xlft_dm_spawn(&f, (uint32_t)id, NULL, log, err, sizeof(err));
    if (dm < 0) {
        fprintf(stderr, "xl-ft: %s (guest %s); its log:\n", err, f.name);
        show_log(log);
        goto out;
    }
    if (run(xl_unpause, NULL, 0)) {
        fprintf(stderr, "xl-ft: domain %s (%s): xl unpause failed\n",
                domid, f.name);
        goto out;
    }
    printf("xl-ft: guest %s is domain %s, running; ftdm (pid %ld) serves "
           "its devices, its log %s\n", f.name, domid, (long)dm, log);
    rc = 0;
out:
    if (rc) {
        /* Nothing half made is left: ftdm would end with the domain. */
        if (dm > 0)
            kill(dm, SIGTERM);
        if (run(xl_destroy, NULL, 0))
            fprintf(stderr, "xl-ft: cannot destroy guest %s: do it with "
                    "xl destroy %s\n", f.name, f.name);
        else
            fprintf(stderr, "xl-ft: guest %s destroyed\n", f.name);
    }
    return rc;
}
