// SPDX-License-Identifier: GPL-2.0-only
/*
 * netgate-test.c - the network gate on real frames.  Run in the network
 * namespace acting as dom0 (made by netgate.sh): the guest's namespace is
 * joined to it by a veth pair whose dom0 end is the "vif", bridged to a
 * peer namespace.  The test opens a UDP socket in the guest and one in
 * the peer (through setns) and checks that what the guest sends reaches
 * the peer only as the gate releases it.
 *
 *   netgate-test routed|bridged GUEST_NS PEER_NS VIF GUEST_IP PEER_IP
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xlft_netgate.h"

#define QUEUE 7
#define MAX_HELD 64
#define PORT 5077
#define N 12
#define FLOOD 3000

static uint64_t position;
static int failures;

/* Evaluates 'cond' once; true if it held. */
#define CHECK(cond, ...) ({                                             \
    bool ok_ = (cond);                                                  \
    if (!ok_) {                                                         \
        fprintf(stderr, "netgate-test: FAIL line %d: ", __LINE__);      \
        fprintf(stderr, __VA_ARGS__);                                   \
        fputc('\n', stderr);                                            \
        failures++;                                                     \
    }                                                                   \
    ok_;                                                                \
})

#define REQUIRE(cond, ...) do {                                         \
    if (!CHECK(cond, __VA_ARGS__))                                      \
        exit(1);                                                        \
} while (0)

static uint64_t read_position(void *opaque)
{
    (void)opaque;
    return position;
}

/* A UDP socket made in namespace 'ns', bound to ip:port (port 0: any). */
static int ns_socket(const char *ns, const char *ip, uint16_t port)
{
    char path[256];
    int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    int nsfd, s, size = 4 << 20;
    struct sockaddr_in sa = { .sin_family = AF_INET,
                              .sin_port = htons(port) };

    snprintf(path, sizeof(path), "/run/netns/%s", ns);
    nsfd = open(path, O_RDONLY | O_CLOEXEC);
    REQUIRE(self >= 0 && nsfd >= 0, "cannot open namespace %s", ns);
    REQUIRE(setns(nsfd, CLONE_NEWNET) == 0, "setns %s: %s", ns,
            strerror(errno));
    s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    REQUIRE(setns(self, CLONE_NEWNET) == 0, "setns back: %s",
            strerror(errno));
    close(nsfd);
    close(self);
    REQUIRE(s >= 0, "socket: %s", strerror(errno));
    setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
    inet_pton(AF_INET, ip, &sa.sin_addr);
    REQUIRE(bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0,
            "bind %s in %s: %s", ip, ns, strerror(errno));
    return s;
}

static struct xlft_netgate_stats stats(struct xlft_netgate *g)
{
    struct xlft_netgate_stats st;

    xlft_netgate_get_stats(g, &st);
    return st;
}

/* Take frames until the gate has received 'want' (2 s at most). */
static void pump(struct xlft_netgate *g, uint64_t want)
{
    for (int i = 0; i < 200 && stats(g).received < want; i++) {
        struct pollfd p = { .fd = xlft_netgate_fd(g), .events = POLLIN };

        if (poll(&p, 1, 10) > 0)
            REQUIRE(xlft_netgate_receive(g) >= 0, "receive failed");
    }
    REQUIRE(stats(g).received == want,
            "the gate received %llu frames, not %llu",
            (unsigned long long)stats(g).received, (unsigned long long)want);
}

static void send_id(int s, unsigned id)
{
    char msg[32];
    int len = snprintf(msg, sizeof(msg), "%u", id);

    REQUIRE(send(s, msg, (size_t)len, 0) == len, "send: %s",
            strerror(errno));
}

/* The next datagram at the peer is 'id' (2 s at most). */
static void expect(int s, unsigned id)
{
    struct pollfd p = { .fd = s, .events = POLLIN };
    char msg[32] = { 0 };
    ssize_t n;

    REQUIRE(poll(&p, 1, 2000) == 1, "datagram %u never arrived", id);
    n = recv(s, msg, sizeof(msg) - 1, 0);
    CHECK(n > 0 && strtoul(msg, NULL, 10) == id,
          "datagram '%s' arrived where %u was due", msg, id);
}

static void expect_none(int s, const char *when)
{
    char msg[32];

    CHECK(recv(s, msg, sizeof(msg), MSG_DONTWAIT) < 0 && errno == EAGAIN,
          "a datagram arrived %s", when);
}

/* The kernel's count of frames queued for our queue, and its drops. */
static void kernel_queue(unsigned *total, unsigned *dropped)
{
    FILE *f = fopen("/proc/net/netfilter/nfnetlink_queue", "r");
    unsigned q, portid, tot, mode, range, drop;

    *total = *dropped = 0;
    REQUIRE(f, "no /proc/net/netfilter/nfnetlink_queue");
    while (fscanf(f, "%u %u %u %u %u %u %*[^\n]", &q, &portid, &tot, &mode,
                  &range, &drop) == 6) {
        if (q == QUEUE) {
            *total = tot;
            *dropped = drop;
        }
    }
    fclose(f);
}

static int table_listed(void)
{
    return system("nft list ruleset 2>/dev/null | grep -q 'table ip "
                  "xenft_q'") == 0;
}

static void test_in_order(struct xlft_netgate *g, int guest, int peer)
{
    unsigned total, dropped;
    uint64_t base = stats(g).received;

    /* Frames 1-3 at record 10, 4-6 at 20, 7-9 at 30, 10-12 at 40. */
    for (unsigned i = 1; i <= N; i++) {
        position = 10 * ((i + 2) / 3);
        send_id(guest, i);
        pump(g, base + i);
    }
    CHECK(stats(g).held == N, "%llu frames held, not %d",
          (unsigned long long)stats(g).held, N);
    kernel_queue(&total, &dropped);
    CHECK(total == N, "the kernel queues %u frames, not %d", total, N);
    expect_none(peer, "before any acknowledgement");

    CHECK(xlft_netgate_release(g, 9) == 0, "released below record 10");
    expect_none(peer, "before its record was acknowledged");
    CHECK(xlft_netgate_release(g, 15) == 3, "release(15) != 3 frames");
    for (unsigned i = 1; i <= 3; i++)
        expect(peer, i);
    kernel_queue(&total, &dropped);
    CHECK(total == N - 3, "the kernel queues %u frames, not %d", total,
          N - 3);
    expect_none(peer, "beyond the acknowledgement");
    CHECK(xlft_netgate_release(g, 25) == 3, "release(25) != 3 frames");
    CHECK(xlft_netgate_release(g, 20) == 0, "acknowledgements went back");
    for (unsigned i = 4; i <= 6; i++)
        expect(peer, i);
    CHECK(xlft_netgate_release(g, 40) == 6, "release(40) != 6 frames");
    for (unsigned i = 7; i <= N; i++)
        expect(peer, i);
    CHECK(stats(g).held == 0, "frames still held");
    kernel_queue(&total, &dropped);
    CHECK(total == 0 && dropped == 0, "kernel: %u queued, %u dropped",
          total, dropped);
}

static void test_open(struct xlft_netgate *g, int guest, int peer)
{
    uint64_t base = stats(g).received;

    position = 50;
    send_id(guest, 100);
    send_id(guest, 101);
    pump(g, base + 2);
    expect_none(peer, "from a closed gate");
    /* Unprotected: what is held goes, then everything at once. */
    CHECK(xlft_netgate_open(g) == 2, "open let out no held frame");
    CHECK(xlft_netgate_is_open(g), "the gate is not open");
    expect(peer, 100);
    expect(peer, 101);
    for (unsigned i = 0; i < 5; i++) {
        send_id(guest, 102 + i);
        pump(g, base + 3 + i);
        expect(peer, 102 + i);
    }
    /* Protected again. */
    xlft_netgate_close(g);
    position = 60;
    send_id(guest, 200);
    pump(g, base + 8);
    expect_none(peer, "from a gate closed again");
    CHECK(xlft_netgate_release(g, 59) == 0, "released before its record");
    CHECK(xlft_netgate_release(g, 60) == 1, "not released at its record");
    expect(peer, 200);
}

static void test_flood(struct xlft_netgate *g, int guest, int peer)
{
    unsigned total = 0, dropped = 0, got = 0, max_total = 0;
    uint64_t max_held = 0;
    char msg[32];

    position = 70;
    for (unsigned i = 0; i < FLOOD; i++) {
        send_id(guest, 1000 + i);
        if (i % 100 == 99) {
            for (int k = 0; k < 4 && xlft_netgate_receive(g) > 0; k++)
                ;
            kernel_queue(&total, &dropped);
            if (total > max_total)
                max_total = total;
            if (stats(g).held > max_held)
                max_held = stats(g).held;
        }
    }
    CHECK(max_held <= MAX_HELD, "the gate held %llu frames, bound %d",
          (unsigned long long)max_held, MAX_HELD);
    CHECK(max_total <= MAX_HELD, "the kernel queued %u frames, bound %d",
          max_total, MAX_HELD);
    CHECK(dropped > 0, "a flood of %d frames was never dropped", FLOOD);
    CHECK(stats(g).held > 0, "the gate holds nothing of the flood");
    expect_none(peer, "from a flood before acknowledgement");
    CHECK(stats(g).overruns == 0 && stats(g).dropped == 0,
          "the gate overran or dropped");
    xlft_netgate_release(g, 70);
    /* What was held arrives; nothing else does (the rest was dropped). */
    while (got < MAX_HELD + 1) {
        struct pollfd p = { .fd = peer, .events = POLLIN };

        if (poll(&p, 1, 500) != 1)
            break;
        if (recv(peer, msg, sizeof(msg), 0) > 0)
            got++;
    }
    CHECK(got > 0 && got <= MAX_HELD, "%u flood frames arrived", got);
    printf("netgate-test: flood of %d: at most %llu held, %u queued in the "
           "kernel, %u dropped there, %u delivered\n", FLOOD,
           (unsigned long long)max_held, max_total, dropped, got);
}

int main(int argc, char **argv)
{
    struct xlft_netgate_config cfg = {
        .queue = QUEUE, .max_held = MAX_HELD, .position = read_position,
    };
    struct xlft_netgate *g;
    int guest, peer, rc;
    struct sockaddr_in to = { .sin_family = AF_INET,
                              .sin_port = htons(PORT) };

    if (argc != 7 || (strcmp(argv[1], "routed") &&
                      strcmp(argv[1], "bridged"))) {
        fprintf(stderr, "usage: netgate-test routed|bridged GUEST_NS "
                "PEER_NS VIF GUEST_IP PEER_IP\n");
        return 2;
    }
    cfg.bridged = !strcmp(argv[1], "bridged");
    cfg.vif = argv[4];
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("netgate-test: %s vif\n", argv[1]);
    guest = ns_socket(argv[2], argv[5], 0);
    peer = ns_socket(argv[3], argv[6], PORT);
    inet_pton(AF_INET, argv[6], &to.sin_addr);
    REQUIRE(connect(guest, (struct sockaddr *)&to, sizeof(to)) == 0,
            "connect: %s", strerror(errno));

    /* A table left by a dead ftd (no queue behind it) is purged. */
    rc = xlft_netgate_rules_install(cfg.vif, QUEUE + 1, cfg.bridged);
    REQUIRE(rc == 0, "cannot install a table: %s", strerror(-rc));
    CHECK(table_listed(), "nft does not list the table");
    rc = xlft_netgate_rules_purge();
    REQUIRE(rc == 0, "purge failed: %s", strerror(-rc));
    CHECK(!table_listed(), "a table is left after the purge");

    rc = xlft_netgate_new(&g, &cfg);
    REQUIRE(rc == 0, "xlft_netgate_new: %s", strerror(-rc));
    CHECK(table_listed(), "nft does not list the gate's table");
    rc = xlft_netgate_new(&(struct xlft_netgate *){ NULL }, &cfg);
    CHECK(rc == -EPERM, "a second gate on the same queue: %d", rc);
    CHECK(table_listed(), "a refused gate removed the first one's table");

    test_in_order(g, guest, peer);
    printf("netgate-test: held until acknowledged, released in order\n");
    test_open(g, guest, peer);
    printf("netgate-test: open and closed again\n");
    test_flood(g, guest, peer);

    xlft_netgate_free(g);
    CHECK(!table_listed(), "the gate's table is left after free");

    /*
     * Fail-closed: the rule with no gate bound drops.  Had 300 leaked,
     * it would arrive before 301, sent on the same path once the rule
     * is gone.
     */
    rc = xlft_netgate_rules_install(cfg.vif, QUEUE, cfg.bridged);
    REQUIRE(rc == 0, "cannot install a table: %s", strerror(-rc));
    send_id(guest, 300);
    REQUIRE(xlft_netgate_rules_remove(QUEUE) == 0, "cannot remove it");
    send_id(guest, 301);
    expect(peer, 301);
    printf("netgate-test: no gate bound: dropped, not let through\n");
    CHECK(xlft_netgate_rules_remove(QUEUE) == 0, "removing no table");
    CHECK(!table_listed(), "a table is left");
    close(guest);
    close(peer);
    if (failures)
        fprintf(stderr, "netgate-test: %d failures\n", failures);
    else
        printf("netgate-test: all passed\n");
    return failures ? 1 : 0;
}
