#!/bin/sh
# tests/par/par_rand_hints.sh -- tests/par/par_rand --hints: the same
# schemas with random nc_header_align_size, nc_var_align_size and
# nc_record_align_size hints in the creates' MPI_Info, at 1 and 3
# processes over seeds 1-40; the files must still be PnetCDF's bytes.
# The layout rules are PnetCDF 1.12's (lib/store/mpi/mpi_layout.c): the
# hints win over ncs__enddef's arguments, nc_var_align_size aligns each
# fixed-size variable.  The redefinitions of --redef are mixed in at 2
# processes.
# Run by `make check` from the top build directory.
set -u
. "$(dirname "$0")/par_common.sh"
seeds=$(par_seeds 40)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/par_rand_hints.XXXXXX") || exit 99
status=0
for n in 1 3; do
    par_run $n "$top_builddir/tests/par/par_rand" --hints --first 1 --count "$seeds" --dir "$tmp" ||
        status=1
done
par_run 2 "$top_builddir/tests/par/par_rand" --hints --redef --first 1 --count "$seeds" --dir "$tmp" ||
    status=1
if [ $status = 0 ]; then
    rm -rf "$tmp"
else
    echo "FAIL: files of the failing seeds kept in $tmp"
fi
exit $status
