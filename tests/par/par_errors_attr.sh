#!/bin/sh
# tests/par/par_errors_attr.sh -- tests/par/par_errors --attr-rewrite at
# 2, 3 and 4 processes: an attribute rewritten in data mode with another
# value on one process must be NCS_EMULTIDEFINE on every process and leave
# the old value everywhere.
# Run by `make check` from the top build directory.
set -u
. "$(dirname "$0")/par_common.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/par_errors_attr.XXXXXX") || exit 99
status=0
for n in 2 3 4; do
    par_run $n "$top_builddir/tests/par/par_errors" --attr-rewrite "$tmp" || status=1
done
[ $status = 0 ] && rm -rf "$tmp"
exit $status
