// SPDX-License-Identifier: GPL-2.0-only
/*
 * tap.c - ftdm's network backend: a tap device (tap.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_tun.h>
#include <linux/sockios.h>

#include "tap.h"

/* Up, and a port of 'bridge' if named: through one socket's ioctls. */
static int plug(const char *name, const char *bridge, const char **what)
{
    struct ifreq ifr;
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

    if (s < 0) {
        *what = "a socket for its settings";
        return -errno;
    }
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
    if (ioctl(s, SIOCGIFFLAGS, &ifr)) {
        *what = "reading its flags";
        rc = -errno;
        goto out;
    }
    ifr.ifr_flags |= IFF_UP;
    if (ioctl(s, SIOCSIFFLAGS, &ifr)) {
        *what = "bringing it up";
        rc = -errno;
        goto out;
    }
    if (bridge) {
        int index = (int)if_nametoindex(name);

        memset(&ifr, 0, sizeof(ifr));
        snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", bridge);
        ifr.ifr_ifindex = index;
        if (!index || ioctl(s, SIOCBRADDIF, &ifr)) {
            *what = "adding it to the bridge";
            rc = -errno;
        }
    }
out:
    close(s);
    return rc;
}

int ftdm_tap_open(uint32_t domid, const char *name, const char *bridge,
                  char *err, size_t errlen)
{
    const char *what = "opening /dev/net/tun";
    struct ifreq ifr;
    int fd, rc;

    if (!*name || strlen(name) >= IFNAMSIZ) {
        snprintf(err, errlen, "domain %u: tap name '%s': 1 to %d bytes",
                 domid, name, IFNAMSIZ - 1);
        return -EINVAL;
    }
    fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        rc = -errno;
        goto out;
    }
    memset(&ifr, 0, sizeof(ifr));
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
    /* Exclusive: a device of that name someone else uses is refused. */
    ifr.ifr_flags |= IFF_TUN_EXCL;
    if (ioctl(fd, TUNSETIFF, &ifr)) {
        what = "making the tap device";
        rc = -errno;
        goto out;
    }
    rc = plug(name, bridge, &what);
    if (!rc)
        return fd;
out:
    snprintf(err, errlen, "domain %u: tap %s%s%s: %s: %s", domid, name,
             bridge ? " on bridge " : "", bridge ? bridge : "", what,
             strerror(-rc));
    if (fd >= 0)
        close(fd);
    return rc;
}

void ftdm_tap_close(int fd)
{
    if (fd >= 0)
        close(fd);
}

int ftdm_tap_read(int fd, void *buf, size_t len)
{
    ssize_t n = read(fd, buf, len);

    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
    return (int)n;
}

int ftdm_tap_write(int fd, const void *frame, size_t len)
{
    ssize_t n = write(fd, frame, len);

    if (n < 0)
        return errno == EWOULDBLOCK ? -EAGAIN : -errno;
    return (size_t)n == len ? 0 : -EIO;
}
