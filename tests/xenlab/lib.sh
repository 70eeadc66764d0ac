# SPDX-License-Identifier: GPL-2.0-only
#
# lib.sh - what every lab script shares: where things are, the exit
# statuses (README.md), the checks that the lab can run on this machine.
# Sourced; sets XL_SRC (these scripts), XL_OUT (the cache) and
# XL_TOP (the repository).

# Sourced by scripts in tests/xenlab and in tests/xenlab/tests.
XL_SRC=$(cd "$(dirname "$0")" && pwd)
[ -f "$XL_SRC/lib.sh" ] || XL_SRC=$(dirname "$XL_SRC")
[ -f "$XL_SRC/lib.sh" ] || { echo "xenlab: cannot find lib.sh" >&2; exit 125; }
XL_TOP=$(cd "$XL_SRC/../.." && pwd)
XL_OUT=${XENLAB_OUT:-$XL_TOP/build/xenlab}

# Exit statuses of the lab itself; anything else is the dom0 command's.
XL_SKIP=77       # cannot run here: not root, no QEMU, no debootstrap
XL_EDOWNLOAD=123 # a download from the Debian archive failed
XL_ETIMEOUT=124  # boot or command took longer than allowed
XL_EFAIL=125     # the lab broke: build, QEMU, no result from dom0

xl_log() { echo "xenlab: $*" >&2; }
# A skip says so as make check's runner reads it (tests/lib/run-check.sh).
xl_die() {
    st=$1
    shift
    if [ "$st" = $XL_SKIP ]; then xl_log "SKIP: $*"; else xl_log "$*"; fi
    exit "$st"
}

# Root for chroot, network namespaces and device nodes in images.
xl_need_root() {
    [ "$(id -u)" = 0 ] ||
        xl_die $XL_SKIP "cannot run here: needs root (chroot, namespaces)"
}

xl_need_tools() {
    for t in "$@"; do
        command -v "$t" >/dev/null 2>&1 ||
            xl_die $XL_SKIP "cannot run here: '$t' is missing" \
                "(make check-xen installs it)"
    done
}

# Xen runs under QEMU's software emulation, never KVM: a KVM guest would
# need nested virtualisation, and TCG is what was measured to work.
xl_need_qemu() {
    xl_need_tools qemu-system-x86_64
    qemu-system-x86_64 -accel help 2>/dev/null | grep -qx tcg ||
        xl_die $XL_SKIP "cannot run here: qemu-system-x86_64 has no TCG"
}

# The Debian archive configured on this machine for SUITE (bookworm,
# bookworm-security, ...), from the apt sources in either format.
xl_archive_uri() {
    suite=$1
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
            awk -v s="$suite" '$1 == "deb" && $3 == s { print $2; exit }'
    done
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        # deb822: stanzas separated by blank lines.
        sed -e '/^[ \t]*#/d' -e 's/#.*//' "$f" | awk -v s="$suite" '
            /^[ \t]*$/ { if (deb && hit && uri) exit
                         deb = hit = 0; uri = ""; next }
            tolower($1) == "types:" { for (i = 2; i <= NF; i++)
                                          if ($i == "deb") deb = 1 }
            tolower($1) == "uris:" { uri = $2 }
            tolower($1) == "suites:" { for (i = 2; i <= NF; i++)
                                           if ($i == s) hit = 1 }
            END { if (deb && hit && uri) print uri }'
    done
}

# The first archive found for SUITE, or a clear error.
xl_archive() {
    uri=$(xl_archive_uri "$1" | head -n 1)
    [ -n "$uri" ] ||
        xl_die $XL_SKIP "cannot run here: no apt source for suite '$1'" \
            "in /etc/apt/sources.list{,.d}"
    echo "$uri"
}

# A key for stamp files: the hash of the given files and strings.
xl_key() {
    for a in "$@"; do
        if [ -f "$a" ]; then sha256sum < "$a"; else echo "$a"; fi
    done | sha256sum | cut -c1-16
}
