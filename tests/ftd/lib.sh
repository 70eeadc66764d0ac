# SPDX-License-Identifier: GPL-2.0-only
# lib.sh - what the ftd tests share; sourced after 'build' and NAME are
# set: tests/lib/test.sh with a scratch dir in $work, hosts.sh and
# ftd.sh; $ftvm, $ftlog, $ftd, $xlft and $dom0.
. "$(dirname "$0")/../ftvm/lib.sh"
. "$(dirname "$0")/../lib/hosts.sh"
. "$(dirname "$0")/../lib/ftd.sh"
