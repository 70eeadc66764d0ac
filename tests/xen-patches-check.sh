#!/bin/sh
# make check without a Xen tree: the series in xen-patches/ is well-formed,
# check-series.sh refuses broken series, and verify.sh names a tree that is
# not Xen 4.17.7 and which version it is instead.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
xp=$top/xen-patches
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

sh "$xp/check-series.sh" "$xp"

# expect_fail NAME PATTERN CMD...: CMD fails and says PATTERN.
expect_fail() {
    name=$1 pattern=$2
    shift 2
    if "$@" > "$tmp/out" 2>&1; then
        echo "xen-patches-check: $name: accepted, should fail" >&2
        fails=$((fails + 1))
    elif ! grep -q -- "$pattern" "$tmp/out"; then
        echo "xen-patches-check: $name: failed without '$pattern':" >&2
        head -n 20 "$tmp/out" >&2
        fails=$((fails + 1))
    fi
}

# A copy of the series to break in one way at a time.
fresh() {
    rm -rf "$tmp/s"
    mkdir "$tmp/s"
    cp "$xp/series" "$xp"/*.patch "$tmp/s/"
    first=$tmp/s/$(grep -v '^[[:space:]]*\(#.*\)\?$' "$xp/series" | head -n 1)
}

fresh
sed -i '/^Signed-off-by:/d' "$first"
expect_fail "no Signed-off-by" "no Signed-off-by" \
    sh "$xp/check-series.sh" "$tmp/s"

fresh
sed -i '/^Subject:/d' "$first"
expect_fail "no Subject" "no Subject" sh "$xp/check-series.sh" "$tmp/s"

fresh
# Drop the first context line of the first hunk: it now ends early.
awk '/^@@ / && !done { print; getline; done = 1; next } { print }' \
    "$first" > "$tmp/p" && mv "$tmp/p" "$first"
expect_fail "short hunk" "hunk" sh "$xp/check-series.sh" "$tmp/s"

fresh
head -n "$(($(grep -n '^@@ ' "$first" | tail -n 1 | cut -d: -f1) + 1))" \
    "$first" > "$tmp/p" && mv "$tmp/p" "$first"
expect_fail "truncated patch" "truncated" sh "$xp/check-series.sh" "$tmp/s"

fresh
echo "9999-missing.patch" >> "$tmp/s/series"
expect_fail "missing patch" "does not exist" \
    sh "$xp/check-series.sh" "$tmp/s"

fresh
cp "$first" "$tmp/s/9999-stray.patch"
expect_fail "unlisted patch" "not listed in series" \
    sh "$xp/check-series.sh" "$tmp/s"

fresh
cat >> "$first" <<'EOF'
diff --git a/xen/arch/x86/hvm/ft/core/ft_ring.c b/xen/arch/x86/hvm/ft/core/ft_ring.c
new file mode 100644
--- /dev/null
+++ b/xen/arch/x86/hvm/ft/core/ft_ring.c
@@ -0,0 +1 @@
+/* a copy */
EOF
expect_fail "copy of hvm/core" "copy of hvm/core" \
    sh "$xp/check-series.sh" "$tmp/s"

fresh
printf 'not a patch\n' > "$first"
expect_fail "not a mail" "format-patch" sh "$xp/check-series.sh" "$tmp/s"

# verify.sh says what is wrong with the tree before building anything.
mkdir -p "$tmp/notxen"
expect_fail "verify.sh on a non-Xen tree" "not a Xen source tree" \
    sh "$xp/verify.sh" "$tmp/notxen"

mkdir -p "$tmp/x418/xen" "$tmp/x418/tools"
touch "$tmp/x418/tools/Makefile"
printf '%s\n' 'export XEN_VERSION       = 4' \
    'export XEN_SUBVERSION    = 18' \
    'export XEN_EXTRAVERSION ?= .0$(XEN_VENDORVERSION)' \
    'xenversion:' '	@echo $(XEN_VERSION).$(XEN_SUBVERSION)$(XEN_EXTRAVERSION)' \
    > "$tmp/x418/xen/Makefile"
expect_fail "verify.sh on Xen 4.18" "is Xen 4.18.0, not 4.17.7" \
    sh "$xp/verify.sh" "$tmp/x418"

expect_fail "import-core.sh on a non-Xen tree" "not a Xen source tree" \
    sh "$xp/import-core.sh" "$tmp/notxen"

if [ $fails -ne 0 ]; then
    echo "xen-patches-check: $fails case(s) failed" >&2
    exit 1
fi
echo "xen-patches-check: series well-formed; 11 broken inputs refused"
