#!/bin/sh
# Check the series without a Xen tree: every patch listed in 'series'
# exists and is a mail made by git format-patch (From, Subject, a
# Signed-off-by in the message), its diff parses as a unified diff whose
# hunks hold the lines they announce, no patch carries a copy of hvm/core
# (import-core.sh brings it in), and no patch file is left out of series.
#   xen-patches/check-series.sh [DIR]     (DIR: default, this directory)
set -eu

dir=${1:-$(cd "$(dirname "$0")" && pwd)}
series=$dir/series
status=0

bad() {
    echo "check-series: $*" >&2
    status=1
}

[ -f "$series" ] || { bad "no series file in $dir"; exit 1; }

listed=$(grep -v '^[[:space:]]*\(#.*\)\?$' "$series" || true)
[ -n "$listed" ] || bad "series lists no patch"

for p in $listed; do
    case "$p" in
    */*|.*) bad "series: '$p' is not a file name in $dir"; continue ;;
    esac
    f=$dir/$p
    [ -f "$f" ] || { bad "series lists $p, which does not exist"; continue; }
    awk -v name="$p" '
    function err(msg) {
        printf "check-series: %s:%d: %s\n", name, NR, msg > "/dev/stderr"
        failed = 1
        exit 1
    }
    function hunk_header(line,    a, n) {
        # @@ -l[,s] +l[,s] @@
        if (line !~ /^@@ -[0-9]+(,[0-9]+)? \+[0-9]+(,[0-9]+)? @@/)
            err("malformed hunk header: " line)
        split(line, a, " ")
        n = split(substr(a[2], 2), o, ",")
        old = n > 1 ? o[2] + 0 : 1
        n = split(substr(a[3], 2), o, ",")
        new = n > 1 ? o[2] + 0 : 1
        state = "hunk"
        hunks++
    }
    function new_file(p) {
        files++
        path = p
        plus = minus = mode_only = 0
        if (path ~ /^b\/xen\/arch\/x86\/hvm\/ft\/core\/./ &&
            path != "b/xen/arch/x86/hvm/ft/core/Makefile")
            err(path ": a copy of hvm/core; import-core.sh brings it")
    }
    BEGIN { state = "head"; hunks = 0; files = 0 }
    NR == 1 && !/^From [0-9a-f]+ / { err("not a git format-patch mail " \
                                         "(no \"From <commit>\" line)") }
    state == "head" {
        if (/^From: ./) from = 1
        else if (/^Subject: ./) subject = 1
        else if (/^Signed-off-by: .+ <[^>]+@[^>]+>$/) sob = 1
        else if (/^diff --git a\/.+ b\/.+/) {
            if (!from) err("no From: header")
            if (!subject) err("no Subject: header")
            if (!sob) err("no Signed-off-by: in the commit message")
            state = "file"
            new_file($4)
        }
        next
    }
    state == "hunk" {
        c = substr($0, 1, 1)
        if (c == "\\") next
        if (c == " " || $0 == "") { old--; new-- }
        else if (c == "-") old--
        else if (c == "+") new--
        else err("hunk ends early (" old " old, " new " new lines missing)")
        if (old < 0 || new < 0) err("hunk holds more lines than announced")
        if (old == 0 && new == 0) state = "file"
        next
    }
    state == "file" {
        if (/^diff --git a\/.+ b\/.+/) {
            if ((!plus || !minus) && !mode_only)
                err(path ": no ---/+++ lines")
            new_file($4)
        }
        else if (/^--- /) minus = 1
        else if (/^\+\+\+ /) plus = 1
        else if (/^@@ /) {
            if (!plus || !minus) err(path ": hunk before ---/+++ lines")
            hunk_header($0)
        }
        else if (/^(index|similarity index|rename from|rename to) /)
            ;
        else if (/^(new file|deleted file|old|new) mode /)
            mode_only = 1
        else if (/^-- $/) state = "sig"
        else err("unexpected line in diff: " $0)
        next
    }
    END {
        if (failed) exit 1
        if (state == "head") err("no diff in the patch")
        if (state == "hunk") err("the last hunk is truncated")
        if (hunks == 0 && !mode_only) err("no hunk in the patch")
    }
    ' "$f" || status=1
done

for f in "$dir"/*.patch; do
    [ -e "$f" ] || continue
    p=$(basename "$f")
    if ! printf '%s\n' $listed | grep -qxF "$p"; then
        bad "$p is not listed in series"
    fi
done

if [ $status = 0 ]; then
    echo "check-series: well-formed, all in series:" \
         "$(printf '%s\n' $listed | wc -l)"
fi
exit $status
