/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ft_diag.c - words for error codes and divergence diagnoses, without
 * libc: the hypervisor prints them with printk, ftvm and ftd with stdio.
 */
#include "ft_log.h"
#include "ft_replayer.h"

const char *ft_strerror(int err)
{
    switch ( err )
    {
    case FT_OK:              return "success";
    case FT_EAGAIN:          return "no record yet";
    case FT_EINVAL:          return "invalid argument";
    case FT_EPROTO:          return "inconsistent ring index or header";
    case FT_EBADMSG:         return "malformed record";
    case FT_EPROTONOSUPPORT: return "unsupported ABI or log format version";
    case FT_EFULL:           return "ring full";
    case FT_EMORE:           return "truncated record";
    case FT_EDIVERGE:        return "replay diverged from the log";
    default:                 return "unknown error";
    }
}

/* A bounded string builder that always leaves buf NUL-terminated. */
struct out {
    char *buf;
    size_t len, pos;
};

static void put(struct out *o, const char *s)
{
    while ( *s && o->pos + 1 < o->len )
        o->buf[o->pos++] = *s++;
    if ( o->len )
        o->buf[o->pos] = '\0';
}

static void put_num(struct out *o, uint64_t v, unsigned int base)
{
    char tmp[24];
    unsigned int i = sizeof(tmp) - 1;

    tmp[i] = '\0';
    do {
        tmp[--i] = "0123456789abcdef"[v % base];
        v /= base;
    } while ( v );
    if ( base == 16 )
        put(o, "0x");
    put(o, tmp + i);
}

static void put_point(struct out *o, const struct ft_point *pt)
{
    put(o, "count=");
    put_num(o, pt->count, 10);
    put(o, " rip=");
    put_num(o, pt->rip, 16);
    put(o, " rcx=");
    put_num(o, pt->rcx, 16);
}

static const char *param_name(unsigned int param)
{
    switch ( param )
    {
    case FT_DIAG_P_PORT:  return "port";
    case FT_DIAG_P_SIZE:  return "size";
    case FT_DIAG_P_GPA:   return "gpa";
    case FT_DIAG_P_INDEX: return "MSR index";
    case FT_DIAG_P_SEED:  return "RDSEED flag";
    case FT_DIAG_P_ID:    return "output id";
    case FT_DIAG_P_DMA:   return "gpa";
    default:              return "value";
    }
}

void ft_diag_format(const struct ft_diag *d, char *buf, size_t len)
{
    struct out o = { buf, len, 0 };

    put(&o, "");
    switch ( d->reason )
    {
    case FT_DIAG_NONE:
        put(&o, "no divergence");
        return;

    case FT_DIAG_MALFORMED:
        put(&o, "malformed log at record ");
        put_num(&o, d->seq, 10);
        put(&o, ": ");
        put(&o, ft_strerror(d->error));
        return;

    case FT_DIAG_HASH:
        put(&o, "divergence at record ");
        put_num(&o, d->seq, 10);
        put(&o, ": state hash at ");
        put_point(&o, &d->log_pt);
        put(&o, " is ");
        put_num(&o, d->vcpu_val, 16);
        put(&o, ", log has ");
        put_num(&o, d->log_val, 16);
        return;

    case FT_DIAG_PARAM:
        put(&o, "divergence at record ");
        put_num(&o, d->seq, 10);
        if ( d->param == FT_DIAG_P_DMA )
        {
            put(&o, ": DMA at ");
            put_point(&o, &d->log_pt);
            put(&o, " cannot be written to gpa ");
            put_num(&o, d->log_val, 16);
            return;
        }
        put(&o, ": ");
        put(&o, ft_log_kind_name(d->log_kind));
        put(&o, " at ");
        put_point(&o, &d->log_pt);
        put(&o, ": log has ");
        put(&o, param_name(d->param));
        put(&o, " ");
        put_num(&o, d->log_val, 16);
        put(&o, ", vCPU ");
        put_num(&o, d->vcpu_val, 16);
        return;

    default: /* FT_DIAG_KIND, FT_DIAG_POINT */
        put(&o, "divergence at record ");
        put_num(&o, d->seq, 10);
        put(&o, ": log has ");
        put(&o, ft_log_kind_name(d->log_kind));
        put(&o, " at ");
        put_point(&o, &d->log_pt);
        if ( d->vcpu_kind == FT_K_NONE )
            put(&o, ", vCPU was at ");
        else
        {
            put(&o, d->vcpu_kind == FT_K_HALTED ? ", vCPU " : ", vCPU did ");
            put(&o, ft_log_kind_name(d->vcpu_kind));
            put(&o, " at ");
        }
        put_point(&o, &d->vcpu_pt);
        return;
    }
}
