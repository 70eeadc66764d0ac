#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# put.sh FILE...       copy files or directories into the staging
#                      directory, whose contents every dom0 sees at /xenft
# put.sh --clear       empty the staging directory
# put.sh --image OUT   make the ext4 image OUT of the staging directory
#                      (run.sh does this for each run)
# The staging directory is $XENLAB_PUT, by default build/xenlab/put.
# Binaries built on the host (Debian 12) run as they are in dom0.
set -eu
. "$(dirname "$0")/lib.sh"

stage=${XENLAB_PUT:-$XL_OUT/put}
case "${1:-}" in
--clear)
    rm -rf "$stage"
    mkdir -p "$stage"
    ;;
--image)
    out=${2:?usage: put.sh --image OUT}
    xl_need_tools mkfs.ext4
    mkdir -p "$stage"
    mb=$(du -sm "$stage" | cut -f1)
    rm -f "$out"
    truncate -s "$((mb + 64))M" "$out"
    mkfs.ext4 -q -F -L xenft -d "$stage" "$out" ||
        xl_die $XL_EFAIL "cannot make an image of $stage"
    ;;
''|-*)
    echo "usage: put.sh FILE... | --clear | --image OUT" >&2
    exit 2
    ;;
*)
    mkdir -p "$stage"
    for f in "$@"; do
        [ -e "$f" ] || xl_die 2 "put: no such file: $f"
        cp -a "$f" "$stage/"
    done
    ;;
esac
