/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rundir.h - the files ftd keeps in its run directory (ft.conf
 * run-dir): sockets it connects to or listens on, and the files it
 * opens for the guests' copies.  ftd runs as root, and whoever may put
 * something at such a path could make it connect or write elsewhere.
 */
#ifndef FTD_RUNDIR_H
#define FTD_RUNDIR_H

#include <stddef.h>

/*
 * A socket's path: nothing there, or a socket.  0, or -errno with 'why'
 * saying what is there (-EEXIST: something else, left alone).
 */
int ftd_run_sock_ok(const char *path, char *why, size_t len);

/*
 * Open 'path' for writing ('flags': more open(2) flags, O_APPEND say),
 * created 0600 if missing: never through a symbolic link, never a FIFO,
 * a device or a hard link.  The descriptor, or -errno with 'why'.
 */
int ftd_run_file_open(const char *path, int flags, char *why, size_t len);

#endif /* FTD_RUNDIR_H */
