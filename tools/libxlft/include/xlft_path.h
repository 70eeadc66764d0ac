/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xlft_path.h - whether a directory that ftd (root) writes in, or reads
 * a decision from, is one that nobody else can change under it.
 */
#ifndef XLFT_PATH_H
#define XLFT_PATH_H

#include <stddef.h>

/* The directory must be owned by root or by the user this runs as. */
#define XLFT_DIR_OWNED  (1u << 0)

/*
 * 'dir' must be a directory itself (not a symbolic link), written by
 * neither group nor others, and so must every directory above it (after
 * symbolic links are resolved), except that a sticky one (such as /tmp)
 * may be written by all.  Every directory above it is owned by root or
 * by this user; 'dir' itself too with XLFT_DIR_OWNED (leave it out for a
 * directory on shared storage, whose owner the server may map).
 * 'what' names the setting in messages ("run-dir").  0, or -errno with
 * 'why' naming the path and what is wrong with it.
 */
int xlft_dir_trusted(const char *what, const char *dir, unsigned int flags,
                     char *why, size_t len);

#endif /* XLFT_PATH_H */
