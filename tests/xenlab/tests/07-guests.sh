#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# 07-guests.sh - the project's guests boot as Xen HVM guests through
# kernel= (QEMU's linuxboot.bin, then the guests' own Linux boot setup)
# and print on their serial port what they print under ftvm: idle its
# ticks, cpu the same checksums for the same seed, which proves the same
# program computed the same thing on Xen.
. "$(dirname "$0")/../testlib.sh"

build=$XL_TOP/build
for f in "$build/bin/ftvm" "$build/guests/idle.bin" "$build/guests/cpu.bin"; do
    [ -e "$f" ] || fail "$f is missing: run make first"
done
put=$(mktemp -d)
trap 'rm -rf "$out" "$put"' EXIT
cp "$build/guests/idle.bin" "$build/guests/cpu.bin" "$XL_SRC/dom0.sh" "$put/"

# What cpu computes under ftvm for seed 7: rounds 1 to 3 (~25 M
# instructions each).
timeout -k 5 120 "$build/bin/ftvm" run --guest "$build/guests/cpu.bin" \
    --cmdline seed=7 --insns 100000000 --console "$put/ftvm.log" \
    > /dev/null || fail "ftvm could not run cpu"
sums=$(grep -E '^cpu: round [123] sum ' "$put/ftvm.log" | cut -d' ' -f1-5)
[ "$(echo "$sums" | wc -l)" = 3 ] || fail "ftvm printed no 3 rounds of cpu"
rm "$put/ftvm.log"

XENLAB_PUT=$put lab -- '
. /xenft/dom0.sh
# run NAME CMDLINE REGEX: boot /xenft/NAME.bin, wait for three serial
# lines matching REGEX (at most 120 s), destroy it, print its output.
run() {
    hvm_create "$1" "kernel = \"/xenft/$1.bin\"" "cmdline = \"$2\"" \
        "serial = \"file:/tmp/$1.log\""
    n=0
    until [ "$(grep -Ec "$3" /tmp/$1.log 2>/dev/null)" -ge 3 ]; do
        n=$((n + 1))
        if [ $n -gt 240 ]; then
            echo "$1: not three lines matching \"$3\" after 120 s"
            head -c 2000 /tmp/$1.log
            xl dmesg | tail
            exit 1
        fi
        sleep 0.5
    done
    xl destroy $1 || exit 1
    head -n 20 /tmp/$1.log | awk "{ print \"serial: \" \$0 }"
}
# Ticks that came while the host was busy are delivered late, so idle
# may report a few more ticks than 100 a line.
run idle "hz=100" "^idle: [0-9]+ ticks"
run cpu "seed=7" "^cpu: round [0-9]+ sum"
if xl list | grep -Eq "^(idle|cpu) "; then echo still-there; exit 1; fi
echo destroyed
'
expect_status 0
expect_lines '^serial: idle: timer at 100 Hz$' \
    '^serial: idle: 1[0-9]{2} ticks, tsc 0x[0-9a-f]{16}$' \
    '^serial: idle: [2-9][0-9]{2} ticks, tsc 0x[0-9a-f]{16}$' \
    '^serial: cpu: seed 7$' '^destroyed$'
echo "$sums" | while read -r line; do
    grep -q "^serial: $line ticks " "$out" || fail "Xen's cpu did not" \
        "print '$line' as ftvm did"
done || exit 1
