# SPDX-License-Identifier: GPL-2.0-only
#
# testlib.sh - sourced by tests/*.sh: run a command in the lab (its
# output goes to the test's log), check that output.  A test exits 0
# (pass), 77 (cannot run here) or 1 (fail).
. "$(dirname "$0")/../lib.sh"

out=$(mktemp)
trap 'rm -f "$out"' EXIT

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

# expect REGEX...: each extended regular expression matches a line.
expect() {
    for re in "$@"; do
        grep -Eq -- "$re" "$out" || fail "no line matches '$re'"
    done
}
