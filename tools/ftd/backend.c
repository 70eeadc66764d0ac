// SPDX-License-Identifier: GPL-2.0-only
/*
 * backend.c - the backends ftd knows, by the name its configuration and
 * command line give (backend.h).
 */
#include <errno.h>
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

int backend_counter_named(const char *name, unsigned int *flags)
{
    if (!strcmp(name, "auto"))
        *flags = 0;
    else if (!strcmp(name, "branches"))
        *flags = BACKEND_F_BRANCHES;
    else if (!strcmp(name, "steps"))
        *flags = BACKEND_F_STEPS;
    else
        return -EINVAL;
    return 0;
}
