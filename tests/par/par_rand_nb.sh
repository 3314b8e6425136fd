#!/bin/sh
# tests/par/par_rand_nb.sh -- tests/par/par_rand --nonblocking: ncslab's
# side writes every piece with ncs_iput and one ncs_wait_all (before a
# redefinition and before the close), and reads every piece back with
# ncs_iget and one ncs_wait_all; at 1 to 4 processes over seeds 1-40 the
# files must still be PnetCDF's bytes and the values read back exact.
# At 3 and 4 processes the runs use ROMIO: there OpenMPI 4.1's default
# MPI-IO (OMPIO) returns wrong bytes from a collective read in which two
# processes' pieces start at the same offset with different lengths,
# which a wait's pieces of several variables can be (doc/parallel.md,
# "Where MPI-IO is wrong"); the files are right, the parallel read of
# them is not, through PnetCDF as through ncslab.  Without ROMIO those
# two runs are skipped.  --redef runs at 1 and 2 processes only: ROMIO's
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
romio=$(par_romio)
if [ -n "$romio" ]; then
    for n in 2 3 4; do
        echo "(OMPI_MCA_io=$romio)"
        OMPI_MCA_io=$romio par_run $n "$prog" --nonblocking --first 1 --count "$seeds" \
            --dir "$tmp" || status=1
    done
elif "$MPIRUN" --version 2>&1 | grep -q "Open MPI"; then
    echo "note: no ROMIO in this Open MPI: the runs at 3 and 4 processes skipped"
else
    for n in 3 4; do
        par_run $n "$prog" --nonblocking --first 1 --count "$seeds" --dir "$tmp" || status=1
    done
fi
if [ $status = 0 ]; then
    rm -rf "$tmp"
else
    echo "FAIL: files of the failing seeds kept in $tmp"
fi
exit $status
