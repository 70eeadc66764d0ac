#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# demo.sh BUILD - xenft on the software HVM: a guest is recorded on one
# ftvm (the primary), replayed from its log alone in another process (the
# secondary), and both end in the same state; a log with one input
# changed is caught.  Exits non-zero on any mismatch.
set -u

build=${1:?usage: demo.sh BUILD}
ftvm=$build/bin/ftvm
ftlog=$build/bin/ftlog
work=$(mktemp -d "${TMPDIR:-/tmp}/xenft-demo.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

say() { printf '\n== %s\n' "$*"; }
die() { printf '\nDEMO FAILED: %s\n' "$*"; exit 1; }
field() { sed -n "s/^$1=//p" "$2"; }

say "1. The primary: the cpu guest checksums 4 MiB round after round while"
echo "   a 250 Hz timer interrupts it wherever host time says.  ftvm records"
echo "   every input (interrupts at their exact instruction, TSC and port"
echo "   reads, console output) into a log."
"$ftvm" run --guest "$build/guests/cpu.bin" --timer-hz 250 \
    --cmdline seed=42 --insns 150000000 --record "$work/cpu.log" \
    --console "$work/primary.txt" >"$work/p.out" || die "recording failed"
sed 's/^/   guest: /' "$work/primary.txt"
echo "   primary stopped after $(field insns "$work/p.out") instructions," \
     "state hash $(field state-hash "$work/p.out")"
echo "   log: $(wc -c <"$work/cpu.log") bytes," \
     "$("$ftlog" dump "$work/cpu.log" | wc -l) records"

say "2. The secondary: a second ftvm process runs the same guest from the"
echo "   log alone (no timer, no host clock) and must stop in the same state."
"$ftvm" run --guest "$build/guests/cpu.bin" --timer-hz 250 \
    --cmdline seed=42 --replay "$work/cpu.log" \
    --console "$work/secondary.txt" >"$work/s.out" || die "replay failed"
echo "   secondary stopped after $(field insns "$work/s.out") instructions," \
     "state hash $(field state-hash "$work/s.out")"
cmp -s "$work/p.out" "$work/s.out" || die "the states differ"
cmp -s "$work/primary.txt" "$work/secondary.txt" || die "the outputs differ"
echo "   identical: same instruction count, same hash of registers, RAM and"
echo "   devices, same console output."

say "3. An idle guest, 1000 timer interrupts a second, for 2 seconds."
"$ftvm" run --guest "$build/guests/idle.bin" --timer-hz 1000 \
    --seconds 2 --record "$work/idle.log" --console none \
    >"$work/ip.out" || die "recording failed"
"$ftvm" run --guest "$build/guests/idle.bin" --timer-hz 1000 \
    --replay "$work/idle.log" --console none >"$work/is.out" ||
    die "replay failed"
cmp -s "$work/ip.out" "$work/is.out" || die "the idle states differ"
bytes=$(wc -c <"$work/idle.log")
echo "   replayed identically; the log is $bytes bytes:" \
     "$(awk -v b="$bytes" 'BEGIN { printf "%.3f", b * 8 / 2 / 1e6 }')" \
     "Mbit/s (VMware FT logs 1.43 Mbit/s for an idle 1000 Hz guest)."

say "4. A log with one interrupt moved by a single instruction."
seq=$("$ftlog" dump "$work/cpu.log" |
      awk '/ external interrupt /{ n++; if (n == 10) { print $1; exit } }')
"$ftlog" edit "$work/cpu.log" "$work/bad.log" --seq "$seq" --later ||
    die "cannot edit the log"
"$ftvm" run --guest "$build/guests/cpu.bin" --timer-hz 250 \
    --cmdline seed=42 --replay "$work/bad.log" --console none \
    >/dev/null 2>"$work/err"
rc=$?
[ "$rc" = 3 ] || die "the changed log was not refused (status $rc)"
echo "   refused (exit status 3):"
sed 's/^/   /' "$work/err"

say "Done: recorded, replayed exactly, and a wrong log caught."
