#!/bin/sh
# hvm/core goes into the Xen hypervisor: its objects may call nothing but
# each other, and memcpy/memset, which a compiler may emit for structure
# copies (Xen has both).
set -eu
status=0
for arch in x86_64 i386; do
    objs=$(for o in "$@"; do case "$o" in */$arch/*) echo "$o" ;; esac; done)
    [ -n "$objs" ] || continue
    defined=$(nm --defined-only $objs | awk 'NF == 3 { print $3 }' | sort -u)
    allowed="memcpy memset"
    for sym in $(nm -u $objs | awk 'NF >= 2 { print $NF }' | sort -u); do
        if echo "$defined" | grep -qx "$sym"; then continue; fi
        case " $allowed " in *" $sym "*) continue ;; esac
        echo "hvm/core ($arch) calls outside itself: $sym" >&2
        status=1
    done
    n=$(echo "$objs" | wc -l)
    [ $status = 0 ] && echo "hvm/core: $n objects build freestanding for $arch"
done
exit $status
