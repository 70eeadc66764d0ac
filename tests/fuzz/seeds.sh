#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# seeds.sh MKCORPUS NAME... - the committed seeds of each named corpus
# (tests/fuzz/corpus/NAME) are what the encoders write now: seeds left
# behind by a format change would only test the decoders' refusals.
# `make fuzz-corpus` writes them again.
set -u
NAME=seeds
. "$(dirname "$0")/../lib/test.sh"

mk=${1:?usage: seeds.sh MKCORPUS NAME...}
shift
scratch
mkdir "$work/c"
if ! "$mk" "$work/c" >"$work/out" 2>&1; then
    bad "$mk: $(cat "$work/out")"
    finish
    exit
fi
for name; do
    stale=
    n=0
    for f in "$work/c/$name"/*; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        cmp -s "$f" "tests/fuzz/corpus/$name/${f##*/}" ||
            stale="$stale ${f##*/}"
    done
    if [ "$n" = 0 ]; then
        bad "$name: the encoders wrote no seeds"
    elif [ -n "$stale" ]; then
        bad "$name: committed seeds not what the encoders write now:$stale \
(make fuzz-corpus writes them)"
    else
        ok "$name: $n seeds as the encoders write them"
    fi
done
finish
