#!/bin/sh
# Write the series from a branch of a Xen git checkout: one patch per
# commit between tag RELEASE-4.17.7 and the branch (git format-patch), and
# the series file listing them in order.  Old patch files are replaced.
#   xen-patches/export.sh <xen-git-dir> [branch]     (branch: HEAD)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] && [ $# -le 2 ] || {
    echo "usage: $0 <xen-git-dir> [branch]" >&2
    exit 2
}
xen=$1
branch=${2:-HEAD}

git -C "$xen" rev-parse --verify -q RELEASE-4.17.7 > /dev/null || {
    echo "export.sh: $xen is not a Xen git tree with tag RELEASE-4.17.7" >&2
    exit 1
}
n=$(git -C "$xen" rev-list --count "RELEASE-4.17.7..$branch")
[ "$n" -gt 0 ] || {
    echo "export.sh: $branch has no commit on top of RELEASE-4.17.7" >&2
    exit 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$xen" format-patch -q --no-signature --zero-commit -o "$tmp" \
    "RELEASE-4.17.7..$branch"
rm -f "$here"/*.patch
mv "$tmp"/*.patch "$here/"
{
    echo "# The xenft series against Xen RELEASE-4.17.7, applied in this order"
    echo "# (written by export.sh from a branch of a Xen checkout)."
    (cd "$here" && ls -- *.patch)
} > "$here/series"
echo "export.sh: $n patches written, series updated"
sh "$here/check-series.sh" "$here"
