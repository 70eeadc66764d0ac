#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# rundir.sh BUILD - ftd (root) trusts nothing in its run-dir that someone
# else could have put there:
#   - a run-dir of mode 0777, one owned by nobody, a symbolic link to a
#     good directory, and good ones inside a directory of mode 0777 or
#     one owned by nobody are refused at start, naming the path and
#     what is wrong;
#   - a regular file where the control socket goes is refused and left
#     there, not removed;
#   - on the secondary host, a guest's console path that is a symbolic
#     link to a file outside the run-dir: the copy is refused, the link
#     not followed, the file outside untouched; a good run-dir then
#     protects the guest.
# Two hosts (network namespaces): A runs the guest, B holds the copy.
# Without root or ip netns the test says so and exits 77.
#
#   +-------- host $a ---------+               +-------- host $b ---------+
#   | ftd --config A.conf      |   FT link     | ftd --config B.conf      |
#   |  (refused run-dirs first)|               |  runB/vm1.console: a     |
#   | ftvm serve runA/vm1.sock |               |  symlink, then a file    |
#   |   10.75.0.1:7800     va  +---------------+  vb 10.75.0.2:7800       |
#   +--------------------------+               +--------------------------+
set -u

build=${1:?usage: rundir.sh BUILD}
NAME=rundir
. "$(dirname "$0")/lib.sh"
hosts_up "r" 10.75.0

newkey "$work/key"
mkdir -p "$work/arb"

# refused WHAT RUN-DIR TEXT: ftd on A with that run-dir exits 1 at once,
# saying TEXT about the run-dir (a started ftd is stopped at 10 s).
refused() {
    ftconf A "$2" "[guest vm1]
peers = @peer@"
    ip netns exec "$a" timeout -k 5 10 "$ftd" --config "$work/A.conf" \
        >"$work/out" 2>&1
    rc=$?
    if [ $rc = 1 ] && grep -qF "$2" "$work/out" &&
       grep -q "$3" "$work/out"; then
        ok "$1: refused: $(cat "$work/out")"
    else
        bad "$1: exit $rc (want 1 saying '$3'): $(cat "$work/out")"
    fi
}

mkdir "$work/loose" "$work/theirs" "$work/real"
chmod 0777 "$work/loose"
chmod 0700 "$work/theirs" "$work/real"
chown 65534:65534 "$work/theirs"
ln -s "$work/real" "$work/link"
refused "run-dir of mode 0777" "$work/loose" "mode 0777"
refused "run-dir owned by nobody" "$work/theirs" "owned by uid 65534"
refused "run-dir a symlink to a directory" "$work/link" "symbolic link"
mkdir -m 0700 "$work/loose/rd" "$work/theirs/rd"
refused "run-dir in a directory of mode 0777" "$work/loose/rd" \
    "above it has mode 0777"
refused "run-dir in a directory owned by nobody" "$work/theirs/rd" \
    "above it is owned by uid 65534"

mkdir -m 0700 "$work/sockfile"
echo "not a socket" >"$work/sockfile/ftd.sock"
refused "a regular file as the control socket" "$work/sockfile" \
    "ftd.sock is a regular file"
if [ "$(cat "$work/sockfile/ftd.sock" 2>/dev/null)" = "not a socket" ]
then
    ok "the file in the control socket's place is still there"
else
    bad "the file in the control socket's place was removed or changed"
fi

# The secondary's console path a link to a file outside its run-dir.
mkdir -m 0700 "$work/runA" "$work/runB"
echo "outside, untouched" >"$work/outside"
ln -s "$work/outside" "$work/runB/vm1.console"
services_up "[guest vm1]
peers = @peer@"
serve_a vm1 --guest "$build/guests/idle.bin" --cmdline hz=100 \
    --console none || { bad "vm1 did not come up"; finish; exit 1; }

xa ft-enable vm1 10.75.0.2 >"$work/x" 2>&1
if until_true 200 grep -q "vm1.console is a symbolic link: not followed" \
       "$work/ftdB.err" &&
   [ "$(cat "$work/outside")" = "outside, untouched" ] &&
   [ -L "$work/runB/vm1.console" ] &&
   ! status_has xb "role=secondary state=protected"; then
    ok "a console path that is a symlink: the copy refused, the file \
outside untouched ($(grep -m1 'symbolic link' "$work/ftdB.err"))"
else
    bad "console symlink: outside file: '$(cat "$work/outside")'; \
B: $(cat "$work/ftdB.err"); A: $(cat "$work/x" "$work/ftdA.err")"
fi

# With the link gone, the guest is protected: what was refused was the
# link.  First A stops asking B again (it retries a lost secondary):
# disabled until A has nothing of vm1 left to disable.
a_idle() { xa ft-disable vm1 | grep -q "not protected from this host"; }
until_true 200 a_idle || bad "A kept a pair of vm1: $(xa ft-status)"
rm "$work/runB/vm1.console"
if xa ft-enable vm1 10.75.0.2 >"$work/x" 2>&1 &&
   until_true 400 status_has xb "pair=vm1 role=secondary state=protected" &&
   until_true 400 grep -q "ticks" "$work/runB/vm1.console"
then
    ok "with the link removed the guest is protected, the copy's console \
written to its file in the run-dir ($(stat -c '%F, mode %a' \
"$work/runB/vm1.console"): $(head -n 1 "$work/runB/vm1.console"))"
else
    bad "after the link was removed: $(xa ft-status; xb ft-status; \
cat "$work/x" "$work/ftdB.err")"
fi

finish
