#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build the patched hypervisor from a Xen 4.17.7 release tarball (what
# `make check-xen XEN_SRC=...` does): the tarball is checked against the
# SHA256SUMS beside it, if there is one, unpacked afresh into
# BUILD/xen-src, and handed to verify.sh, which applies the series and
# builds (the image lands in build/xenlab/xen-patched.gz).
#
#   xen-patches/from-tarball.sh TARBALL [BUILD]
set -eu

tarball=${1:?usage: from-tarball.sh TARBALL [BUILD]}
build=${2:-build}
here=$(cd "$(dirname "$0")" && pwd)

if [ ! -f "$tarball" ]; then
    echo "from-tarball.sh: XEN_SRC=$tarball: no such file" >&2
    exit 1
fi
sums=$(dirname "$tarball")/SHA256SUMS
name=$(basename "$tarball")
if [ -f "$sums" ]; then
    want=$(awk -v n="$name" '$2 == n || $2 == "*" n { print $1 }' "$sums")
    if [ -z "$want" ]; then
        echo "from-tarball.sh: $sums has no line for $name" >&2
        exit 1
    fi
    got=$(sha256sum "$tarball" | cut -d' ' -f1)
    if [ "$got" != "$want" ]; then
        echo "from-tarball.sh: $tarball: SHA-256 $got, but $sums says" \
             "$want: not the release, not used" >&2
        exit 1
    fi
    echo "ok    $name: SHA-256 as $sums says"
fi
src=$build/xen-src
rm -rf "$src"
mkdir -p "$src"
tar -xf "$tarball" -C "$src" || {
    echo "from-tarball.sh: cannot unpack $tarball" >&2
    exit 1
}
top=$(find "$src" -mindepth 1 -maxdepth 1 -type d)
if [ "$(echo "$top" | wc -l)" != 1 ] || [ ! -f "$top/xen/Makefile" ]; then
    echo "from-tarball.sh: $tarball does not hold one Xen source tree" >&2
    exit 1
fi
exec sh "$here/verify.sh" -o "$build/xen-patched" "$top"
