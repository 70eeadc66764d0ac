#!/bin/sh
# Install the Debian packages that xenft's build, tests and benchmarks
# need, and only those that are missing.  Called by the Makefile.
#   tools/deps.sh [GROUP...]   groups: build (default), check, bench, demo,
#                              xenlab xen
set -eu

build="gcc make libc6-dev binutils libxxhash-dev libunicorn-dev libssl-dev
       libevent-dev libxen-dev"
check="libcunit1-dev clang libclang-rt-14-dev procps etcd-server nftables
       python3"
bench="valgrind iproute2 eatmydata gnuplot-nox"
demo="iproute2"
# The Xen lab (tests/xenlab): dom0 image and Xen under QEMU (TCG).
xenlab="debootstrap qemu-system-x86 e2fsprogs cpio busybox-static iproute2
        etcd-server"
# Xen 4.17.7 with xen-patches: the hypervisor, libxenctrl and xl.
xen="gcc make libc6-dev binutils patch bison flex m4 python3 python3-dev git
     checkpolicy acpica-tools uuid-dev libyajl-dev libncurses-dev pkg-config
     zlib1g-dev"

want=""
for g in "${@:-build}"; do
    case "$g" in
    build) want="$want $build" ;;
    check) want="$want $build $check" ;;
    bench) want="$want $build $bench" ;;
    demo) want="$want $build $demo" ;;
    xenlab) want="$want $build $xenlab" ;;
    xen) want="$want $xen" ;;
    *) echo "deps.sh: unknown group '$g'" \
            "(build, check, bench, demo, xenlab, xen)" >&2
       exit 2 ;;
    esac
done

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps.sh: not a Debian system; install by hand:$want" >&2
    exit 0
fi

missing=""
for p in $want; do
    case " $missing " in *" $p "*) continue ;; esac
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
            grep -q 'install ok installed'; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
    echo "xenft: these Debian packages are missing:$missing" >&2
    echo "xenft: install them as root: apt-get install$missing" >&2
    exit 1
fi

echo "xenft: installing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q --no-install-recommends $missing; then
    apt-get update -q
    apt-get install -y -q --no-install-recommends $missing
fi
