#!/bin/sh
# tests/par/par_errors.sh -- tests/par/par_errors (an invalid collective
# call on one process: an error on every process, nothing written, the
# file readable, the processes going on) at 1, 2, 3 and 4 processes; a
# hang fails it by the timeout of par_run.
# Run by `make check` from the top build directory.
set -u
. "$(dirname "$0")/par_common.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/par_errors.XXXXXX") || exit 99
status=0
for n in 1 2 3 4; do
    par_run $n "$top_builddir/tests/par/par_errors" "$tmp" || status=1
done
[ $status = 0 ] && rm -rf "$tmp"
exit $status
