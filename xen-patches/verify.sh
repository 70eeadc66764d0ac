#!/bin/sh
# Check that the series applies to Xen 4.17.7 and that what it touches
# builds: the hypervisor (with CONFIG_SHADOW_PAGING and CONFIG_HVM_FT),
# libxenctrl and xl.  One result line per step and per patch; stops with
# a non-zero status at the first failure and shows the end of its log.
#
#   xen-patches/verify.sh [-j N] [-o DIR] <xen-source-dir>
#
# <xen-source-dir> is a Xen tree at tag RELEASE-4.17.7 (a git checkout or
# an unpacked release).  It is not modified: the series is applied to a
# copy in DIR/src (DIR defaults to build/xen-patched; the copy is made
# afresh each run).  The hypervisor image is left in build/xenlab/
# (xen-patched.gz, its config and symbols) for `tests/xenlab/lab.sh run
# --xen build/xenlab/xen-patched.gz`.  Missing Debian build dependencies
# are installed (tools/deps.sh xen).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
jobs=2
out=""

usage() {
    echo "usage: $0 [-j N] [-o DIR] <xen-source-dir>" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case "$1" in
    -j) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
    -o) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "verify.sh: unknown option '$1'" >&2; usage ;;
    *) break ;;
    esac
done
[ $# -eq 1 ] || usage
case "$jobs" in
''|*[!0-9]*|0) echo "verify.sh: -j wants a positive number, not '$jobs'" >&2
               exit 2 ;;
esac

src=$1
out=${out:-$top/build/xen-patched}
image_dir=$top/build/xenlab
logs=$out/logs
work=$out/src

step_t0=0
start() {
    step_t0=$(date +%s)
}
pass() {
    printf 'ok    %s (%ss)\n' "$1" "$(( $(date +%s) - step_t0 ))"
}
# fail STEP WHY... ; with log=FILE set, the end of FILE is shown.
fail() {
    what=$1
    shift
    printf 'FAIL  %s: %s\n' "$what" "$*"
    if [ -n "${log:-}" ] && [ -f "$log" ]; then
        echo "----- last 40 lines of $log"
        tail -n 40 "$log"
    fi
    exit 1
}
# run STEP LOG CMD...: run a build command with its output in LOG.
run() {
    name=$1
    log=$2
    shift 2
    start
    if ! "$@" > "$log" 2>&1; then
        fail "$name" "failed, see $log"
    fi
    pass "$name"
}

# --- the tree -------------------------------------------------------------

start
[ -f "$src/xen/Makefile" ] && [ -f "$src/tools/Makefile" ] ||
    fail "tree" "$src is not a Xen source tree (no xen/Makefile)"
ver=$(make -s --no-print-directory -C "$src/xen" xenversion 2>/dev/null ||
      true)
tag="" is_git=""
# A git checkout of Xen itself, not an unpacked release that happens to
# lie inside some other repository (this one's build/, say).
if [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = \
     "$(cd "$src" && pwd -P)" ]; then
    is_git=1
    tag=$(git -C "$src" describe --tags 2>/dev/null || true)
    if [ -n "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then
        fail "tree" "$src has uncommitted changes" \
            "(the series wants a clean RELEASE-4.17.7)"
    fi
fi
if [ "$ver" != "4.17.7" ]; then
    fail "tree" "$src is Xen ${ver:-of unknown version}${tag:+ ($tag)}," \
"not 4.17.7: check out tag RELEASE-4.17.7"
fi
if [ -n "$tag" ] && [ "$tag" != "RELEASE-4.17.7" ]; then
    fail "tree" "$src is at $tag, not at tag RELEASE-4.17.7"
fi
pass "tree: Xen $ver${tag:+ ($tag)}"

# --- build dependencies ---------------------------------------------------

start
sh "$top/tools/deps.sh" xen || fail "deps" "tools/deps.sh xen failed"
pass "deps: Debian build dependencies present"

# --- a clean copy with the series -----------------------------------------

start
rm -rf "$work"
mkdir -p "$work" "$logs"
if [ -n "$is_git" ]; then
    git -C "$src" archive --format=tar HEAD | tar -x -C "$work" ||
        fail "copy" "git archive of $src failed"
else
    (cd "$src" && tar -c --exclude=.git .) | tar -x -C "$work" ||
        fail "copy" "copying $src failed"
fi
pass "copy: $work"

start
sh "$here/import-core.sh" "$work" > "$logs/import-core.log" 2>&1 ||
    { log="$logs/import-core.log"; fail "import hvm/core" "failed"; }
pass "import hvm/core: $(ls "$top"/hvm/core/*.[ch] | wc -l) files"

series=$here/series
[ -f "$series" ] || fail "series" "no $series"
n=0
for p in $(grep -v '^[[:space:]]*\(#.*\)\?$' "$series"); do
    n=$((n + 1))
    start
    [ -f "$here/$p" ] || fail "patch $p" "listed in series, no such file"
    # patch(1), not git apply: inside another git work tree (this one)
    # git apply skips paths outside the current directory without a word.
    log="$logs/patch-$n.log"
    (cd "$work" && patch -p1 -F0 -N --batch --dry-run < "$here/$p") \
        > "$log" 2>&1 || fail "patch $p" "does not apply"
    (cd "$work" && patch -p1 -F0 -N --batch < "$here/$p") \
        >> "$log" 2>&1 || fail "patch $p" "does not apply"
    log=""
    pass "patch $p"
done
[ "$n" -gt 0 ] || fail "series" "$series lists no patch"

# --- the hypervisor -------------------------------------------------------

# Xen's defaults plus what the series needs.  Flask is built in (with its
# policy, so that the policy change is compiled) but not the default XSM
# module: the image boots as Debian's does unless given xsm=flask.
start
{
    make -C "$work/xen" defconfig &&
    cat >> "$work/xen/.config" <<EOF
CONFIG_SHADOW_PAGING=y
CONFIG_UNSUPPORTED=y
CONFIG_HVM_FT=y
CONFIG_XSM=y
CONFIG_XSM_FLASK=y
CONFIG_XSM_FLASK_POLICY=y
CONFIG_XSM_DUMMY_DEFAULT=y
EOF
    make -C "$work/xen" olddefconfig
} > "$logs/config.log" 2>&1 ||
    { log="$logs/config.log"; fail "config" "failed"; }
for opt in SHADOW_PAGING HVM_FT XSM_FLASK XSM_FLASK_POLICY; do
    grep -qx "CONFIG_$opt=y" "$work/xen/.config" ||
        fail "config" "CONFIG_$opt did not stay enabled (see xen/.config)"
done
pass "config: SHADOW_PAGING HVM_FT XSM_FLASK XSM_FLASK_POLICY"

run "build xen (make -C xen)" "$logs/xen.log" \
    make -C "$work/xen" -j"$jobs"

start
mkdir -p "$image_dir"
cp "$work/xen/xen.gz" "$image_dir/xen-patched.gz"
cp "$work/xen/xen-syms" "$image_dir/xen-patched-syms"
cp "$work/xen/.config" "$image_dir/xen-patched.config"
pass "image: ${image_dir#$top/}/xen-patched.gz"

# --- the tools the series touches -----------------------------------------

run "configure tools" "$logs/configure.log" \
    sh -c "cd '$work' && ./configure --prefix=/usr --sysconfdir=/etc \
        --localstatedir=/var --disable-stubdom --disable-docs \
        --disable-qemu-traditional \
        --with-system-qemu=/usr/bin/qemu-system-i386 \
        --disable-seabios \
        --with-system-seabios=/usr/share/seabios/bios-256k.bin \
        --disable-rombios --disable-ipxe --disable-ovmf --disable-ocamltools \
        --disable-golang --disable-pvshim --disable-monitors \
        --disable-xsmpolicy"
run "build tools/include" "$logs/tools-include.log" \
    make -C "$work/tools/include" -j"$jobs"
run "build tools/libs (libxenctrl, libxenlight, ...)" "$logs/tools-libs.log" \
    make -C "$work/tools/libs" -j"$jobs"
run "build tools/xl" "$logs/tools-xl.log" \
    make -C "$work/tools/xl" -j"$jobs"

# The libraries export what the series adds to them.
log=
start
missing=
for sym in ctrl:xc_ft_enable_record ctrl:xc_ft_enable_replay \
        ctrl:xc_ft_disable ctrl:xc_ft_status ctrl:xc_ft_go_live \
        devicemodel:xendevicemodel_ft_write; do
    lib=${sym%%:*}
    nm -D --defined-only "$work/tools/libs/$lib"/libxen$lib.so 2>/dev/null |
        grep -qw "${sym#*:}" || missing="$missing ${sym#*:}"
done
[ -z "$missing" ] || fail "exports" "not exported:$missing"
pass "exports: xc_ft_* (libxenctrl), xendevicemodel_ft_write"

# xl and its libraries as the series changes them, for the lab's tests
# of what libxl refuses (run with LD_LIBRARY_PATH; the paths they were
# configured with are Debian's).
log=
start
tools=$image_dir/xen-tools-patched
rm -rf "$tools"
mkdir -p "$tools/bin" "$tools/lib"
cp "$work/tools/xl/xl" "$tools/bin/" &&
    find "$work/tools/libs" -name 'libxen*.so.*' \
        -exec cp -P {} "$tools/lib/" \; ||
    fail "tools" "cannot copy xl and its libraries to ${tools#$top/}"
pass "tools: ${tools#$top/} (xl, $(ls "$tools/lib" | wc -l) library files)"

echo "verify.sh: all passed ($n patches)"
