#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# status.sh BUILD - what an operator sees of a pair, on two hosts
# (network namespaces) running ftd as a service:
#
#   host A 10.79.2.1 ---- va/vb ---- host B 10.79.2.2
#   vm1 (cpu guest, 512 MiB)         its copy, started by B's ftd
#   metrics: $work/A.prom            metrics: $work/B.prom
#
#   - ft-enable shows the copy streaming: lines with bytes growing to
#     100% (stdout is a file here, so plain lines); on a terminal (vm2,
#     256 MiB, under script(1)) one line rewritten in place;
#   - ft-status --json parses and says what the test knows: the state,
#     the peer, one generation on both hosts, numbers for lag, rates
#     and the ACK round trip, null where ftd cannot know;
#   - --watch refreshes every second: --count N times, or until SIGTERM;
#   - the metrics file parses as the Prometheus text format and its
#     values are the pair's;
#   - after ft-failover, B's copy went live (its JSON says so, and that
#     the arbiter's holder is B; B's metrics count it) and protects the
#     guest again with a new generation;
#   - the outputs vm3's gate holds on A, counted (none on B);
#   - a schema version ftd does not speak, an unknown guest and a bad
#     metrics-file are refused, saying what is wrong;
#   - a guest reading its disk (vm3): the bandwidth the sizing rule
#     predicts from its reads, beside the log measured.
# Without root or ip netns the test says so and exits 77.
set -u

build=${1:?usage: status.sh BUILD}
NAME=status
. "$(dirname "$0")/lib.sh"
check=$(dirname "$0")/promcheck.py
hosts_up "t" 10.79.2
command -v python3 >/dev/null || skip "needs python3 (tools/deps.sh check)"

newkey "$work/key"
mkdir -p "$work/arb"
mkdir -m 0700 "$work/runA" "$work/runB"
for h in A B; do
    ip=10.79.2.1 other=B
    [ $h = B ] && ip=10.79.2.2 other=A
    # Not the default 300 ms: copying a 512 MiB guest holds both ftds'
    # loops in calls to ftvm (the restore's REPLAY and UNPAUSE, the
    # state's memfd closed) long enough, on two cores shared with other
    # work, that the peer is taken for lost.  This test is about what the
    # operator sees; failover.sh and regress.sh time failure detection.
    cat >"$work/$h.conf" <<EOF
heartbeat-ms = 100
timeout-ms = 2000
host-name = host$h
listen = $ip:7800
key = $work/key
arbiter = file:$work/arb
run-dir = $work/run$h
ftvm = $ftvm
metrics-file = $work/$h.prom

[guest vm1]
peers = host$other
mem = 512

[guest vm2]
peers = host$other
mem = 256

[guest vm3]
peers = host$other
disk = $work/disk$h
EOF
done

xa() { ip netns exec "$a" timeout -k 5 60 "$xlft" --socket \
       "$work/runA/ftd.sock" "$@"; }
xb() { ip netns exec "$b" timeout -k 5 60 "$xlft" --socket \
       "$work/runB/ftd.sock" "$@"; }
# py FILE EXPR...: each Python expression true of the JSON document in
# FILE (as d; p: its first pair of role primary, s: of role secondary,
# not ended); what failed is printed.
py() {
    f=$1
    shift
    python3 - "$f" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
live = [x for x in d["pairs"] if not x["ended"]]
p = next((x for x in live if x["role"] == "primary"), None)
s = next((x for x in live if x["role"] == "secondary"), None)
for e in sys.argv[2:]:
    try:
        if not eval(e):
            sys.exit("false: %s" % e)
    except Exception as ex:
        sys.exit("%s: %r" % (e, ex))
PY
}

ip netns exec "$a" timeout -k 5 300 "$ftd" --config "$work/A.conf" \
    2>"$work/ftdA.err" &
ip netns exec "$b" timeout -k 5 300 "$ftd" --config "$work/B.conf" \
    2>"$work/ftdB.err" &
ip netns exec "$a" timeout -k 5 300 "$ftvm" serve \
    --control "$work/runA/vm1.sock" --guest "$build/guests/cpu.bin" \
    --mem 512 --cmdline seed=5 --console none >/dev/null \
    2>"$work/ftvm-vm1.err" &
until_true 200 xa ft-status && until_true 200 xb ft-status &&
until_true 200 "$dom0" "$work/runA/vm1.sock" status ||
    { bad "the daemons did not come up: $(cat "$work/ftdA.err" \
      "$work/ftdB.err")"; finish; exit 1; }

# 1. The copy's progress, as plain lines.
if xa ft-enable vm1 10.79.2.2 >"$work/enable" 2>&1; then
    # "copy: 12.0 MiB of 512.0 MiB (2%), ..." -> "12.0 512.0 2"
    awk '/^copy: [0-9.]* MiB of/ { gsub(/[(%),]/, "", $7)
        print $2, $5, $7 }' "$work/enable" >"$work/steps"
    if [ "$(wc -l <"$work/steps")" -ge 2 ] &&
       awk 'NR > 1 && $1 <= last { exit 1 } { last = $1 }' "$work/steps" &&
       tail -n 1 "$work/steps" | awk '$3 != 100 || $1 != $2 { exit 1 }' &&
       grep -q '^copy: done, vm1 is protected' "$work/enable"; then
        ok "ft-enable: $(wc -l <"$work/steps") progress lines, bytes \
growing to 100% ($(grep '(100%)' "$work/enable"))"
    else
        bad "ft-enable progress: $(cat "$work/enable")"
    fi
else
    bad "ft-enable: $(cat "$work/enable" "$work/ftdA.err")"
fi

# 2. The JSON status, once the pair has had a few seconds of log and
# its last second had some (a loaded machine leaves seconds without).
json_ready() {
    xa ft-status --json vm1 >"$work/a.json" &&
    py "$work/a.json" 'p["state"] == "protected"' \
        'p["lag_us"] is not None' 'p["records_per_s"] is not None' \
        'p["records_per_s"] > 0' 'p["ack_rtt_us"] is not None'
}
until_true 200 json_ready
xb ft-status --json vm1 >"$work/b.json"
gen=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))
    ["pairs"][0]["generation"])' "$work/a.json" 2>/dev/null)
if py "$work/a.json" 'd["version"] == 2' 'd["host"] == "hostA"' \
      'isinstance(d["time"], float)' 'p["name"] == "vm1"' \
      'p["peer"] == "10.79.2.2"' 'p["state"] == "protected"' \
      'isinstance(p["generation"], int) and p["generation"] > 0' \
      'isinstance(p["lag_us"], int)' 'p["records_per_s"] > 0' \
      'p["log_mbit_s"] > 0' 'p["predicted_log_mbit_s"] >= 0' \
      'isinstance(p["ack_rtt_us"], int)' \
      'p["records_sent"] >= p["records_acked"] > 0' \
      'p["records_unacked"] == p["records_sent"] - p["records_acked"]' \
      'isinstance(p["held_outputs"], int)' 'p["copy"] is None' \
      'p["arbiter_holder"] is None' 'p["went_live"] is False' \
      'p["end_reason"] is None' 2>"$work/x" &&
   py "$work/b.json" 'd["host"] == "hostB"' 's["name"] == "vm1"' \
      's["state"] == "protected"' 's["peer"] == "10.79.2.1"' \
      "s[\"generation\"] == $gen" 's["records_held"] > 0' \
      's["lag_us"] is None' 's["records_sent"] is None' \
      's["held_outputs"] is None' 2>>"$work/x"; then
    ok "ft-status --json: both hosts say protected, generation $gen, \
$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["pairs"][0]
print("lag", p["lag_us"], "us,", p["records_per_s"], "records/s,",
      p["log_mbit_s"], "Mbit/s, predicted", p["predicted_log_mbit_s"],
      ", ACK", p["ack_rtt_us"], "us")' "$work/a.json")"
else
    bad "ft-status --json: $(cat "$work/x" "$work/a.json" "$work/b.json" \
        "$work/ftdA.err" "$work/ftvm-vm1.err")"
fi
figures='rec/s=[0-9]* log-mbit=[0-9.]* predicted-mbit=[0-9.]*'
if xa ft-status vm1 | grep -q "$figures ack-rtt-us=[0-9]*"; then
    ok "ft-status: measured and predicted log beside each other"
else
    bad "ft-status text: $(xa ft-status vm1)"
fi

# 3. --watch: counted, and ended by SIGTERM.
if xa ft-status --watch --count 3 vm1 >"$work/w3" &&
   [ "$(grep -c '^--- ft-status at' "$work/w3")" = 3 ] &&
   [ "$(grep -c '^pair=vm1 role=primary state=protected' "$work/w3")" = 3 ] &&
   xa ft-status --watch --json --count 2 >"$work/wj" &&
   [ "$(wc -l <"$work/wj")" = 2 ] &&
   python3 -c 'import json,sys
for l in open(sys.argv[1]): json.loads(l)' "$work/wj"; then
    ok "--watch --count 3: three views; --json: one document a line"
else
    bad "--watch --count: $(cat "$work/w3" "$work/wj")"
fi
ip netns exec "$a" "$xlft" --socket "$work/runA/ftd.sock" ft-status \
    --watch >"$work/wt" 2>&1 &
watch=$!
until_true 100 grep -q 'state=protected' "$work/wt"
kill -TERM $watch
i=0
while kill -0 $watch 2>/dev/null && [ $i -lt 100 ]; do
    i=$((i + 1))
    sleep 0.05      # the watch's end, bounded
done
if kill -0 $watch 2>/dev/null; then
    bad "--watch did not end on SIGTERM"
    kill -KILL $watch
elif wait $watch; then
    ok "--watch ends on SIGTERM (status 0)"
else
    bad "--watch ended on SIGTERM with a failure: $(tail -n 3 "$work/wt")"
fi

# 4. The metrics files.
# (A pair protected, with log in its last second.)
metrics_ready() {
    python3 "$check" "$1" >"$2" &&
    grep -q "^xenft_pair_state{guest=\"vm1\",peer=\"$3\",role=\"$4\",\
state=\"protected\"} 1" "$2" &&
    awk '/^xenft_log_bits_per_second\{/ && $2 > 0 { n++ } END { exit !n }' \
        "$2"
}
if until_true 100 metrics_ready "$work/A.prom" "$work/a.m" 10.79.2.2 \
       primary &&
   until_true 100 metrics_ready "$work/B.prom" "$work/b.m" 10.79.2.1 \
       secondary &&
   grep -q '^xenft_pair_state{.*role="primary",state="live"} 0' \
       "$work/a.m" &&
   grep -q "^xenft_generation{.*role=\"primary\"} $gen\$" "$work/a.m" &&
   grep -q "^xenft_generation{.*role=\"secondary\"} $gen\$" "$work/b.m" &&
   grep -q '^xenft_lag_seconds{guest="vm1",.*role="primary"} [0-9.e-]*$' \
       "$work/a.m" &&
   grep -q '^xenft_ack_rtt_seconds{guest="vm1"' "$work/a.m" &&
   grep -q '^xenft_held_outputs{guest="vm1",.*role="primary"} [0-9]*$' \
       "$work/a.m" && ! grep -q '^xenft_held_outputs{' "$work/b.m" &&
   grep -q '^xenft_failovers_total{guest="vm1"} 0$' "$work/b.m" &&
   grep -q '^xenft_divergences_total{guest="vm1"} 0$' "$work/b.m"; then
    ok "metrics files parse (A: $(wc -l <"$work/a.m") samples); state, \
generation, log rate, lag, ACK time and counters are the pair's"
else
    bad "metrics: $(python3 "$check" "$work/A.prom"; cat "$work/A.prom" \
        "$work/B.prom")"
fi

# 5. Failover: B's copy goes live and is counted; it protects the guest
# again on A, with a new generation: by itself, or, where its attempt
# came too early, by the operator's hand (said).
newgen() {
    xb ft-status --json vm1 >"$work/b2.json" || return 1
    py "$work/b2.json" 'p is not None' 'p["state"] == "protected"' \
        "p[\"generation\"] > $gen" && return 0
    if [ ! -e "$work/by-hand" ] &&
       py "$work/b2.json" 'all(x["ended"] for x in d["pairs"])' &&
       "$dom0" "$work/runB/vm1.sock" status | grep -q mode=live; then
        echo "$NAME: B did not protect vm1 again by itself: ft-enable"
        touch "$work/by-hand"
        xb ft-enable vm1 10.79.2.1 >/dev/null
    fi
    return 1
}
# The copy that went live stays listed a second or two after it ended.
took_over() {
    xb ft-status --json vm1 >"$work/b1.json" &&
    py "$work/b1.json" 'any(x.get("went_live") and
        x.get("arbiter_holder") == "hostB" and x["generation"] == '$gen'
        for x in d["pairs"])'
}
if xa ft-failover vm1 >"$work/x" &&
   until_true 200 took_over; then
    ok "after ft-failover B's JSON: went live, the arbiter's holder hostB"
else
    bad "took over: $(cat "$work/b1.json")"
fi
if until_true 400 newgen &&
   until_true 100 grep -q '^xenft_failovers_total{guest="vm1"} 1$' \
       "$work/B.prom"; then
    ok "after ft-failover B protects vm1 on A: generation $gen -> \
$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print([p.get("generation") for p in d["pairs"]
       if not p["ended"] and p.get("role") == "primary"][0])' \
"$work/b2.json"); B's metrics count 1 failover"
else
    bad "failover: $(cat "$work/x" "$work/b2.json"; grep failovers \
        "$work/B.prom"; tail -n 5 "$work/ftdA.err" "$work/ftdB.err")"
fi

# 6. Refusals.
ask() {
    ip netns exec "$a" python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode() + b"\n")
print(s.makefile().read(), end="")' "$work/runA/ftd.sock" "$1"
}
# Version 1 (held_outputs always null) is an older xl-ft's.
for v in 1 3; do
    if ask "status-json $v" | grep -q "^error: status schema version '$v' \
is not spoken here: this ftd speaks version 2$"; then
        ok "a status schema ftd does not speak is refused: $(ask \
"status-json $v")"
    else
        bad "status-json $v: $(ask "status-json $v")"
    fi
done
if ! xa ft-status --json ghost >"$work/x" 2>"$work/y" &&
   [ ! -s "$work/x" ] &&
   grep -q "no pair for ghost on this host" "$work/y"; then
    ok "ft-status --json of an unknown guest: $(cat "$work/y")"
else
    bad "unknown guest: $(cat "$work/x" "$work/y")"
fi
mkdir -m 0700 "$work/runC"
for bad_path in "relative.prom" "$work/nodir/x.prom"; do
    sed "s|^metrics-file = .*|metrics-file = $bad_path|; \
s|^listen = .*|listen = 127.0.0.1:7801|; s|runA|runC|" "$work/A.conf" \
        >"$work/C.conf"
    if ip netns exec "$a" timeout -k 5 10 "$ftd" --config "$work/C.conf" \
           2>"$work/x"; then
        bad "metrics-file $bad_path accepted"
    elif grep -q "metrics-file $bad_path" "$work/x"; then
        ok "bad metrics-file refused: $(cat "$work/x")"
    else
        bad "metrics-file $bad_path: $(cat "$work/x")"
    fi
done

# 7. The progress on a terminal: one line, rewritten.
ip netns exec "$a" timeout -k 5 300 "$ftvm" serve \
    --control "$work/runA/vm2.sock" --guest "$build/guests/idle.bin" \
    --mem 256 --console none >/dev/null \
    2>"$work/ftvm-vm2.err" &
until_true 200 "$dom0" "$work/runA/vm2.sock" status
if ! command -v script >/dev/null; then
    echo "$NAME: no script(1) for a terminal: not tested on one (skipped)"
elif ip netns exec "$a" timeout -k 5 60 script -qec "'$xlft' --socket \
         '$work/runA/ftd.sock' ft-enable vm2 10.79.2.2" /dev/null \
         >"$work/tty" 2>&1; then
    # Each rewrite starts with a carriage return and clears the line.
    tr '\r' '\n' <"$work/tty" | grep '^copy: [0-9.]* MiB of' >"$work/rw"
    if [ "$(wc -l <"$work/rw")" -ge 2 ] &&
       [ "$(grep -c "$(printf '\033')\[K" "$work/tty")" -ge 1 ] &&
       [ "$(grep -c '^copy: ' "$work/tty")" -le 2 ] &&
       tail -n 1 "$work/rw" | grep -q '(100%)' &&
       grep -q 'copy: done, vm2 is protected' "$work/tty"; then
        ok "ft-enable on a terminal: one line rewritten $(wc -l \
<"$work/rw") times, to 100%"
    else
        bad "ft-enable on a terminal: $(od -c "$work/tty" | head -n 20)"
    fi
else
    bad "ft-enable vm2 under script: $(cat "$work/tty")"
fi

# 8. The sizing rule on a guest that reads its disk all the time.
truncate -s 2M "$work/diskA" "$work/diskB"
ip netns exec "$a" timeout -k 5 300 "$ftvm" serve \
    --control "$work/runA/vm3.sock" --guest "$build/guests/disk.bin" \
    --cmdline every=1 --disk "$work/diskA" --console none >/dev/null \
    2>"$work/ftvm-vm3.err" &
until_true 200 "$dom0" "$work/runA/vm3.sock" status
reads() {
    xa ft-status --json vm3 >"$work/a3.json" &&
    py "$work/a3.json" 'p["state"] == "protected"' 'p["dma_bytes"] > 0' \
        'p["predicted_log_mbit_s"] is not None' \
        'p["predicted_log_mbit_s"] > 0'
}
if xa ft-enable vm3 10.79.2.2 >/dev/null && until_true 300 reads &&
   py "$work/a3.json" 'p["log_bytes"] >= p["dma_bytes"]' \
       'p["log_mbit_s"] * 1.2 >= p["predicted_log_mbit_s"] - 0.002' \
       2>"$work/x" &&
   xa ft-status vm3 | grep -q 'predicted-mbit=[0-9]*\.[0-9]*[1-9]'; then
    ok "disk guest: $(python3 -c 'import json,sys
p = json.load(open(sys.argv[1]))["pairs"][0]
print("log %.3f Mbit/s measured, %.3f predicted (reads x 1.2); DMA %d of"
      " %d log bytes" % (p["log_mbit_s"], p["predicted_log_mbit_s"],
                         p["dma_bytes"], p["log_bytes"]))' "$work/a3.json")"
else
    bad "predicted bandwidth: $(cat "$work/x" "$work/a3.json")"
fi

# 9. The outputs the gate holds: vm3's disk writes wait on A until B
# acknowledges the log that holds them, so a sample of A's status finds
# some held, never more than the records unacknowledged (an output is a
# record), and B's status has none to hold.
some_held() {
    xa ft-status --json vm3 >"$work/h.json" &&
    py "$work/h.json" 'p["state"] == "protected"' \
        '0 < p["held_outputs"] <= p["records_unacked"]'
}
if until_true 1000 some_held && xb ft-status --json vm3 >"$work/h2.json" &&
   py "$work/h2.json" 's["held_outputs"] is None' 2>"$work/x"; then
    ok "held outputs: $(python3 -c 'import json,sys
p = json.load(open(sys.argv[1]))["pairs"][0]
print("%d of vm3'"'"'s writes held on A, %d records unacknowledged"
      % (p["held_outputs"], p["records_unacked"]))' "$work/h.json")"
else
    bad "held outputs: $(cat "$work/h.json" "$work/ftdA.err" \
        "$work/ftvm-vm3.err")"
fi

finish
