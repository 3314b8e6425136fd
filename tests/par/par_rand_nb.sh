#!/bin/sh
# tests/par/par_rand_nb.sh -- tests/par/par_rand --nonblocking: ncslab's
# side writes every piece with ncs_iput and one ncs_wait_all (before a
# redefinition and before the close), and reads every piece back with
# ncs_iget and one ncs_wait_all; at 1 to 4 processes over seeds 1-40 the
# files must still be PnetCDF's bytes and the values read back exact.
# At 2, 3 and 4 processes runs use ROMIO too: at 3 and 4 OpenMPI 4.1's
# default MPI-IO (OMPIO) returns wrong bytes from a collective read in which two
# processes' pieces start at the same offset with different lengths,
# which a wait's pieces of several variables can be (doc/parallel.md,
# "Where MPI-IO is wrong"); the files are right, the parallel read of
# them is not, through PnetCDF as through ncslab.  Without ROMIO those
# runs are skipped.  --redef runs at 1 and 2 processes only: ROMIO's
# collective writes fill the holes between pieces with whatever its
# buffer held, and a redefinition turns old holes into header padding,
# which the comparison reads.
# Run by `make check` from the top build directory.
set -u
. "$(dirname "$0")/par_common.sh"
seeds=$(par_seeds 40)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/par_rand_nb.XXXXXX") || exit 99
prog=$top_builddir/tests/par/par_rand
status=0
for n in 1 2; do
    par_run $n "$prog" --nonblocking --first 1 --count "$seeds" --dir "$tmp" || status=1
    par_run $n "$prog" --nonblocking --redef --first 1 --count "$seeds" --dir "$tmp" ||
        status=1
done
for n in 2 3 4; do
    par_run_romio $n "$prog" --nonblocking --first 1 --count "$seeds" --dir "$tmp" || status=1
done
if [ $status = 0 ]; then
    rm -rf "$tmp"
else
    echo "FAIL: files of the failing seeds kept in $tmp"
fi
exit $status
