#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# run-check.sh - the units of `make check` (each test script or program
# it runs) and their verdict.
#
#   run-check.sh run [-q] DIR UNIT CMD...
#       runs CMD, its output shown and kept in DIR/UNIT.log; its outcome
#       in DIR/UNIT.result: pass, fail (any status but 0 and 77) or skip
#       (77), with the seconds it took and a reason: for a skip the text
#       of the last "SKIP: " line CMD printed, for a failure its status
#       and the last line saying FAIL (else its last line).  -q: the
#       output goes to the log only and one PASS/FAIL/SKIP line is shown.
#       Exits 0 whatever CMD did (the summary judges), 2 on a usage
#       error.  UNIT may hold slashes: DIR/ftd/failover.result.
#   run-check.sh summary DIR [GROUP...]
#       every result under DIR (or under DIR/GROUP, those only): each
#       skip and failure with its reason, then one line "N passed, N
#       failed, N skipped"; exits 1 if any failed or none ran.
# Units write separate files, so that `make -j2 check` may run two at once.
set -u

usage() {
    echo "usage: run-check.sh run [-q] DIR UNIT CMD... |" \
        "summary DIR [GROUP...]" >&2
    exit 2
}

# reason LOG STATUS: why a unit did not pass, in one line.
reason() {
    if [ "$2" = 77 ]; then
        r=$(sed -n 's/^.*SKIP: //p' "$1" | tail -n 1)
        echo "${r:-exit 77 without a SKIP: line saying why}"
        return
    fi
    r=$(grep 'FAIL' "$1" | tail -n 1)
    [ -n "$r" ] || r=$(grep -v '^[[:space:]]*$' "$1" | tail -n 1)
    echo "exit $2: ${r:-no output}"
}

run() {
    quiet=
    [ "${1:-}" = -q ] && { quiet=1; shift; }
    [ $# -ge 3 ] || usage
    dir=$1 unit=$2
    shift 2
    base=$dir/$unit
    mkdir -p "$(dirname "$base")" || exit 2
    rm -f "$base.result" "$base.rc"
    t0=$(date +%s)
    if [ -n "$quiet" ]; then
        "$@" >"$base.log" 2>&1 </dev/null
        echo $? >"$base.rc"
    else
        # The status through a file: a pipeline's is tee's.
        { "$@" 2>&1 </dev/null; echo $? >"$base.rc"; } | tee "$base.log"
    fi
    st=$(cat "$base.rc" 2>/dev/null)
    rm -f "$base.rc"
    secs=$(($(date +%s) - t0))
    case ${st:-none} in
    0) outcome=pass why= ;;
    77) outcome=skip why=$(reason "$base.log" 77) ;;
    *) outcome=fail why=$(reason "$base.log" "${st:-none}") ;;
    esac
    echo "$outcome $secs $why" >"$base.result"
    case $outcome in
    pass) echo "PASS $unit ($secs s)" ;;
    skip) echo "SKIP $unit: $why" ;;
    fail)
        echo "FAIL $unit ($secs s): $why"
        [ -z "$quiet" ] || sed 's/^/    /' "$base.log" | tail -n 40
        ;;
    esac
    exit 0
}

summary() {
    [ $# -ge 1 ] || usage
    dir=${1%/}
    shift
    [ $# -gt 0 ] || set -- .
    list=$(mktemp) || exit 2
    for g in "$@"; do
        find "$dir/$g" -name '*.result' 2>/dev/null
    done | sort >"$list"
    passed=0 failed=0 skipped=0
    while read -r f; do
        unit=${f%.result}
        unit=${unit#"$dir"/}
        unit=${unit#./}
        read -r outcome _ why <"$f"
        case $outcome in
        pass) passed=$((passed + 1)) ;;
        skip) skipped=$((skipped + 1)); echo "SKIP $unit: $why" ;;
        *)
            failed=$((failed + 1))
            echo "FAIL $unit: $why (log: $dir/$unit.log)"
            ;;
        esac
    done <"$list"
    rm -f "$list"
    echo "$passed passed, $failed failed, $skipped skipped"
    if [ $((passed + failed + skipped)) = 0 ]; then
        echo "run-check: no results under $dir" >&2
        exit 1
    fi
    [ $failed = 0 ]
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
run) run "$@" ;;
summary) summary "$@" ;;
*) usage ;;
esac
