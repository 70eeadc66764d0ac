# SPDX-License-Identifier: GPL-2.0-only
# lib.sh - what the ftvm test scripts share; sourced after 'build' is set.
#   NAME=... . tests/ftvm/lib.sh    tests/lib/test.sh, a scratch dir in
#                                   $work, $ftvm and $ftlog
. "$(dirname "$0")/../lib/test.sh"
ftvm=$build/bin/ftvm
ftlog=$build/bin/ftlog
scratch
