#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# build-root.sh - the dom0 root file system in $XL_OUT/root: Debian 12
# minbase from the archive in this machine's apt sources, brought up to
# date with bookworm-updates and -security (so dom0's Xen tools match the
# host's libxen-dev), plus the packages listed in ./packages.  Also keeps
# the older hypervisor build that still has shadow paging as
# $XL_OUT/xen-4.17.5.gz.  Rebuilt only when the list, this script or the
# archive changes (root.stamp).  Needs root (chroot).
set -eu
. "$(dirname "$0")/lib.sh"

# The last bookworm hypervisor built with CONFIG_SHADOW_PAGING.
XEN_SHADOW=4.17.5+72-g01140da4e8-1
TRIES=3

xl_need_root
xl_need_tools debootstrap chroot unshare dpkg-deb
# XENLAB_ARCHIVE: another Debian archive (a local mirror).
main=${XENLAB_ARCHIVE:-$(xl_archive bookworm)}
sec=$(xl_archive bookworm-security)
key=$(xl_key "$XL_SRC/packages" "$0" "$main" "$sec")
[ "$(cat "$XL_OUT/root.stamp" 2>/dev/null)" = "$key" ] && exit 0

# Mounts made below vanish with this private mount namespace.
if [ -z "${XL_MOUNT_NS:-}" ]; then
    XL_MOUNT_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi

new=$XL_OUT/root.new
log=$XL_OUT/build-root.log
mkdir -p "$XL_OUT/cache/debootstrap" "$XL_OUT/cache/apt/partial"
rm -rf "$new"
: > "$log"
xl_log "building the dom0 root file system from $main (log: $log)"

# wget (debootstrap's downloader) gives up instead of waiting forever.
printf 'tries = 3\ntimeout = 30\nwaitretry = 5\n' > "$XL_OUT/wgetrc"
export WGETRC="$XL_OUT/wgetrc"

n=1
until timeout -k 5 300 debootstrap --variant=minbase \
        --cache-dir="$XL_OUT/cache/debootstrap" bookworm "$new" "$main" \
        >> "$log" 2>&1; do
    if [ $n -ge $TRIES ]; then
        if grep -qi -e 'download' -e 'retriev' -e 'wget' "$log"; then
            xl_die $XL_EDOWNLOAD "debootstrap could not download from" \
                "$main after $TRIES tries (see $log)"
        fi
        xl_die $XL_EFAIL "debootstrap failed (see $log)"
    fi
    xl_log "debootstrap failed, try $((n + 1)) of $TRIES"
    n=$((n + 1))
    rm -rf "$new"
    sleep $((n * 5))
done

cat > "$new/etc/apt/sources.list" <<EOS
deb $main bookworm main
deb $main bookworm-updates main
deb $sec bookworm-security main
EOS
cat > "$new/etc/apt/apt.conf.d/90xenlab" <<'EOS'
Acquire::Retries "3";
Acquire::http::Timeout "30";
Acquire::Check-Valid-Until "false";
APT::Install-Recommends "false";
Dpkg::Options { "--force-confold"; };
EOS
in_root() { timeout -k 5 600 chroot "$new" env DEBIAN_FRONTEND=noninteractive \
    LC_ALL=C PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@" >> "$log" 2>&1; }

# No services start in the chroot; our own initramfs replaces Debian's.
printf '#!/bin/sh\nexit 101\n' > "$new/usr/sbin/policy-rc.d"
chmod 755 "$new/usr/sbin/policy-rc.d"
in_root dpkg-divert --local --rename --add /usr/sbin/update-initramfs
ln -sf /bin/true "$new/usr/sbin/update-initramfs"

mount -t proc proc "$new/proc"
mount -t sysfs sys "$new/sys"
mount --bind /dev "$new/dev"
mount --bind "$XL_OUT/cache/apt" "$new/var/cache/apt/archives"


pkgs=$(sed -e 's/#.*//' "$XL_SRC/packages" | tr -s ' \n' '  ')
in_root apt-get -q update ||
    xl_die $XL_EDOWNLOAD "apt-get update failed in the chroot (see $log)"
in_root apt-get -q -y --download-only dist-upgrade ||
    xl_die $XL_EDOWNLOAD "downloading updates failed (see $log)"
in_root apt-get -q -y dist-upgrade ||
    xl_die $XL_EFAIL "dist-upgrade failed in the chroot (see $log)"
# shellcheck disable=SC2086
in_root apt-get -q -y --download-only install $pkgs ||
    xl_die $XL_EDOWNLOAD "downloading the dom0 packages failed (see $log)"
# shellcheck disable=SC2086
in_root apt-get -q -y install $pkgs ||
    xl_die $XL_EFAIL "installing the dom0 packages failed (see $log)"
in_root sh -c "cd /tmp && apt-get -q download \
    xen-hypervisor-4.17-amd64=$XEN_SHADOW" ||
    xl_die $XL_EDOWNLOAD "downloading hypervisor $XEN_SHADOW failed" \
        "(see $log)"
x=$(mktemp -d "$XL_OUT/deb.XXXXXX")
dpkg-deb -x "$new"/tmp/xen-hypervisor-4.17-amd64_*.deb "$x"
mv "$x/boot/xen-4.17-amd64.gz" "$XL_OUT/xen-4.17.5.gz"
rm -rf "$x" "$new"/tmp/*.deb
umount "$new/var/cache/apt/archives" "$new/dev" "$new/sys" "$new/proc"

# What dom0 never reads: documentation, locales, drivers for hardware
# that QEMU does not emulate here.
rm -rf "$new"/usr/share/doc/* "$new"/usr/share/man/* \
    "$new"/usr/share/info/* "$new"/usr/share/locale/* \
    "$new"/var/lib/apt/lists/*_Packages* "$new"/var/cache/apt/*.bin
for k in "$new"/lib/modules/*; do
    for d in sound drivers/gpu drivers/media drivers/infiniband \
            drivers/net/wireless drivers/net/ethernet drivers/staging \
            drivers/bluetooth drivers/iio drivers/isdn drivers/scsi \
            drivers/usb drivers/input drivers/hid drivers/mmc \
            net/wireless net/mac80211 net/bluetooth; do
        rm -rf "${k:?}/kernel/$d"
    done
    in_root depmod "${k##*/}"
done

rm -rf "$XL_OUT/root"
mv "$new" "$XL_OUT/root"
echo "$key" > "$XL_OUT/root.stamp"
xl_log "dom0 root file system ready"
