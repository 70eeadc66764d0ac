#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# layout.sh BUILD - make install into a scratch DESTDIR, twice:
#   - programs in PREFIX/bin, man pages under PREFIX/share/man (each
#     rendered by man without a warning), the systemd unit under
#     /lib/systemd/system and the init script under /etc/init.d, both
#     naming ftd where PREFIX put it, the example config in /etc/xen;
#   - public headers only (libxlft's, hvm/core's exported to dom0), and
#     a program including libxlft.h built from what was installed alone;
#   - a config the host changed is not overwritten by the second.
set -u

build=${1:?usage: layout.sh BUILD}
NAME=install
. "$(dirname "$0")/../ftvm/lib.sh"
. "$(dirname "$0")/../lib/hosts.sh"
make=${MAKE:-make}
d=$work/root
prefix=/opt/xenft

if ! $make -s install BUILD="$build" DESTDIR="$d" PREFIX="$prefix" \
        >"$work/out" 2>&1; then
    bad "make install: $(tail -n 5 "$work/out")"
    finish
    exit 1
fi

missing=
for f in bin/ftd bin/ftvm bin/ftlog bin/xl-ft bin/ftdm \
         share/man/man8/ftd.8 share/man/man8/ftdm.8 \
         share/man/man5/ft.conf.5 share/man/man1/ftvm.1 \
         share/man/man1/ftlog.1 share/man/man1/xl-ft.1; do
    [ -f "$d$prefix/$f" ] || missing="$missing $prefix/$f"
done
for f in /lib/systemd/system/ftd.service /etc/init.d/ftd /etc/xen/ft.conf; do
    [ -f "$d$f" ] || missing="$missing $f"
done
if [ -z "$missing" ] && [ -x "$d$prefix/bin/ftd" ] &&
   [ -x "$d/etc/init.d/ftd" ]; then
    ok "make install DESTDIR: programs, man pages, unit, init script, config"
else
    bad "not installed:$missing"
fi

# Internals stay out: hvm/core's recorder, replayer and inline encoder,
# libxlft's own headers (beside its sources), ftvm's and ftd's.
src=$(cd "$(dirname "$0")/../.." && pwd)
inc=$d$prefix/include/xenft
leaked=
for f in "$src"/hvm/core/ft_log_impl.h "$src"/hvm/core/ft_recorder.h \
         "$src"/hvm/core/ft_replayer.h "$src"/tools/libxlft/*.h \
         "$src"/hvm/ftvm/*.h "$src"/tools/ftd/*.h; do
    [ -e "$inc/${f##*/}" ] && leaked="$leaked ${f##*/}"
done
missing=
for f in ft_base.h ft_abi.h ft_ring.h ft_log.h ft_atomic.h \
         $(cd "$src/tools/libxlft/include" && echo *.h); do
    [ -f "$inc/$f" ] || missing="$missing $f"
done
if [ -z "$leaked$missing" ] && [ -f "$inc/libxlft.h" ]; then
    ok "headers: libxlft's public ones and hvm/core's exported set only \
($(ls "$inc" | wc -l))"
else
    bad "headers: internals installed:${leaked:- none}; missing:\
${missing:- none}"
fi
# Built in $work, so that no header of the source tree is at hand.
cp "$(dirname "$0")/uses-libxlft.c" "$work/uses.c"
if (cd "$work" && ${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -I"$inc" \
        uses.c -L"$d$prefix/lib" -lxlft -lftcore -levent -lcrypto \
        -lxxhash -lpthread -o uses) >"$work/cc.out" 2>&1 &&
   "$work/uses" >"$work/uses.out" 2>&1 &&
   grep -q '^record: ring full$' "$work/uses.out"; then
    ok "a program including libxlft.h builds from the installed headers \
and libraries alone"
else
    bad "installed headers: $(cat "$work/cc.out" "$work/uses.out" \
        2>/dev/null | head -n 5)"
fi

if grep -q "^ExecStart=$prefix/bin/ftd --config /etc/xen/ft.conf" \
       "$d/lib/systemd/system/ftd.service" &&
   grep -q "^DAEMON=$prefix/bin/ftd$" "$d/etc/init.d/ftd" &&
   grep -q "^ftvm = $prefix/bin/ftvm$" "$d/etc/xen/ft.conf" &&
   sh -n "$d/etc/init.d/ftd" &&
   grep -q '^### BEGIN INIT INFO' "$d/etc/init.d/ftd" &&
   grep -q '^# Provides: *ftd$' "$d/etc/init.d/ftd" &&
   grep -q '^### END INIT INFO' "$d/etc/init.d/ftd"; then
    ok "unit, init script (LSB headers) and config name $prefix/bin"
else
    bad "paths: $(grep -h 'ExecStart\|^DAEMON\|^ftvm' \
        "$d/lib/systemd/system/ftd.service" "$d/etc/init.d/ftd" \
        "$d/etc/xen/ft.conf")"
fi
# The init script run for real, its paths moved into $work: start,
# status, stop, status.
newkey "$work/key"
mkdir -m 0700 "$work/run"
mkdir "$work/arb"
printf 'listen = 127.0.0.1:0\nkey = %s\narbiter = file:%s\nrun-dir = %s\n' \
    "$work/key" "$work/arb" "$work/run" >"$work/ft.conf"
sed "s|^DAEMON=.*|DAEMON=$d$prefix/bin/ftd|; s|^CONF=.*|CONF=$work/ft.conf|; \
s|^PIDFILE=.*|PIDFILE=$work/ftd.pid|; s|^LOG=.*|LOG=$work/ftd.log|" \
    "$d/etc/init.d/ftd" >"$work/ftd.init"
init() { sh "$work/ftd.init" "$@" >>"$work/init.out" 2>&1; }
init bogus; usage=$?
init reload; reload=$?
if [ "$(id -u)" != 0 ]; then
    echo "$NAME: not root: the init script is not started (skipped)"
elif init start && until_true 200 test -S "$work/run/ftd.sock" &&
     init status && init start && init stop && ! init status &&
     [ ! -e "$work/ftd.pid" ] && ! test -S "$work/run/ftd.sock"; then
    ok "init script: start, status (running), start again, stop, status \
(not running)"
else
    bad "init script: $(cat "$work/init.out" "$work/ftd.log")"
    init stop
fi
if [ "$usage" = 2 ] && [ "$reload" = 3 ]; then
    ok "init script: an unknown action is usage (2), reload unimplemented (3)"
else
    bad "init script: unknown action $usage, reload $reload"
fi

if command -v man >/dev/null 2>&1; then
    warned=
    for page in "$d$prefix"/share/man/man*/*; do
        MANWIDTH=80 man --warnings -l "$page" >/dev/null 2>"$work/warn"
        [ -s "$work/warn" ] &&
            warned="$warned ${page##*/}: $(cat "$work/warn")"
    done
    if [ -z "$warned" ]; then
        ok "man renders every page without a warning ($(ls \
"$d$prefix"/share/man/man*/ | grep -c '\.[158]$') pages)"
    else
        bad "man warnings:$warned"
    fi
else
    echo "$NAME: no man here: the pages are not rendered (skipped)"
fi

echo "# this host's own" >>"$d/etc/xen/ft.conf"
if $make -s install BUILD="$build" DESTDIR="$d" PREFIX="$prefix" \
       >"$work/out" 2>&1 &&
   grep -q "^# this host's own$" "$d/etc/xen/ft.conf" &&
   grep -q "kept .*/etc/xen/ft.conf (not overwritten)" "$work/out"; then
    ok "a second make install keeps the host's ft.conf"
else
    bad "second install: $(tail -n 3 "$work/out")"
fi

finish
