#!/bin/sh
# tests/par/par_rand_redef.sh -- tests/par/par_rand --redef: in one case
# in three a fixed variable and a global attribute are defined after the
# other variables' data (ncs_redef / ncmpi_redef), which moves the data;
# at 1 to 4 processes over seeds 1-40 the files must still be PnetCDF's
# bytes and hold every value.
# At 3 and 4 processes the runs use ROMIO: OpenMPI 4.1's default MPI-IO
# (OMPIO) there answers a collective read past the end of the file with
# the whole count asked for, and PnetCDF, which writes what its read
# counted, leaves the moved file up to a record's padding longer than
# ncslab's (doc/parallel.md, "Where PnetCDF's files differ").  Without
# ROMIO those two runs are skipped.
# Run by `make check` from the top build directory.
set -u
. "$(dirname "$0")/par_common.sh"
seeds=$(par_seeds 40)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/par_rand_redef.XXXXXX") || exit 99
prog=$top_builddir/tests/par/par_rand
status=0
for n in 1 2; do
    par_run $n "$prog" --redef --first 1 --count "$seeds" --dir "$tmp" || status=1
done
for n in 3 4; do
    par_run_romio $n "$prog" --redef --first 1 --count "$seeds" --dir "$tmp" || status=1
done
if [ $status = 0 ]; then
    rm -rf "$tmp"
else
    echo "FAIL: files of the failing seeds kept in $tmp"
fi
exit $status
