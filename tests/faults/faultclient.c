// SPDX-License-Identifier: GPL-2.0-only
/*
 * faultclient.c - the nemesis suite's client and probes (tests/faults).
 *
 *   faultclient run IP SECONDS TAG SEED STOPFILE IF=HOST...
 *       the workload: writes keys k<n> once each with the value
 *       k<n>.TAG, reads written keys back, one request at a time, until
 *       SECONDS pass or STOPFILE exists;
 *   faultclient read IP SECONDS HISTORY IF=HOST...
 *       reads back every key HISTORY wrote (the final reads), each until
 *       answered or SECONDS pass for all;
 *   faultclient now       CLOCK_MONOTONIC in seconds
 *   faultclient hold SOCK SECONDS
 *       an idle client on a unix socket, for SECONDS
 *   faultclient flood IP SECONDS
 *       full-sized datagrams to IP's port 9, 32 a millisecond at most:
 *       a guest whose log grows fast
 *
 * run and read write their history on stdout, one line per event, with
 * the monotonic time:
 *   inv T ID PUT|GET|READ KEY [VALUE]    a request sent
 *   ok T ID REPLY...                     its answer (OK k, VAL v, NONE k)
 *   fail T ID REPLY...                   refused (ERROR disk, FULL)
 *   unk T ID                             no answer within 300 ms
 *   rx T HOST REPLY...                   a reply frame seen on the link
 *                                        from HOST (interface IF)
 * The rx lines come from an AF_PACKET socket per interface of the
 * client's bridge (one veth per host), so every reply is seen with the
 * host it came from, late ones included.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define KV_PORT     7777
#define REPLY_MS    300
#define KEYS_MAX    450         /* the guest holds 512 */
#define TAPS_MAX    4
#define OP_GAP_MS   40
#define FLOOD_PORT  9           /* discard: the guest serves only 7777 */

struct tap {
    int fd;
    char host[16];
};

static struct tap taps[TAPS_MAX];
static int ntaps;
static int usock = -1;
static uint32_t guest_ip;
static unsigned long next_id;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int usage(void)
{
    fprintf(stderr, "usage: faultclient run IP SECONDS TAG SEED STOPFILE "
            "IF=HOST...\n       faultclient read IP SECONDS HISTORY "
            "IF=HOST...\n       faultclient now\n"
            "       faultclient hold SOCK SECONDS\n"
            "       faultclient flood IP SECONDS\n");
    return 2;
}

static int open_tap(const char *spec)
{
    const char *eq = strchr(spec, '=');
    struct sockaddr_ll sll = { .sll_family = AF_PACKET };
    char ifname[IF_NAMESIZE];
    struct tap *t;

    if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof(ifname) ||
        strlen(eq + 1) >= sizeof(t->host) || !eq[1] || ntaps == TAPS_MAX) {
        fprintf(stderr, "faultclient: '%s': want IF=HOST\n", spec);
        return -EINVAL;
    }
    t = &taps[ntaps];
    memcpy(ifname, spec, (size_t)(eq - spec));
    ifname[eq - spec] = '\0';
    snprintf(t->host, sizeof(t->host), "%s", eq + 1);
    sll.sll_protocol = htons(ETH_P_ALL);
    sll.sll_ifindex = (int)if_nametoindex(ifname);
    if (!sll.sll_ifindex) {
        fprintf(stderr, "faultclient: no interface %s\n", ifname);
        return -ENODEV;
    }
    t->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
    if (t->fd < 0 || bind(t->fd, (struct sockaddr *)&sll, sizeof(sll))) {
        fprintf(stderr, "faultclient: capture on %s: %s\n", ifname,
                strerror(errno));
        return -errno;
    }
    ntaps++;
    return 0;
}

/* One frame from a tap: logged if it is a reply from the guest. */
static void tap_frame(const struct tap *t)
{
    uint8_t f[2048];
    struct sockaddr_ll from;
    socklen_t fl = sizeof(from);
    ssize_t n = recvfrom(t->fd, f, sizeof(f), 0, (struct sockaddr *)&from,
                         &fl);
    const uint8_t *ip = f + 14, *udp;
    uint32_t ihl, src;
    size_t len, plen;

    /* ETH_P_ALL: a bridge port hands IP frames to no other tap. */
    if (n < 14 + 20 + 8 || from.sll_pkttype == PACKET_OUTGOING ||
        f[12] != 0x08 || f[13] != 0x00)
        return;
    ihl = (ip[0] & 15u) * 4;
    memcpy(&src, ip + 12, 4);
    if ((ip[0] >> 4) != 4 || ip[9] != IPPROTO_UDP || src != guest_ip ||
        (size_t)n < 14 + ihl + 8)
        return;
    udp = ip + ihl;
    if ((udp[0] << 8 | udp[1]) != KV_PORT)
        return;
    len = (size_t)(udp[4] << 8 | udp[5]);
    if (len < 8 || 14 + ihl + len > (size_t)n)
        return;
    plen = len - 8;
    printf("rx %.6f %s ", now_s(), t->host);
    for (size_t i = 0; i < plen; i++)
        putchar(udp[8 + i] >= ' ' && udp[8 + i] < 127 ? udp[8 + i] : '?');
    putchar('\n');
}

/* Waits up to 'ms' for a reply on the UDP socket, logging taps meanwhile:
 * the reply's length, 0 on timeout. */
static size_t await(char *buf, size_t size, int ms)
{
    double end = now_s() + ms / 1e3;

    for (;;) {
        struct pollfd p[TAPS_MAX + 1];
        int left = (int)((end - now_s()) * 1e3);
        ssize_t n;

        if (left <= 0)
            return 0;
        for (int i = 0; i < ntaps; i++)
            p[i] = (struct pollfd){ .fd = taps[i].fd, .events = POLLIN };
        p[ntaps] = (struct pollfd){ .fd = usock, .events = POLLIN };
        if (poll(p, (nfds_t)ntaps + 1, left) < 0 && errno != EINTR)
            return 0;
        for (int i = 0; i < ntaps; i++)
            if (p[i].revents & POLLIN)
                tap_frame(&taps[i]);
        if (!(p[ntaps].revents & POLLIN))
            continue;
        n = recv(usock, buf, size - 1, 0);
        if (n > 0) {
            buf[n] = '\0';
            return (size_t)n;
        }
    }
}

/* The answer 'r' is to the request on 'key' (VAL carries KEY.TAG). */
static bool answers(const char *r, const char *op, const char *key)
{
    size_t k = strlen(key);

    if (!strcmp(op, "PUT"))
        return (!strncmp(r, "OK ", 3) && !strcmp(r + 3, key)) ||
               !strcmp(r, "ERROR disk") || !strcmp(r, "FULL");
    if (!strncmp(r, "NONE ", 5))
        return !strcmp(r + 5, key);
    return !strncmp(r, "VAL ", 4) && !strncmp(r + 4, key, k) &&
           r[4 + k] == '.';
}

/* One request and its outcome: 1 answered, 0 refused, -1 unknown. */
static int request(const char *op, const char *key, const char *val)
{
    unsigned long id = ++next_id;
    char req[160], r[256];
    double end;

    if (val)
        snprintf(req, sizeof(req), "PUT %s %s", key, val);
    else
        snprintf(req, sizeof(req), "GET %s", key);
    printf("inv %.6f %lu %s %s%s%s\n", now_s(), id, op, key,
           val ? " " : "", val ? val : "");
    if (send(usock, req, strlen(req), 0) < 0) {
        printf("unk %.6f %lu\n", now_s(), id);
        return -1;
    }
    end = now_s() + REPLY_MS / 1e3;
    for (;;) {
        int left = (int)((end - now_s()) * 1e3);

        if (left <= 0 || !await(r, sizeof(r), left)) {
            printf("unk %.6f %lu\n", now_s(), id);
            return -1;
        }
        if (!answers(r, op, key))
            continue;           /* a late answer: the taps have it */
        if (!strncmp(r, "ERROR", 5) || !strcmp(r, "FULL")) {
            printf("fail %.6f %lu %s\n", now_s(), id, r);
            return 0;
        }
        printf("ok %.6f %lu %s\n", now_s(), id, r);
        return 1;
    }
}

static int open_udp_port(const char *ip, uint16_t port)
{
    struct sockaddr_in sa = { .sin_family = AF_INET,
                              .sin_port = htons(port) };

    if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1) {
        fprintf(stderr, "faultclient: '%s' is not an IPv4 address\n", ip);
        return -EINVAL;
    }
    guest_ip = sa.sin_addr.s_addr;
    usock = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    if (usock < 0 || connect(usock, (struct sockaddr *)&sa, sizeof(sa))) {
        fprintf(stderr, "faultclient: udp to %s: %s\n", ip, strerror(errno));
        return -errno;
    }
    return 0;
}

static int open_udp(const char *ip)
{
    return open_udp_port(ip, KV_PORT);
}

static int open_all(const char *ip, int argc, char **argv)
{
    if (open_udp(ip))
        return -1;
    for (int i = 0; i < argc; i++)
        if (open_tap(argv[i]))
            return -1;
    return 0;
}

static bool parse_secs(const char *s, double *out)
{
    char *end;

    *out = strtod(s, &end);
    if (end == s || *end || *out <= 0 || *out > 3600) {
        fprintf(stderr, "faultclient: '%s' is not a duration in seconds "
                "(0 to 3600)\n", s);
        return false;
    }
    return true;
}

static int cmd_run(int argc, char **argv)
{
    double secs, end;
    unsigned long seed;
    char *e;
    int keys = 0;

    if (argc < 6)
        return usage();
    seed = strtoul(argv[3], &e, 10);
    if (!parse_secs(argv[1], &secs) || *e || e == argv[3]) {
        fprintf(stderr, "faultclient: bad SECONDS or SEED\n");
        return 2;
    }
    if (strlen(argv[2]) > 40 || strchr(argv[2], ' ')) {
        fprintf(stderr, "faultclient: TAG '%s': at most 40 characters, "
                "no spaces\n", argv[2]);
        return 2;
    }
    if (open_all(argv[0], argc - 5, argv + 5))
        return 1;
    srandom((unsigned int)seed);
    end = now_s() + secs;
    while (now_s() < end && access(argv[4], F_OK)) {
        char key[16], val[64], r[256];

        if (keys < KEYS_MAX && (keys < 2 || random() % 3)) {
            snprintf(key, sizeof(key), "k%d", keys);
            snprintf(val, sizeof(val), "%s.%s", key, argv[2]);
            keys++;
            request("PUT", key, val);
        } else {
            snprintf(key, sizeof(key), "k%ld", random() % keys);
            request("GET", key, NULL);
        }
        while (await(r, sizeof(r), OP_GAP_MS))
            ;                   /* late answers: the taps log them */
        fflush(stdout);
    }
    return 0;
}

static int cmd_read(int argc, char **argv)
{
    char line[512], (*keys)[16] = NULL;
    int nkeys = 0, done = 0;
    bool *got = NULL;
    double secs, end;
    FILE *h;

    if (argc < 3 || !parse_secs(argv[1], &secs))
        return usage();
    h = fopen(argv[2], "r");
    if (!h) {
        fprintf(stderr, "faultclient: %s: %s\n", argv[2], strerror(errno));
        return 1;
    }
    keys = calloc(KEYS_MAX, sizeof(*keys));
    got = calloc(KEYS_MAX, sizeof(*got));
    while (keys && got && fgets(line, sizeof(line), h)) {
        char k[16];

        if (sscanf(line, "inv %*s %*s PUT %15s", k) == 1 &&
            nkeys < KEYS_MAX)
            snprintf(keys[nkeys++], sizeof(keys[0]), "%s", k);
    }
    fclose(h);
    if (!keys || !got || open_all(argv[0], argc - 3, argv + 3)) {
        free(keys);
        free(got);
        return 1;
    }
    next_id = 1000000;          /* apart from the workload's ids */
    end = now_s() + secs;
    while (done < nkeys && now_s() < end) {
        for (int i = 0; i < nkeys && now_s() < end; i++) {
            if (got[i])
                continue;
            if (request("READ", keys[i], NULL) > 0) {
                got[i] = true;
                done++;
            }
        }
        fflush(stdout);
    }
    free(keys);
    free(got);
    return 0;
}

/* Full-sized datagrams to a port the guest does not serve: each frame
 * the guest takes is a record in the log, so the log grows fast. */
static int cmd_flood(int argc, char **argv)
{
    char frame[1400];
    double secs, end;
    unsigned long sent = 0;

    if (argc != 2 || !parse_secs(argv[1], &secs))
        return usage();
    if (open_udp_port(argv[0], FLOOD_PORT))
        return 1;
    memset(frame, 'x', sizeof(frame));
    end = now_s() + secs;
    while (now_s() < end) {
        for (int i = 0; i < 32; i++)
            if (send(usock, frame, sizeof(frame), 0) > 0)
                sent++;
        poll(NULL, 0, 1);       /* about 30000 frames a second at most */
    }
    printf("flood: %lu datagrams\n", sent);
    return 0;
}

static int cmd_hold(int argc, char **argv)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    double secs;
    int fd;

    if (argc != 2 || !parse_secs(argv[1], &secs))
        return usage();
    if (strlen(argv[0]) >= sizeof(sa.sun_path)) {
        fprintf(stderr, "faultclient: socket path too long: %s\n", argv[0]);
        return 2;
    }
    strcpy(sa.sun_path, argv[0]);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        fprintf(stderr, "faultclient: %s: %s\n", argv[0], strerror(errno));
        if (fd >= 0)
            close(fd);
        return 1;
    }
    poll(NULL, 0, (int)(secs * 1e3));   /* idle on purpose: the fault */
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    if (!strcmp(argv[1], "now")) {
        printf("%.6f\n", now_s());
        return 0;
    }
    if (!strcmp(argv[1], "run"))
        return cmd_run(argc - 2, argv + 2);
    if (!strcmp(argv[1], "read"))
        return cmd_read(argc - 2, argv + 2);
    if (!strcmp(argv[1], "hold"))
        return cmd_hold(argc - 2, argv + 2);
    if (!strcmp(argv[1], "flood"))
        return cmd_flood(argc - 2, argv + 2);
    fprintf(stderr, "faultclient: unknown command '%s'\n", argv[1]);
    return usage();
}
