// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - `ftvm run`: run a guest on the software HVM, recording its
 * inputs into a log or replaying them from one; `ftvm selftest`.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "ftvm.h"
#include "xlft_trace.h"

static const char usage[] =
    "usage: ftvm run (--guest FILE [--cmdline TEXT] [--timer-hz HZ]\n"
    "                 | --restore SNAPSHOT) [--save SNAPSHOT]\n"
    "                [--record LOG | --replay LOG]\n"
    "                [--insns N | --seconds S] [--mem MIB]\n"
    "                [--console FILE|-|none] [--sync-every S]\n"
    "                [--disk FILE] [--net tap:NAME|udp:LPORT:PPORT]\n"
    "       ftvm serve --control SOCKET\n"
    "                 (--guest FILE [--cmdline TEXT] [--timer-hz HZ]\n"
    "                  | --restore SNAPSHOT | --incoming) [--paused]\n"
    "                 [--mem MIB] [--console FILE|-|none] [--sync-every S]\n"
    "                 [--disk FILE] [--net tap:NAME|udp:LPORT:PPORT]\n"
    "       ftvm selftest\n"
    "\n"
    "Runs a guest image (multiboot, as built in build/guests) on one\n"
    "x86 vCPU.  --record writes every non-deterministic input into LOG;\n"
    "--replay runs the guest again from LOG alone and stops where the\n"
    "recording stopped.  Prints insns=<count> and state-hash=<hex>.\n"
    "serve runs the guest under the control socket that ftd drives\n"
    "(tools/libxlft/FTVMCTL.md) until told to stop.\n"
    "A guest that powers off (ACPI, DEVICES.md) ends the run, as does\n"
    "one that halts with interrupts disabled; a replay ends alike.\n"
    "Exit status: 0 done (or the guest powered off), 1 error, 2 usage,\n"
    "3 divergence, 4 bad log, 5 halted (serve), 6 the guest halted with\n"
    "interrupts disabled.\n";

static struct ftvm *volatile running;

static void on_signal(int sig)
{
    (void)sig;
    if (running) {
        __atomic_store_n(&running->stop_requested, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&running->kick, 1, __ATOMIC_RELAXED);
    }
}

static int bad_usage(const char *what)
{
    fprintf(stderr, "ftvm: %s\n\n%s", what, usage);
    return FTVM_EXIT_USAGE;
}

static bool number(const char *s, uint64_t *v)
{
    char *end;

    if (*s < '0' || *s > '9')
        return false;       /* strtoull takes spaces and signs; we do not */
    errno = 0;
    *v = strtoull(s, &end, 10);
    return !*end && !errno;
}

/* Seconds, decimals allowed, as milliseconds. */
static bool duration(const char *s, uint64_t *ms)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (!*s || *end || errno || !(v > 0) || v > 86400)
        return false;
    *ms = (uint64_t)(v * 1000 + 0.5);
    return *ms > 0;
}

/* The guest's command line: --cmdline, and hz= from --timer-hz. */
static bool guest_cmdline(char *cmd, size_t len, const char *cmdline,
                          uint64_t hz)
{
    int n = hz ? snprintf(cmd, len, "%s%shz=%" PRIu64, cmdline,
                          *cmdline ? " " : "", hz)
               : snprintf(cmd, len, "%s", cmdline);

    return n >= 0 && (size_t)n < len;
}

/* Self-test, a vCPU with 'mem' MiB, and its console: 0, or said why. */
static int start(struct ftvm *vm, uint64_t mem, const char *console)
{
    char msg[160];

    if (ftvm_selftest(msg, sizeof(msg))) {
        fprintf(stderr, "ftvm: %s\n", msg);
        return -1;
    }
    if (ftvm_create(vm, (uint32_t)mem)) {
        fprintf(stderr, "ftvm: %s\n", vm->why[0] ? vm->why :
                "out of memory for the guest's RAM");
        return -1;
    }
    if (!strcmp(console, "-")) {
        vm->console = stdout;
    } else if (strcmp(console, "none")) {
        vm->console = fopen(console, "w");
        if (!vm->console) {
            fprintf(stderr, "ftvm: cannot write %s: %s\n", console,
                    strerror(errno));
            ftvm_destroy(vm);
            return -1;
        }
    }
    return 0;
}

/* What run and serve both take: the guest, its devices and its clock. */
#define GUEST_OPTIONS \
    { "guest", required_argument, NULL, 'g' }, \
    { "cmdline", required_argument, NULL, 'c' }, \
    { "timer-hz", required_argument, NULL, 'z' }, \
    { "restore", required_argument, NULL, 'R' }, \
    { "mem", required_argument, NULL, 'm' }, \
    { "console", required_argument, NULL, 'o' }, \
    { "sync-every", required_argument, NULL, 'y' }, \
    { "disk", required_argument, NULL, 'd' }, \
    { "net", required_argument, NULL, 'e' }

struct guest_opts {
    const char *guest, *cmdline, *restore, *console, *disk, *net;
    uint64_t hz, mem, sync_ms;
};

#define GUEST_OPTS_DEFAULT \
    { .cmdline = "", .console = "-", .mem = 16, .sync_ms = 250 }

/*
 * Option 'c' of GUEST_OPTIONS into 'o': 0, a usage error's status, or
 * -1 if 'c' is none of them.
 */
static int guest_opt(int c, const char *arg, struct guest_opts *o)
{
    switch (c) {
    case 'g': o->guest = arg; break;
    case 'c': o->cmdline = arg; break;
    case 'R': o->restore = arg; break;
    case 'o': o->console = arg; break;
    case 'd': o->disk = arg; break;
    case 'e': o->net = arg; break;
    case 'z':
        if (!number(arg, &o->hz) || o->hz < 19 || o->hz > 100000)
            return bad_usage("--timer-hz wants a rate from 19 to 100000");
        break;
    case 'y':
        if (!duration(arg, &o->sync_ms))
            return bad_usage("--sync-every wants seconds (decimals "
                             "allowed)");
        break;
    case 'm':
        if (!number(arg, &o->mem) || o->mem < 2 || o->mem > 1024)
            return bad_usage("--mem wants MiB from 2 to 1024");
        break;
    default:
        return -1;
    }
    return 0;
}

/* The guest, as 'o' says, into a started 'vm', with its devices. */
static int guest_open(struct ftvm *vm, const struct guest_opts *o,
                      const char *cmd)
{
    int rc = o->restore ? ftvm_snapshot_restore(vm, o->restore)
             : o->guest ? ftvm_load(vm, o->guest, cmd) : 0;

    if (!rc && o->disk)
        rc = disk_open(vm, o->disk);
    if (!rc && o->net)
        rc = nic_open(vm, o->net);
    return rc;
}

/* A run that did not fail: where it ended, and its exit status. */
static int ended(struct ftvm *vm)
{
    printf("insns=%" PRIu64 "\nstate-hash=%016" PRIx64 "\n", vm->count,
           ftvm_state_hash(vm));
    if (vm->end)
        fprintf(stderr, "ftvm: %s\n", vm->why);
    return ftvm_end_status(vm);
}

static int run(int argc, char **argv)
{
    static const struct option opts[] = {
        GUEST_OPTIONS,
        { "record", required_argument, NULL, 'r' },
        { "replay", required_argument, NULL, 'p' },
        { "insns", required_argument, NULL, 'n' },
        { "seconds", required_argument, NULL, 's' },
        { "save", required_argument, NULL, 'S' },
        { NULL, 0, NULL, 0 },
    };
    struct guest_opts o = GUEST_OPTS_DEFAULT;
    const char *record = NULL, *replay = NULL, *save = NULL;
    uint64_t insns = 0, millis = 0;
    char cmd[1024];
    struct ftvm vm;
    int c, rc;

    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'r': record = optarg; break;
        case 'p': replay = optarg; break;
        case 'S': save = optarg; break;
        case 'n':
            if (!number(optarg, &insns) || !insns)
                return bad_usage("--insns wants a positive count");
            break;
        case 's':
            if (!duration(optarg, &millis))
                return bad_usage("--seconds wants a positive number "
                                 "(decimals allowed, at most 86400)");
            break;
        default:
            rc = guest_opt(c, optarg, &o);
            if (rc)
                return rc < 0 ? bad_usage("unknown option") : rc;
        }
    }
    if (optind != argc)
        return bad_usage("unexpected argument");
    if (!o.guest == !o.restore)
        return bad_usage("say what to run: --guest FILE or --restore "
                         "SNAPSHOT");
    if (o.restore && (*o.cmdline || o.hz))
        return bad_usage("a snapshot has its command line in it: no "
                         "--cmdline or --timer-hz with --restore");
    if (record && replay)
        return bad_usage("--record and --replay exclude each other");
    if (insns && millis)
        return bad_usage("--insns and --seconds exclude each other");
    if (replay && (insns || millis))
        return bad_usage("a replay stops where its log stops: no --insns "
                         "or --seconds");
    if (replay && (o.disk || o.net))
        return bad_usage("a replay takes what its devices received from "
                         "the log: no --disk or --net");
    if (!replay && !insns && !millis)
        return bad_usage("say how long to run: --insns N or --seconds S");

    if (!guest_cmdline(cmd, sizeof(cmd), o.cmdline, o.hz))
        return bad_usage("--cmdline: the guest command line is limited to "
                         "1023 bytes");

    if (start(&vm, o.mem, o.console))
        return FTVM_EXIT_ERROR;

    rc = guest_open(&vm, &o, cmd);
    if (!rc && record)
        rc = ftvm_ft_record(&vm, record);
    else if (!rc && replay)
        rc = ftvm_ft_replay(&vm, replay);
    if (rc) {
        fprintf(stderr, "ftvm: %s\n", vm.why);
        rc = rc > 0 ? rc : FTVM_EXIT_ERROR;
        goto out;
    }
    if (record) {
        /* The log starts with the state it applies to: replaying it on
         * another guest or command line fails at its first record. */
        struct ft_log_rec r = { .kind = FT_K_SYNC, .pt = ftvm_point(&vm) };

        r.u.sync.hash = ftvm_state_hash(&vm);
        ftvm_ft_append(&vm, &r);
    }

    vm.sync_ns = o.sync_ms * 1000000ull;
    running = &vm;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    /* A console reader that goes away must not cost the log its end. */
    signal(SIGPIPE, SIG_IGN);
    if (!vm.status)
        ftvm_run(&vm, insns, millis);
    running = NULL;
    rc = ftvm_ft_finish(&vm);
    if (!rc && save && vm.end == FTVM_END_POWEROFF) {
        snprintf(vm.why, sizeof(vm.why), "the guest has powered off: no "
                 "state to go on from, nothing saved in %s", save);
        rc = vm.status = FTVM_EXIT_ERROR;
    } else if (!rc && save && ftvm_snapshot_save(&vm, save)) {
        rc = vm.status = FTVM_EXIT_ERROR;
    }
    if (vm.console)
        fflush(vm.console);
    if (rc) {
        fprintf(stderr, "ftvm: %s%s\n", vm.why,
                rc == FTVM_EXIT_DIVERGED && vm.mode == FTVM_REPLAY &&
                ft_replay_diag(&vm.rp)->seq == 1 ?
                " (not the guest image, command line or --mem it was "
                "recorded with?)" : "");
    } else {
        rc = ended(&vm);
    }
out:
    if (vm.console && vm.console != stdout)
        fclose(vm.console);
    ftvm_destroy(&vm);
    return rc;
}

static int serve(int argc, char **argv)
{
    static const struct option opts[] = {
        GUEST_OPTIONS,
        { "control", required_argument, NULL, 'C' },
        { "incoming", no_argument, NULL, 'I' },
        { "paused", no_argument, NULL, 'P' },
        { NULL, 0, NULL, 0 },
    };
    struct guest_opts o = GUEST_OPTS_DEFAULT;
    const char *control = NULL;
    bool incoming = false, paused = false;
    char cmd[1024];
    struct ftvm vm;
    int c, rc;

    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'C': control = optarg; break;
        case 'I': incoming = true; break;
        case 'P': paused = true; break;
        default:
            rc = guest_opt(c, optarg, &o);
            if (rc)
                return rc < 0 ? bad_usage("unknown option") : rc;
        }
    }
    if (optind != argc)
        return bad_usage("unexpected argument");
    if (!control)
        return bad_usage("serve needs --control SOCKET");
    if (!!o.guest + !!o.restore + incoming != 1)
        return bad_usage("say what to run: --guest FILE, --restore "
                         "SNAPSHOT, or --incoming (a snapshot comes "
                         "through the control socket)");
    if (!o.guest && (*o.cmdline || o.hz))
        return bad_usage("--cmdline and --timer-hz go with --guest");
    if (!guest_cmdline(cmd, sizeof(cmd), o.cmdline, o.hz))
        return bad_usage("--cmdline: the guest command line is limited to "
                         "1023 bytes");

    if (start(&vm, o.mem, o.console))
        return FTVM_EXIT_ERROR;
    /* Console bytes reach a reader as they come, not a buffer later. */
    if (vm.console)
        setvbuf(vm.console, NULL, _IOLBF, 0);

    rc = guest_open(&vm, &o, cmd);
    if (!rc)
        rc = ftvm_ctl_open(&vm, control);
    if (rc) {
        fprintf(stderr, "ftvm: %s\n", vm.why);
        rc = FTVM_EXIT_ERROR;
        goto out;
    }
    vm.ram_loaded = !incoming;
    vm.paused = paused || incoming;
    vm.sync_ns = o.sync_ms * 1000000ull;
    running = &vm;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);
    rc = ftvm_serve(&vm);
    running = NULL;
    ftvm_ctl_close(&vm);
    if (vm.console)
        fflush(vm.console);
    if (rc)
        fprintf(stderr, "ftvm: %s\n", vm.why);
    else
        rc = ended(&vm);
out:
    if (vm.console && vm.console != stdout)
        fclose(vm.console);
    ftvm_destroy(&vm);
    return rc;
}

int main(int argc, char **argv)
{
    char msg[256];

    if (argc >= 2 && !strcmp(argv[1], "run"))
        return run(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "serve")) {
        xlft_trace_start("ftvm");
        return serve(argc - 1, argv + 1);
    }
    if (argc == 2 && !strcmp(argv[1], "selftest")) {
        if (ftvm_selftest(msg, sizeof(msg))) {
            fprintf(stderr, "ftvm: %s\n", msg);
            return FTVM_EXIT_ERROR;
        }
        printf("ftvm: self-test passed\n");
        return 0;
    }
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return 0;
    }
    return bad_usage(argc < 2 ? "no command" : "unknown command");
}
