#!/bin/sh
# tests/par/par_alone.sh -- tests/par/par_alone (collective calls whose
# pieces do not interleave move as independent MPI-IO calls, unless the
# hints say otherwise) at 1, 2, 3 and 4 processes, and at 2 and 3 under
# ROMIO when OpenMPI has it.
# Run by `make check` from the top build directory.
set -u
. "$(dirname "$0")/par_common.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/par_alone.XXXXXX") || exit 99
status=0
for n in 1 2 3 4; do
    par_run $n "$top_builddir/tests/par/par_alone" "$tmp" || status=1
done
for n in 2 3; do
    par_run_romio $n "$top_builddir/tests/par/par_alone" --same-hints "$tmp" || status=1
done
[ $status = 0 ] && rm -rf "$tmp"
exit $status
