// SPDX-License-Identifier: GPL-2.0-only
/*
 * nftrules.c - the network gate's nf_tables tables: installed, removed,
 * and those left by an earlier run found and removed (xlft_netgate.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netfilter.h>
#include <linux/netlink.h>

#include "xlft_netgate.h"
#include "xlft_nfnl.h"
#include "xlft_nlsock.h"

/* Tables found by a dump, removed once it is complete. */
#define PURGE_MAX 256
/* Datagrams of one dump at most: a table list is a few of them. */
#define DUMP_READS 1024

static int request(const void *req, size_t len, unsigned nacks)
{
    int fd = xlft_nlsock_open();
    int rc;

    if (fd < 0)
        return fd;
    rc = xlft_nlsock_transact(fd, req, len, nacks);
    close(fd);
    return rc;
}

int xlft_netgate_rules_install(const char *vif, uint16_t queue,
                               bool bridged)
{
    unsigned char buf[XLFT_NFNL_BUF];
    unsigned nmsg;
    size_t len = xlft_nfnl_table_install(buf, vif, queue, bridged, 1,
                                         &nmsg);

    if (!len)
        return -EINVAL;
    return request(buf, len, nmsg);
}

static int remove_table(uint8_t family, const char *name)
{
    unsigned char buf[XLFT_NFNL_BUF];
    unsigned nmsg;
    size_t len = xlft_nfnl_table_remove(buf, family, name, 1, &nmsg);

    if (!len)
        return -EINVAL;
    return request(buf, len, nmsg);
}

int xlft_netgate_rules_remove(uint16_t queue)
{
    char name[32];

    int rc;

    snprintf(name, sizeof(name), XLFT_NFNL_TABLE_PREFIX "%u", queue);
    rc = remove_table(NFPROTO_IPV4, name);
    return rc ? rc : remove_table(NFPROTO_IPV6, name);
}

struct found {
    size_t n;
    struct {
        uint8_t family;
        char name[64];
    } t[PURGE_MAX];
};

static int found_table(void *opaque, uint8_t family, const char *name)
{
    struct found *f = opaque;

    if (f->n == PURGE_MAX || strlen(name) >= sizeof(f->t[0].name))
        return -E2BIG;
    f->t[f->n].family = family;
    strcpy(f->t[f->n].name, name);
    f->n++;
    return 0;
}

/* Read a dump to its end (bounded in time), collecting our tables. */
static int dump_tables(int fd, struct found *f)
{
    unsigned char *buf = malloc(XLFT_NFNL_RCVBUF);
    int rc = 0, reads = 0;

    if (!buf)
        return -ENOMEM;
    while (rc == 0) {
        if (reads++ == DUMP_READS) {
            rc = -ETIMEDOUT;
            break;
        }
        struct pollfd p = { .fd = fd, .events = POLLIN };
        ssize_t n;

        rc = poll(&p, 1, XLFT_NLSOCK_TIMEOUT_MS);
        if (rc == 0) {
            rc = -ETIMEDOUT;
            break;
        }
        if (rc < 0) {
            rc = errno == EINTR ? 0 : -errno;
            continue;
        }
        n = recv(fd, buf, XLFT_NFNL_RCVBUF, MSG_DONTWAIT);
        if (n < 0) {
            rc = errno == EAGAIN || errno == EINTR ? 0 : -errno;
            continue;
        }
        rc = xlft_nfnl_decode_tables(buf, (size_t)n, found_table, f);
    }
    free(buf);
    return rc == 1 ? 0 : rc;
}

int xlft_netgate_rules_purge(void)
{
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    unsigned char req[XLFT_NFNL_BUF];
    size_t len = xlft_nfnl_table_dump(req, 1);
    struct found *f = calloc(1, sizeof(*f));
    int fd = -1, rc;

    if (!f) {
        rc = -ENOMEM;
        goto out;
    }
    fd = xlft_nlsock_open();
    if (fd < 0) {
        rc = fd;
        goto out;
    }
    if (sendto(fd, req, len, 0, (struct sockaddr *)&kernel,
               sizeof(kernel)) != (ssize_t)len)
        rc = -errno;
    else
        rc = dump_tables(fd, f);
    for (size_t i = 0; rc == 0 && i < f->n; i++)
        rc = remove_table(f->t[i].family, f->t[i].name);
out:
    if (fd >= 0)
        close(fd);
    free(f);
    return rc;
}
