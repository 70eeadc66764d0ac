// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm_spawn.c - ftdm started for a domain (xlft_dm_spawn.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "xlft_dm_spawn.h"

#define SERVE_POLL_MS   100

void xlft_dm_log_path(const char *name, char *path, size_t len)
{
    struct stat st;

    snprintf(path, len, "%s/ftdm-%s.log",
             !stat("/var/log/xen", &st) && S_ISDIR(st.st_mode)
             ? "/var/log/xen" : "/var/log", name);
}

/* ftdm beside this program if it is there, else on PATH. */
static void ftdm_path(char *path, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    char *slash;

    snprintf(path, len, "ftdm");
    if (n <= 0)
        return;
    self[n] = '\0';
    slash = strrchr(self, '/');
    if (!slash)
        return;
    *slash = '\0';
    if ((size_t)snprintf(path, len, "%s/ftdm", self) < len &&
        !access(path, X_OK))
        return;
    snprintf(path, len, "ftdm");
}

static pid_t start(const struct xlft_xen_cfg_file *f, const char *domid,
                   const char *copy_state, const char *log)
{
    char prog[PATH_MAX];
    const char *argv[14];
    int n = 0, fd;
    pid_t pid;

    ftdm_path(prog, sizeof(prog));
    argv[n++] = prog;
    if (f->tap[0]) {
        argv[n++] = "--tap";
        argv[n++] = f->tap;
    }
    if (f->bridge[0]) {
        argv[n++] = "--bridge";
        argv[n++] = f->bridge;
    }
    if (f->mac[0]) {
        argv[n++] = "--mac";
        argv[n++] = f->mac;
    }
    if (f->disk[0]) {
        argv[n++] = "--disk";
        argv[n++] = f->disk;
    }
    if (copy_state) {
        argv[n++] = "--copy";
        argv[n++] = copy_state;
    }
    argv[n++] = domid;
    argv[n] = NULL;
    /*
     * Emptied here, before ftdm exists: a line of an earlier run must
     * not pass for this one's.
     */
    fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
    if (fd < 0)
        return -1;
    pid = fork();
    if (pid) {
        close(fd);
        return pid;
    }
    setsid();
    dup2(fd, 1);
    dup2(fd, 2);
    fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd >= 0)
        dup2(fd, 0);
    execvp(prog, (char *const *)argv);
    fprintf(stderr, "cannot run %s: %s\n", prog, strerror(errno));
    _exit(127);
}

/* Whether 'log' has ftdm's line saying it serves; its last line kept. */
static bool serving(const char *log, char *last, size_t len)
{
    char line[1024];
    FILE *f = fopen(log, "r");
    bool yes = false;

    if (!f)
        return false;
    while (!yes && fgets(line, sizeof(line), f)) {
        yes = strstr(line, "; serving") != NULL;
        line[strcspn(line, "\n")] = '\0';
        if (line[0])
            snprintf(last, len, "%.400s", line);
    }
    fclose(f);
    return yes;
}

pid_t xlft_dm_spawn(const struct xlft_xen_cfg_file *f, uint32_t domid,
                    const char *copy_state, const char *log, char *err,
                    size_t errlen)
{
    const struct timespec pause = { 0, SERVE_POLL_MS * 1000000L };
    char id[16], last[512] = "nothing";
    pid_t pid;

    snprintf(id, sizeof(id), "%u", domid);
    pid = start(f, id, copy_state, log);
    if (pid < 0) {
        snprintf(err, errlen, "domain %u: cannot start ftdm (its log %s): "
                 "%s", domid, log, strerror(errno));
        return -1;
    }
    for (int waited = 0; waited < XLFT_DM_SERVE_MS;
         waited += SERVE_POLL_MS) {
        if (serving(log, last, sizeof(last)))
            return pid;
        if (waitpid(pid, NULL, WNOHANG) == pid) {
            serving(log, last, sizeof(last));
            snprintf(err, errlen, "domain %u: ftdm ended without serving "
                     "its devices; its log %s ends: %s", domid, log, last);
            return -1;
        }
        nanosleep(&pause, NULL);
    }
    /* Nothing half made is left: ftdm would serve a guest given up. */
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    snprintf(err, errlen, "domain %u: ftdm did not serve its devices "
             "within %d s (killed); its log %s ends: %s", domid,
             XLFT_DM_SERVE_MS / 1000, log, last);
    return -1;
}
