// SPDX-License-Identifier: GPL-2.0-only
/*
 * xen_local.c - this host's configuration of a Xen guest as libxl JSON
 * (xlft_xen_local.h).
 *
 * xl's configuration language is parsed by xl itself (not by libxl), so
 * xl is asked for it: its dry run prints the libxl configuration it
 * would create.  It runs as a child with its output bounded in size and
 * time, so a wedged xl cannot hold the copy for ever.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "xlft_copy.h"
#include "xlft_xen_local.h"

extern char **environ;

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* All of fd, at most XLFT_COPY_CONFIG_MAX bytes, before 'deadline'. */
static int slurp(int fd, long long deadline, char **out, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    int rc = 0;

    if (!buf)
        return -ENOMEM;
    for (;;) {
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        long long left = deadline - now_ms();
        ssize_t r;
        int k;

        if (left <= 0) {
            rc = -ETIMEDOUT;
            break;
        }
        k = poll(&pf, 1, (int)(left > 1000 ? 1000 : left));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            rc = -errno;
            break;
        }
        if (!k)
            continue;
        if (n == cap) {
            char *more;

            if (cap >= XLFT_COPY_CONFIG_MAX) {
                rc = -EFBIG;
                break;
            }
            cap *= 2;
            more = realloc(buf, cap + 1);
            if (!more) {
                rc = -ENOMEM;
                break;
            }
            buf = more;
        }
        r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = -errno;
            break;
        }
        if (!r)
            break;
        n += (size_t)r;
    }
    if (rc) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

/* Run XL's dry run of 'path'; its standard error goes to ours. */
static int dry_run(const char *path, const char *xl, unsigned int timeout_ms,
                   char **json, char *err, size_t errlen)
{
    const char *argv[] = { xl, "create", "--dryrun", "--quiet", "-f", path,
                           NULL };
    long long deadline = now_ms() + timeout_ms;
    posix_spawn_file_actions_t fa;
    int pipefd[2], status, rc, src;
    size_t len = 0;
    pid_t pid;

    if (pipe2(pipefd, O_CLOEXEC)) {
        rc = -errno;
        snprintf(err, errlen, "%s: cannot run %s: %s", path, xl,
                 strerror(errno));
        return rc;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
    rc = -posix_spawnp(&pid, xl, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    if (rc) {
        snprintf(err, errlen, "%s: cannot run %s: %s", path, xl,
                 strerror(-rc));
        close(pipefd[0]);
        return rc;
    }
    src = slurp(pipefd[0], deadline, json, &len);
    close(pipefd[0]);
    if (src)
        kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (src) {
        snprintf(err, errlen, "%s: %s create --dryrun %s", path, xl,
                 src == -ETIMEDOUT ? "took too long: killed" :
                 src == -EFBIG ? "wrote more than a configuration may be" :
                 strerror(-src));
        return src;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        snprintf(err, errlen, "%s: %s create --dryrun failed (%s %d; its "
                 "messages above)", path, xl,
                 WIFEXITED(status) ? "status" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        free(*json);
        *json = NULL;
        return -EINVAL;
    }
    if (!len || memchr(*json, '\0', len)) {
        snprintf(err, errlen, "%s: %s create --dryrun wrote no "
                 "configuration", path, xl);
        free(*json);
        *json = NULL;
        return -EINVAL;
    }
    return 0;
}

int xlft_xen_local_config(const char *path, const char *xl,
                          unsigned int timeout_ms, char **json, char *err,
                          size_t errlen)
{
    struct stat st;
    char *text = NULL;
    size_t len = 0, i;
    int fd, rc;

    *json = NULL;
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        rc = -errno;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return rc;
    }
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s is not a regular file", path);
        close(fd);
        return -EINVAL;
    }
    rc = slurp(fd, now_ms() + (timeout_ms ? timeout_ms : 1), &text, &len);
    close(fd);
    if (rc) {
        snprintf(err, errlen, "cannot read %s: %s", path,
                 rc == -EFBIG ? "longer than 1 MiB" : strerror(-rc));
        return rc;
    }
    for (i = 0; i < len && strchr(" \t\r\n", text[i]); i++)
        ;
    if (i < len && text[i] == '{') {
        if (memchr(text, '\0', len)) {
            snprintf(err, errlen, "%s holds a NUL byte", path);
            free(text);
            return -EINVAL;
        }
        *json = text;
        return 0;
    }
    free(text);
    return dry_run(path, xl ? xl : "xl", timeout_ms, json, err, errlen);
}
