#!/bin/sh
# tests/par/par_aggr.sh -- tests/par/par_aggr (the cb_nodes a wait of many
# small pieces asks for in the info of its view) at 1, 2, 3 and 4
# processes, and at 3 under ROMIO when OpenMPI has it (which reads
# cb_nodes when a file opens only: the values must still be right).
# Run by `make check` from the top build directory.
set -u
. "$(dirname "$0")/par_common.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/par_aggr.XXXXXX") || exit 99
status=0
for n in 1 2 3 4; do
    par_run $n "$top_builddir/tests/par/par_aggr" "$tmp" || status=1
done
par_run_romio 3 "$top_builddir/tests/par/par_aggr" "$tmp" || status=1
[ $status = 0 ] && rm -rf "$tmp"
exit $status
