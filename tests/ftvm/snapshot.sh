#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# snapshot.sh BUILD - a snapshot holds all of a guest's state: a run
# restored from it and recorded, and the same restored and replayed from
# that log, end in the same state (anything the snapshot missed would
# diverge); a damaged or mismatched snapshot is refused.
# One host, no network: ftvm runs on snapshot and log files in $work.
set -u

build=${1:?usage: snapshot.sh BUILD}
NAME=snapshot
. "$(dirname "$0")/lib.sh"

run() { timeout -k 10 120 "$ftvm" run "$@"; }

for guest in cpu idle; do
    case $guest in
    cpu) start="--insns 20000000" more="--insns 50000000"
         args=seed=3 ;;
    *) start="--seconds 0.3" more="--seconds 0.3" args=report=100 ;;
    esac
    # shellcheck disable=SC2086
    if ! run --guest "$build/guests/$guest.bin" --timer-hz 1000 \
            --cmdline $args $start --save "$work/s1" --console none \
            >/dev/null 2>"$work/err"; then
        bad "$guest: first run: $(cat "$work/err")"
        continue
    fi
    # shellcheck disable=SC2086
    run --restore "$work/s1" $more --record "$work/log" --console "$work/c1" \
        >"$work/o1" 2>"$work/err" || {
        bad "$guest: restored run: $(cat "$work/err")"
        continue
    }
    run --restore "$work/s1" --replay "$work/log" --console "$work/c2" \
        >"$work/o2" 2>"$work/err" || {
        bad "$guest: replay from the snapshot: $(cat "$work/err")"
        continue
    }
    if cmp -s "$work/o1" "$work/o2" && cmp -s "$work/c1" "$work/c2"; then
        ok "$guest: restored, recorded, replayed from the snapshot alike"
    else
        bad "$guest: the restored runs differ"
    fi
done

# A snapshot taken after the guest set up its own descriptor tables, and
# restored, hashes as the guest did when it was saved: restoring must
# not touch guest memory (loading segments sets accessed bits).
if run --guest "$build/guests/cpu.bin" --timer-hz 1000 --insns 5000000 \
        --save "$work/s3" --console none >"$work/o3" 2>"$work/err" &&
   run --restore "$work/s3" --insns 5000000 --console none >"$work/o4" \
        2>>"$work/err" && cmp -s "$work/o3" "$work/o4"; then
    ok "restored at the save point: the same state hash"
else
    bad "restored state differs: $(cat "$work/o3" "$work/o4" "$work/err")"
fi

cp "$work/s1" "$work/dmg"
printf 'X' | dd of="$work/dmg" bs=1 seek=5000000 conv=notrunc 2>/dev/null
if run --restore "$work/dmg" --seconds 0.1 --console none 2>"$work/err";
then
    bad "a damaged snapshot was accepted"
elif grep -q "checksum mismatch" "$work/err"; then
    ok "damaged snapshot refused ($(cat "$work/err"))"
else
    bad "damaged snapshot: $(cat "$work/err")"
fi
if run --restore "$work/s1" --mem 32 --seconds 0.1 --console none \
        2>"$work/err"; then
    bad "a snapshot restored into another memory size"
elif grep -q "MiB" "$work/err"; then
    ok "other memory size refused ($(cat "$work/err"))"
else
    bad "memory size: $(cat "$work/err")"
fi
if run --restore "$work/s1" --cmdline x=1 --seconds 0.1 2>"$work/err"; then
    bad "--cmdline with --restore was accepted"
else
    ok "--cmdline with --restore refused"
fi

finish
