#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# pairs.sh BUILD N - record a guest on ftvm, replay it in a separate
# process, and require the same instruction count, state hash and
# console output; N pairs over the guests, timer rates and seeds, drawn
# from a seed that is printed (FT_TEST_SEED=... repeats a run).
# One host, no network: each pair two ftvm processes, one after the
# other, the log a file between them.
set -u

build=${1:?usage: pairs.sh BUILD N}
pairs=${2:?usage: pairs.sh BUILD N}
NAME=pairs
. "$(dirname "$0")/lib.sh"
seed=${FT_TEST_SEED:-$(date +%s)}

[ -x "$ftvm" ] || { echo "pairs.sh: $ftvm is not built" >&2; exit 2; }
echo "record/replay pairs: $pairs, seed $seed"

# A small LCG so the draw is the same in every shell.
rnd_state=$seed
rnd() {
    rnd_state=$(( (rnd_state * 1103515245 + 12345) % 2147483648 ))
    echo $(( rnd_state / 65536 % $1 ))
}

i=0
while [ "$i" -lt "$pairs" ]; do
    i=$((i + 1))
    set -- 82 100 250 1000 4000
    shift "$(rnd 5)"
    hz=$1
    disk=
    pick=$(rnd 8)
    if [ "$pick" = 0 ]; then
        guest=idle
        run="--seconds 0.$((2 + $(rnd 3)))"
        args="report=$((50 + $(rnd 200)))"
    elif [ "$pick" = 1 ]; then
        guest=disk
        run="--seconds 0.$((2 + $(rnd 3)))"
        args="seed=$(rnd 100000),every=$((5 + $(rnd 50)))"
        rm -f "$work/disk"
        truncate -s $((1 + $(rnd 4)))M "$work/disk"
        disk="--disk $work/disk"
    elif [ "$pick" = 2 ]; then
        guest=vcheck                    # powers off by itself
        run="--seconds 5"
        args="case=$(rnd 6)"
        rm -f "$work/disk"
        truncate -s 1M "$work/disk"
        disk="--disk $work/disk"
    else
        guest=cpu
        run="--insns $((1000000 + $(rnd 20000000)))"
        args="seed=$(rnd 100000)"
    fi
    what="$guest hz=$hz $args $run"
    common="--guest $build/guests/$guest.bin --timer-hz $hz --cmdline $args"
    # shellcheck disable=SC2086
    if ! timeout -k 10 120 "$ftvm" run $common $run $disk --record "$work/log" \
            --console "$work/c1" >"$work/o1" 2>"$work/e1"; then
        bad "$i ($what): recording failed: $(cat "$work/e1")"
        continue
    fi
    # shellcheck disable=SC2086
    if ! timeout -k 10 120 "$ftvm" run $common --replay "$work/log" \
            --console "$work/c2" >"$work/o2" 2>"$work/e2"; then
        bad "$i ($what): replay failed: $(cat "$work/e2")"
        continue
    fi
    if ! cmp -s "$work/o1" "$work/o2" || ! cmp -s "$work/c1" "$work/c2"; then
        bad "$i ($what): record and replay differ: $(paste "$work/o1" \
            "$work/o2")"
        continue
    fi
    if ! grep -q '^insns=[1-9]' "$work/o1" ||
       ! grep -q '^state-hash=[0-9a-f]\{16\}$' "$work/o1"; then
        bad "$i ($what): no insns= and state-hash= lines"
        continue
    fi
    passed=$((passed + 1))     # not said: there are hundreds
done
finish
