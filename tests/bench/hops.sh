#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# hops.sh DIR [KV] - where a held output's time goes, from the traces
# that XLFT_TRACE=DIR made ftvm and both ftds write (xlft_trace.h): for
# each record an output was held at (first output only), the time from
# each hop to the next (held -> ftd read it from the ring -> LOG frame
# queued -> the secondary holds it -> its ACK queued -> the ACK in the
# guest's ring -> the output released), as p50 and p99 in microseconds.
# A hop is the first event of its kind at or past the record; one that
# began before the hop before it (ftd can read the record before ftvm
# notes the hold) counts 0.  With KV, "hop_<name>_p50_us V" lines are
# appended to it.
set -u

dir=${1:?usage: hops.sh TRACE_DIR [KV]}
kv=${2:-}
ls "$dir"/ftvm.* "$dir"/ftd.* >/dev/null 2>&1 || {
    echo "hops: no traces in $dir" >&2
    exit 1
}
cat "$dir"/ftvm.* "$dir"/ftd.* | tr -d '\000' | awk '
NF == 3 { n[$1]++; s[$1, n[$1]] = $2; t[$1, n[$1]] = $3 }
END {
    k = split("held seen sent recv acksent acked released", hop, " ")
    last = -1
    for (i = 1; i <= n["held"]; i++) {
        S = s["held", i] + 0
        if (S == last)
            continue
        last = S
        prev = t["held", i]
        start = prev
        line = ""
        for (j = 2; j <= k; j++) {
            h = hop[j]
            while (p[h] < n[h] && s[h, p[h] + 1] + 0 < S)
                p[h]++
            if (p[h] >= n[h]) {
                line = ""
                break
            }
            at = t[h, p[h] + 1]
            d = at - prev
            if (d < 0)
                d = 0
            line = line j " " hop[j - 1] "->" h " " d / 1000 "\n"
            if (at > prev)
                prev = at
        }
        if (line != "")
            printf "%s%d held->released %s\n", line, k + 1,
                   (prev - start) / 1000
    }
}' | sort -k1,1n -k3,3n | awk -v kv="$kv" '
function flush() {
    if (name == "")
        return
    p50 = v[int((c + 1) / 2)]
    p99 = v[int((c * 99 + 99) / 100)]
    printf "   %-22s %10.1f %10.1f %8d\n", name, p50, p99, c
    if (kv != "") {
        key = name
        gsub("->", "_to_", key)
        printf "hop_%s_p50_us %.1f\nhop_%s_p99_us %.1f\n", key, p50, key,
               p99 >> kv
    }
}
BEGIN { printf "   %-22s %10s %10s %8s\n", "hop, us", "p50", "p99", "outputs" }
$2 != name { flush(); name = $2; c = 0 }
{ v[++c] = $3 }
END { flush() }'
