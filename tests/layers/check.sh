#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# check.sh "LAYER:CC FLAGS"... - the layers hold (README, Layout):
# hvm/core <- tools/libxlft <- hvm/ftvm, tools/ftd, tools/xl-ft, tools/ftdm,
# tools/ftlog, and hvm/devices <- hvm/ftvm, tools/ftdm, each directory
# compiled with the headers of the layers
# below it only.  Every probe beside this script names its layer and,
# if it must fail, the header that layer may not reach ("refused: H").
# Each is compiled with the compiler and flags the Makefile gives that
# layer, as if it sat in the layer's directory (-iquote DIR: a quoted
# include searches the source's own directory first).  A refused probe
# passes only if it fails for want of H, the others only if they
# compile, and every layer has one of each.  Then: no source includes
# anything by a relative path, and dom0 (tools/) includes ft_atomic.h
# only through ft_ring.h (hvm/core/ABI.md).
set -u

NAME=layers
. "$(dirname "$0")/../lib/test.sh"
scratch
cd "$(dirname "$0")/../.." || exit 1
[ $# -gt 0 ] || { echo "usage: check.sh LAYER:CC FLAGS..." >&2; exit 2; }

# cc_of LAYER ARG...: the compiler and flags for LAYER among ARGs.
cc_of() {
    want=$1
    shift
    for a in "$@"; do
        case $a in "$want:"*) echo "${a#*:}"; return 0 ;; esac
    done
    return 1
}

for probe in tests/layers/*.c; do
    name=${probe##*/}
    layer=$(sed -n 's/^ \* layer: //p' "$probe")
    refused=$(sed -n 's/^ \* refused: //p' "$probe")
    if ! cc=$(cc_of "$layer" "$@"); then
        bad "$name: no compiler flags for layer '$layer'"
        continue
    fi
    echo "$layer ${refused:+refused}" >>"$work/seen"
    # $cc is a command and its flags: split on purpose.
    if $cc -iquote "$layer" -fsyntax-only "$probe" >"$work/cc.out" 2>&1
    then
        if [ -n "$refused" ]; then
            bad "$name: $layer reaches $refused"
        else
            ok "$name: $layer compiles what it may include"
        fi
    elif [ -z "$refused" ]; then
        bad "$name: $layer cannot compile what it may include: \
$(head -n 3 "$work/cc.out")"
    elif grep -q "$refused.*\(No such file\|not found\)" "$work/cc.out"
    then
        ok "$name: $layer cannot include $refused"
    else
        bad "$name: failed, but not for want of $refused: \
$(head -n 3 "$work/cc.out")"
    fi
done

for a in "$@"; do
    layer=${a%%:*}
    grep -qx "$layer refused" "$work/seen" 2>/dev/null ||
        bad "$layer: no probe of a header it may not include"
    grep -qx "$layer " "$work/seen" 2>/dev/null ||
        bad "$layer: no probe of what it may include"
done

# The pattern is tried on a line that must match first.
incl='^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\.\./'
if ! echo '#  include "../x.h"' | grep -q "$incl"; then
    bad "the relative-include pattern misses '#  include \"../x.h\"'"
fi
rel=$(find hvm tools tests xen-patches -name '*.[chS]' \
      -exec grep -Hn "$incl" {} + 2>/dev/null)
if [ -z "$rel" ]; then
    ok "no source includes by a relative path"
else
    bad "includes by a relative path: $rel"
fi

atomic=$(grep -rln '^[[:space:]]*#[[:space:]]*include[[:space:]]*"ft_atomic' \
         tools 2>/dev/null)
if [ -z "$atomic" ]; then
    ok "dom0 reaches ft_atomic.h through ft_ring.h only"
else
    bad "ft_atomic.h included by: $atomic"
fi

finish
