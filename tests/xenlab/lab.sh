#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# lab.sh - a real Xen 4.17 host booted under QEMU for integration tests.
#   lab.sh build                 build the dom0 image (cached)
#   lab.sh run [--hosts 1|2] [--xen debian|4.17.5|FILE] [--timeout S]
#              -- CMD...         boot, run CMD in dom0 (see run.sh)
#   lab.sh put FILE...|--clear   files every dom0 sees at /xenft
#   lab.sh check                 build, then run tests/*.sh
# Exit statuses: README.md.
set -eu
. "$(dirname "$0")/lib.sh"

build() {
    mkdir -p "$XL_OUT" || return
    timeout -k 5 1200 sh "$XL_SRC/build-root.sh" || return
    timeout -k 5 600 sh "$XL_SRC/build-image.sh"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
build) build ;;
run) build || exit; exec sh "$XL_SRC/run.sh" "$@" ;;
put) exec sh "$XL_SRC/put.sh" "$@" ;;
check) build || exit; exec sh "$XL_SRC/check.sh" "$@" ;;
*)
    echo "usage: lab.sh build | run [OPTIONS] -- CMD... |" \
        "put FILE...|--clear | check" >&2
    exit 2
    ;;
esac
