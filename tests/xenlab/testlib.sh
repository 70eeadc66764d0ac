# SPDX-License-Identifier: GPL-2.0-only
#
# testlib.sh - sourced by tests/*.sh: run a command in the lab (its
# output goes to the test's log), check that output.  A test exits 0
# (pass), 77 (cannot run here) or 1 (fail).
. "$(dirname "$0")/../lib.sh"

out=$(mktemp)
own_put=
trap 'rm -f "$out"; [ -z "$own_put" ] || rm -rf "$own_put"' EXIT

# lab [RUN OPTIONS] -- CMD...: run.sh's output in $out, its status in $st.
lab() {
    st=0
    sh "$XL_SRC/run.sh" "$@" > "$out" 2>&1 || st=$?
    cat "$out"
    [ $st != $XL_SKIP ] || exit $XL_SKIP
}

fail() {
    echo "FAIL: $*"
    exit 1
}

# expect_status N: the command's status was N.
expect_status() {
    [ "$st" = "$1" ] || fail "status $st, expected $1"
}

# expect_lines REGEX...: each extended regular expression matches a line
# of the output (tests/lib/test.sh's expect judges a command run here).
expect_lines() {
    for re in "$@"; do
        grep -Eq -- "$re" "$out" || fail "no line matches '$re'"
    done
}

# lab_put FILE...: the project's build outputs (paths under the build
# directory, e.g. tests/xlft-xen) in a staging directory of this test's
# own, seen in dom0 at /xenft, with dom0.sh for the dom0 scripts.
lab_put() {
    build=${XENLAB_BUILD:-$(dirname "$XL_OUT")}
    own_put=$(mktemp -d)
    XENLAB_PUT=$own_put
    export XENLAB_PUT
    sh "$XL_SRC/put.sh" "$XL_SRC/dom0.sh" || fail "cannot put dom0.sh"
    for f in "$@"; do
        [ -e "$build/$f" ] || fail "$build/$f is not built (make)"
        sh "$XL_SRC/put.sh" "$build/$f" || fail "cannot put $f"
    done
}

# patched_image: $image, the hypervisor built from xen-patches, or the
# test is skipped, saying how to build it.
patched_image() {
    image=$XL_OUT/xen-patched.gz
    [ -f "$image" ] && return 0
    echo "SKIP: no $image (make check-xen XEN_SRC=XEN-TREE-OR-TARBALL," \
        "or xen-patches/verify.sh XEN-TREE, builds it)"
    exit 77
}

# put_key: a fresh pair key in the test's staging directory (after
# lab_put), which both hosts see as /xenft/ft.key.
put_key() {
    (umask 077; od -An -tx1 -N32 /dev/urandom | tr -d " \n" \
        > "$own_put/ft.key") || fail "cannot write the pair's key"
}

# diverge_lab EDIT: the divergence tests' run (dom0.sh, diverge_copy and
# diverge_primary): the idle guest protected with the step counter on
# host 1, a record of its copy's ring changed on host 2 by xen-ring-edit
# EDIT (move, hash); the output in $out.
diverge_lab() {
    patched_image
    lab_put bin/ftd guests/idle.bin tests/xlft-xen tests/xen-ring-edit
    put_key
    lab --hosts 2 --xen "$image" --timeout 540 -- "
. /xenft/dom0.sh
ft_setup
opts=\"\$opts --timeout 600000\"
idle_cfg 20 fit
if [ \"\$XENLAB_HOST\" = 2 ]; then
    diverge_copy idle $1
    exit 0
fi
xl create /tmp/idle.cfg || exit 1
ticks 2
peer_ready
diverge_primary idle
"
}

# expect_replayed [quiet]: after dom0.sh's replay_primary and
# replay_copy, the primary and its copy agree on the count, on the hashes
# of RAM and registers, on the PIT's state the guest drives (its byte
# flip-flops: xen-state-hash), on the interrupts in service, on the
# RTC's periodic flags (set by its timer's callback as a tick is
# delivered), on the page where hvmloader had mapped shared_info (which
# Xen must no longer write), and the copy's console is the end of the
# primary's (with quiet, both may have written nothing since the copy).
expect_replayed() {
    for what in ram vcpu pit irq timers page; do
        h1=$(sed -n "s/^primary $what: //p" "$out")
        h2=$(sed -n "s/^copy $what: //p" "$out")
        [ -n "$h1" ] && [ "$h1" = "$h2" ] ||
            fail "$what differs: primary '$h1', copy '$h2'"
    done
    c1=$(sed -n 's/^state record .* count \([0-9]*\) .*/\1/p' "$out")
    c2=$(sed -n 's/^state replay .* count \([0-9]*\) .*/\1/p' "$out")
    [ -n "$c1" ] && [ "$c1" -gt 0 ] && [ "$c1" = "$c2" ] ||
        fail "counts differ: primary '$c1', copy '$c2'"
    n=$(grep -c '^copy console: ' "$out")
    [ "$n" -gt 0 ] || [ "${1:-}" = quiet ] ||
        fail "the copy wrote nothing on its console"
    sed -n 's/^copy console: //p' "$out" > "$out.copy"
    sed -n 's/^primary console: //p' "$out" | tail -n "$n" > "$out.pri"
    if ! cmp -s "$out.copy" "$out.pri"; then
        diff "$out.pri" "$out.copy"
        rm -f "$out.copy" "$out.pri"
        fail "the copy's console is not the end of the primary's"
    fi
    rm -f "$out.copy" "$out.pri"
    echo "replayed: count $c1, RAM, registers, PIT, interrupts in" \
        "service, RTC flags and the shared_info page agree, $n console" \
        "lines"
}

# expect_golive LINES: after dom0.sh's golive_primary and golive_copy,
# the copy's console ("copy console: idle: N ticks, tsc T") first
# repeats the primary's lines, identically and with none left out: all
# the K lines host 1 wrote before its record S ("host 1: died at seq S
# count C after K lines"), since the copy went live past S ("live at
# record H").  The first line of its own after them (a tick the primary
# wrote differently, or never) starts its life: from there, at least
# LINES lines, their ticks and TSC still rising.  The primary's lines
# past the copy's were never acknowledged: on Xen its console is not
# held yet (ftdm), and they are counted, not judged.
expect_golive() {
    awk -v more="$1" '
    function bad(why) { print "FAIL: " why; failed = 1; exit 1 }
    /^host 1: died at seq [0-9]+ count [0-9]+ after [0-9]+ lines$/ {
        seq = $6; lines = $10
    }
    /^secondary: ftd: .*: live at record [0-9]+,/ {
        sub(/.*live at record /, ""); sub(/,.*/, ""); held = $0
    }
    # A line cut short where the console was read is not one.
    /^(primary|copy) console: idle: [0-9]+ ticks, tsc 0x[0-9a-f]+$/ &&
    length($7) == 18 {
        n = $4; tsc = $7
        if ($1 == "primary") {
            pn[++np] = n; pt[n] = tsc
            next
        }
        if (nc && (n <= cn || tsc <= ctsc))
            bad("the copy wrote tick " n " (TSC " tsc ") after tick " \
                cn " (TSC " ctsc ")")
        if (!nc) {
            for (i = 1; i <= np && pn[i] < n; i++)
                ;
            if (i > np || pn[i] != n)
                bad("the copy starts at tick " n ", which the primary " \
                    "never wrote")
            next_p = i
        }
        nc++; cn = n; ctsc = tsc
        if (live) {
            lived++
            next
        }
        if (next_p <= np && pn[next_p] == n && pt[n] == tsc) {
            replayed = next_p++
            next
        }
        live = n; lived = 1
    }
    END {
        if (failed)
            exit 1
        if (seq == "" || held == "")
            bad("no point of death from host 1, or no live record")
        if (held + 0 <= seq + 0)
            bad("the copy went live at record " held ", not past record " \
                seq " where host 1 had written " lines " lines")
        if (!np || !nc)
            bad("no ticks on " (np ? "the copy" : "the primary"))
        if (replayed < lines)
            bad("the copy repeats the primary up to its line " \
                replayed + 0 " (tick " pn[replayed] "), not " lines \
                " (tick " pn[lines] ")")
        if (lived < more)
            bad("the copy wrote " lived + 0 " lines live, not " more)
        printf "went live: the copy repeats ticks to %d, then lives " \
            "from tick %d (%d lines); %d of the primary'"'"'s lines " \
            "unacknowledged\n", pn[replayed], live, lived, np - replayed
    }' "$out" || exit 1
}
