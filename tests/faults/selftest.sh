#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# selftest.sh - the nemesis checker on hand-made histories: good.hist
# and good-*.hist must pass; every other must fail with the violation
# its name says (before any '-').
set -u
here=$(cd "$(dirname "$0")" && pwd)
failed=0
for f in "$here"/selftest/*.hist; do
    name=$(basename "$f" .hist)
    awk -f "$here/check.awk" "$f" >"${TMPDIR:-/tmp}/nemesis-self.$$"
    rc=$?
    case $name in
    good|good-*) want=0 kind="" ;;
    unheld|released) want=1 kind=unexplained ;;
    *) want=1 kind=${name%%-*} ;;
    esac
    if [ $rc != $want ] ||
       { [ -n "$kind" ] &&
         ! grep -q "^VIOLATION $kind:" "${TMPDIR:-/tmp}/nemesis-self.$$"; }
    then
        echo "FAIL: checker on $name.hist: exit $rc, want $want" \
             "${kind:+with a $kind violation}:"
        cat "${TMPDIR:-/tmp}/nemesis-self.$$"
        failed=$((failed + 1))
    else
        echo "ok: checker on $name.hist: exit $rc${kind:+, $kind found}"
    fi
done
rm -f "${TMPDIR:-/tmp}/nemesis-self.$$"
echo "nemesis checker self-test: $failed failed"
[ $failed = 0 ]
