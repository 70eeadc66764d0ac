// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_arbiter.c - the file arbiter: one winner per pair and generation,
 * also when two processes race for every generation (arbiter_race(),
 * which the etcd arbiter's tests share); an unreachable or damaged
 * arbiter is an error, never a grant.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xlft_arbiter.h"
#include "unit.h"

static char dir[] = "/tmp/xenft-arb.XXXXXX";
static char spec[64];

static const char *names_other(const char *me)
{
    return strcmp(me, "hostA") ? "hostA" : "hostB";
}

static int suite_init(void)
{
    if (!mkdtemp(dir))
        return -1;
    snprintf(spec, sizeof(spec), "file:%s", dir);
    return 0;
}

static int suite_clean(void)
{
    char cmd[64];

    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_bad_specs(void)
{
    struct xlft_arbiter *a;
    char err[256], longname[100];

    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    ASSERT_RC(xlft_arbiter_open(&a, "", "p", err, sizeof(err)), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "file:DIR"));
    ASSERT_RC(xlft_arbiter_open(&a, "file:", "p", err, sizeof(err)),
              -EINVAL);
    ASSERT_RC(xlft_arbiter_open(&a, "nfs:/x", "p", err, sizeof(err)),
              -EINVAL);
    ASSERT_RC(xlft_arbiter_open(&a, spec, "a/b", err, sizeof(err)), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "a/b"));
    ASSERT_RC(xlft_arbiter_open(&a, spec, ".hidden", err, sizeof(err)),
              -EINVAL);
    ASSERT_RC(xlft_arbiter_open(&a, spec, longname, err, sizeof(err)),
              -EINVAL);
    CU_ASSERT_PTR_NULL(a);
}

static void test_one_winner(void)
{
    struct xlft_arbiter *a;
    char err[256], holder[80];

    ASSERT_RC(xlft_arbiter_open(&a, spec, "dom5", err, sizeof(err)), 0);
    ASSERT_RC(xlft_arbiter_claim(a, 1, "hostA", holder, sizeof(holder), err,
                                 sizeof(err)), 1);
    CU_ASSERT_STRING_EQUAL(holder, "hostA");
    ASSERT_RC(xlft_arbiter_claim(a, 1, "hostB", holder, sizeof(holder), err,
                                 sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(holder, "hostA");
    /* Asking again is harmless: the holder keeps it. */
    ASSERT_RC(xlft_arbiter_claim(a, 1, "hostA", holder, sizeof(holder), err,
                                 sizeof(err)), 1);
    /* A new generation is a new question. */
    ASSERT_RC(xlft_arbiter_claim(a, 2, "hostB", holder, sizeof(holder), err,
                                 sizeof(err)), 1);
    ASSERT_RC(xlft_arbiter_claim(a, 2, "hostA", holder, sizeof(holder), err,
                                 sizeof(err)), 0);
    ASSERT_RC(xlft_arbiter_claim(a, 3, "bad/name", holder, sizeof(holder),
                                 err, sizeof(err)), -EINVAL);
    xlft_arbiter_close(a);
}

static void test_unreachable(void)
{
    struct xlft_arbiter *a;
    char err[256], holder[80];
    int rc;

    ASSERT_RC(xlft_arbiter_open(&a, "file:/nonexistent/xenft-arbiter",
                                "dom5", err, sizeof(err)), 0);
    rc = xlft_arbiter_claim(a, 1, "hostA", holder, sizeof(holder), err,
                            sizeof(err));
    CU_ASSERT(rc < 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unreachable"));
    CU_ASSERT_STRING_EQUAL(holder, "");
    xlft_arbiter_close(a);
}

/* spec for DIR under the suite's directory, made with MODE. */
static void loose_dir(char *out, size_t len, const char *name, mode_t mode)
{
    snprintf(out, len, "%s/%s", dir, name);
    CU_ASSERT_EQUAL_FATAL(mkdir(out, 0755), 0);
    CU_ASSERT_EQUAL_FATAL(chmod(out, mode), 0);
}

/*
 * A directory that others may write in (or replace) could hold a claim
 * put there before ours: refused at open, and at a claim if it became so
 * after the open; never a grant.
 */
static void test_loose_dir(void)
{
    struct xlft_arbiter *a;
    char d[256], s[300], err[512], holder[80];

    loose_dir(d, sizeof(d), "open", 0777);
    snprintf(s, sizeof(s), "file:%s", d);
    ASSERT_RC(xlft_arbiter_open(&a, s, "dom5", err, sizeof(err)), -EPERM);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "mode 0777"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, d));

    loose_dir(d, sizeof(d), "parent", 0777);
    snprintf(s, sizeof(s), "file:%s/arb", d);
    CU_ASSERT_EQUAL_FATAL(mkdir(s + 5, 0700), 0);
    ASSERT_RC(xlft_arbiter_open(&a, s, "dom5", err, sizeof(err)), -EPERM);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "above it"));

    snprintf(d, sizeof(d), "%s/link", dir);
    CU_ASSERT_EQUAL_FATAL(symlink(dir, d), 0);
    snprintf(s, sizeof(s), "file:%s", d);
    ASSERT_RC(xlft_arbiter_open(&a, s, "dom5", err, sizeof(err)), -ELOOP);

    loose_dir(d, sizeof(d), "later", 0755);
    snprintf(s, sizeof(s), "file:%s", d);
    ASSERT_RC(xlft_arbiter_open(&a, s, "dom5", err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(chmod(d, 0777), 0);
    ASSERT_RC(xlft_arbiter_claim(a, 1, "hostA", holder, sizeof(holder), err,
                                 sizeof(err)), -EPERM);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "mode 0777"));
    xlft_arbiter_close(a);
}

static void test_damaged_claim(void)
{
    struct xlft_arbiter *a;
    char err[256], holder[80], path[128];
    FILE *f;

    snprintf(path, sizeof(path), "%s/dom7.9", dir);
    f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("half", f);       /* no newline: a claim cut short */
    fclose(f);
    ASSERT_RC(xlft_arbiter_open(&a, spec, "dom7", err, sizeof(err)), 0);
    ASSERT_RC(xlft_arbiter_claim(a, 9, "hostA", holder, sizeof(holder), err,
                                 sizeof(err)), -EBADMSG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "damaged"));
    xlft_arbiter_close(a);
}

/*
 * Two processes claim the same 1000 generations at once: each one is won
 * exactly once, and both agree on who won it.
 */
#define RACE_GENS 1000

static void claim_all(const char *rspec, const char *pair, const char *me,
                      int fd)
{
    struct xlft_arbiter *a;
    char err[256], holder[80];
    unsigned char won[RACE_GENS];

    if (xlft_arbiter_open(&a, rspec, pair, err, sizeof(err)))
        _exit(2);
    for (int g = 0; g < RACE_GENS; g++) {
        int rc = -EAGAIN;

        /* A claim being settled by the other is asked again, as ftd
         * does; each round is a few requests to the arbiter. */
        for (int t = 0; t < 200 && rc == -EAGAIN; t++)
            rc = xlft_arbiter_claim(a, (uint64_t)g, me, holder,
                                    sizeof(holder), err, sizeof(err));

        if (rc < 0) {
            fprintf(stderr, "race %s: generation %d: %s\n", me, g, err);
            _exit(3);
        }
        won[g] = (unsigned char)rc;
        if (strcmp(holder, rc ? me : names_other(me)))
            _exit(5);
    }
    xlft_arbiter_close(a);
    _exit(write(fd, won, sizeof(won)) == sizeof(won) ? 0 : 4);
}

void arbiter_race(const char *rspec, const char *pair)
{
    unsigned char won[2][RACE_GENS];
    const char *names[2] = { "hostA", "hostB" };
    int fds[2][2], status, both = 0, none = 0;
    pid_t pid[2];

    memset(won, 0, sizeof(won));
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_FATAL(pipe(fds[i]) == 0);
        pid[i] = fork();
        CU_ASSERT_FATAL(pid[i] >= 0);
        if (pid[i] == 0)
            claim_all(rspec, pair, names[i], fds[i][1]);
        close(fds[i][1]);
    }
    for (int i = 0; i < 2; i++) {
        CU_ASSERT(read(fds[i][0], won[i], sizeof(won[i])) ==
                  (ssize_t)sizeof(won[i]));
        close(fds[i][0]);
        CU_ASSERT(waitpid(pid[i], &status, 0) == pid[i]);
        CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    for (int g = 0; g < RACE_GENS; g++) {
        both += won[0][g] && won[1][g];
        none += !won[0][g] && !won[1][g];
    }
    CU_ASSERT_EQUAL(both, 0);
    CU_ASSERT_EQUAL(none, 0);
}

static void test_race(void)
{
    arbiter_race(spec, "race");
}

void register_arbiter_tests(void)
{
    CU_pSuite s = CU_add_suite("arbiter", suite_init, suite_clean);

    CU_add_test(s, "bad specs and names refused", test_bad_specs);
    CU_add_test(s, "one winner per generation", test_one_winner);
    CU_add_test(s, "unreachable storage is never a grant",
                test_unreachable);
    CU_add_test(s, "a damaged claim is an error", test_damaged_claim);
    CU_add_test(s, "a directory others may write is refused",
                test_loose_dir);
    CU_add_test(s, "two processes race for 1000 generations", test_race);
}
