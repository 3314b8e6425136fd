#!/bin/sh
# tests/par/par_rand_redef.sh -- tests/par/par_rand --redef: in one case
# in three a fixed variable and a global attribute are defined after the
# other variables' data (ncs_redef / ncmpi_redef), which moves the record
# data; at 1, 3 and 4 processes over seeds 1-40, the files must still be
# PnetCDF's bytes and hold every value.
# EXPECTED TO FAIL (XFAIL_TESTS in tests/par/par.am) until the library
# moves records as PnetCDF 1.12 does, at 2 or more processes:
#   - after independent puts of different numbers of records, the move
#     copies only as many records as the calling process knew of: the
#     later records are lost (zeros, or NCS_ETRUNC reading them serially;
#     e.g. mpirun -n 4 par_rand --redef --seed 43, the CDF-1 case);
#   - in collective mode the moved file ends after the last record's data,
#     PnetCDF's after its padding (e.g. mpirun -n 3 par_rand --redef
#     --seed 53, CDF-1: 601 bytes against 604).
# Remove it from XFAIL_TESTS when it passes.
# Run by `make check` from the top build directory.
set -u
. "$(dirname "$0")/par_common.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/par_rand_redef.XXXXXX") || exit 99
status=0
for n in 1 3 4; do
    par_run $n "$top_builddir/tests/par/par_rand" --redef --first 1 --count 40 --dir "$tmp" ||
        status=1
done
if [ $status = 0 ]; then
    rm -rf "$tmp"
else
    echo "FAIL: files of the failing seeds kept in $tmp"
fi
exit $status
