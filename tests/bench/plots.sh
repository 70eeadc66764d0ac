#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# plots.sh - draw the figures of one make bench run as PNGs, for README.
#   sh tests/bench/plots.sh BENCH_DIR OUT_DIR
#
# Reads BENCH_DIR/core.kv (run-core.sh) and the samples run-ftd.sh left
# in BENCH_DIR/plot; writes into OUT_DIR:
#   channel.png    the logging channel's MB/s in each round, against
#                  plain TCP in the same round
#   reply-cdf.png  the kvstore guest's reply times, unprotected and
#                  protected by ftd, as distributions
#   failover.png   failure to live, each failover scenario
#   log-rate.png   an idle guest's log, Mbit/s against the timer rate,
#                  beside VMware FT's published figures
# Exits non-zero, naming what is missing, if any input is not there:
# a plot is never drawn from an older run's figures.
set -u

in=${1:?usage: plots.sh BENCH_DIR OUT_DIR}
out=${2:?usage: plots.sh BENCH_DIR OUT_DIR}
plot=$in/plot

fail() {
    echo "plots: FAILED: $*" >&2
    exit 1
}

command -v gnuplot >/dev/null 2>&1 ||
    fail "gnuplot is not installed: apt-get install gnuplot-nox" \
         "(make bench installs it as root)"
for f in "$in/core.kv" "$plot/channel.dat" "$plot/reply-unprotected.us" \
         "$plot/reply-protected.us" "$plot/failover_ms.ms" \
         "$plot/failover_silent_ms.ms" "$plot/failover_idle_guest_ms.ms"; do
    [ -s "$f" ] || fail "$f is missing or empty (did run-core.sh and" \
                        "run-ftd.sh both finish in this run?)"
done
mkdir -p "$out" || fail "cannot make $out"

# The three timer rates, ours and VMware's, from core.kv.
rates=$in/plot/log-rate.dat
awk '
    /^core_mbit_s_idle_[0-9]+hz / { h = $1; sub(/.*_/, "", h)
                                    sub(/hz/, "", h); ours[h] = $2 }
    /^vmware_mbit_s_idle_[0-9]+hz / { h = $1; sub(/.*_/, "", h)
                                      sub(/hz/, "", h); vm[h] = $2 }
    END { for (h in ours) if (h in vm) print h, ours[h], vm[h] }
' "$in/core.kv" | sort -n >"$rates"
[ "$(wc -l <"$rates")" -ge 2 ] ||
    fail "$in/core.kv has fewer than two timer rates with VMware's beside"

gnuplot <<EOF || fail "gnuplot failed"
set terminal pngcairo size 800,480 font "sans,10"
# Counted first: stats keeps only what the ranges set below let through.
stats "$plot/reply-unprotected.us" using 1 nooutput name "U"
stats "$plot/reply-protected.us" using 1 nooutput name "P"
stats "$plot/failover_ms.ms" using 1 nooutput name "K"
stats "$plot/failover_silent_ms.ms" using 1 nooutput name "S"
stats "$plot/failover_idle_guest_ms.ms" using 1 nooutput name "I"
set grid
set key below

set output "$out/channel.png"
set title "Logging channel over loopback, 512 MiB of records a round"
set xlabel "round"
set ylabel "MB/s"
set yrange [0:*]
set xtics 1
plot "$plot/channel.dat" using 1:2 with linespoints title "plain TCP", \
     "" using 1:3 with linespoints title "channel, in clear", \
     "" using 1:4 with linespoints title "channel, AES-256-GCM"

set output "$out/reply-cdf.png"
set title "kvstore guest: request to reply over its tap"
set xlabel "reply time, us (log scale)"
set ylabel "fraction of replies"
set logscale x
set xtics auto
set yrange [0:1]
plot "$plot/reply-unprotected.us" using 1:((\$0 + 1) / U_records) \
         with lines lw 2 title "unprotected", \
     "$plot/reply-protected.us" using 1:((\$0 + 1) / P_records) \
         with lines lw 2 title "protected by ftd (output held until ACKed)"

set output "$out/failover.png"
set title "Failure of the primary host to the secondary live"
set xlabel "ms"
set ylabel "fraction of failovers"
unset logscale x
set xrange [0:*]
plot "$plot/failover_ms.ms" using (\$1):(1) smooth cnorm \
         with steps lw 2 title sprintf("cpu guest, host killed (%d)", \
                                       K_records), \
     "$plot/failover_silent_ms.ms" using (\$1):(1) smooth cnorm \
         with steps lw 2 title sprintf("cpu guest, host silent (%d)", \
                                       S_records), \
     "$plot/failover_idle_guest_ms.ms" using (\$1):(1) smooth cnorm \
         with steps lw 2 title sprintf("idle guest, host killed (%d)", \
                                       I_records)

set output "$out/log-rate.png"
set title "Log of an idle guest (timer interrupt and TSC read a tick)"
set xlabel "guest timer, Hz"
set ylabel "Mbit/s (log scale)"
set logscale y
set xrange [0:*]
set yrange [*:*]
plot "$rates" using 1:3 with linespoints lw 2 pt 7 title "VMware FT", \
     "$rates" using 1:2 with linespoints lw 2 pt 5 title "xenft"
EOF

for p in channel reply-cdf failover log-rate; do
    [ -s "$out/$p.png" ] || fail "gnuplot wrote no $out/$p.png"
done
echo "plots: channel, reply-cdf, failover and log-rate drawn in $out"
