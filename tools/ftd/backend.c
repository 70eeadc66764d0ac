// SPDX-License-Identifier: GPL-2.0-only
/*
 * backend.c - the backends ftd knows, by the name its configuration and
 * command line give (backend.h).
 */
#include <string.h>

#include "backend.h"

const struct backend *backend_named(const char *name)
{
    if (!strcmp(name, "ftvm"))
        return &backend_ftvm;
    if (!strcmp(name, "xen"))
        return &backend_xen;
    return NULL;
}
