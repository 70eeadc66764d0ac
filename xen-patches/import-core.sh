#!/bin/sh
# Bring hvm/core into a Xen source tree, where the series compiles it
# unchanged (xen/arch/x86/hvm/ft/core, built by the Makefile patch 1 adds).
# hvm/core stays the one source of truth: the series never carries a copy.
#   xen-patches/import-core.sh <xen-source-dir>
set -eu

here=$(cd "$(dirname "$0")" && pwd)
core="$here/../hvm/core"

if [ $# -ne 1 ]; then
    echo "usage: $0 <xen-source-dir>" >&2
    exit 2
fi
xen="$1"
if [ ! -f "$xen/xen/arch/x86/hvm/hvm.c" ]; then
    echo "import-core.sh: $xen is not a Xen source tree" \
         "(no xen/arch/x86/hvm/hvm.c)" >&2
    exit 1
fi

dest="$xen/xen/arch/x86/hvm/ft/core"
mkdir -p "$dest"
n=0
for f in "$core"/*.c "$core"/*.h; do
    cp "$f" "$dest/"
    n=$((n + 1))
done
echo "import-core.sh: $n files of hvm/core copied into" \
     "xen/arch/x86/hvm/ft/core"
