#!/bin/sh
# tests/par/par_rand.sh -- tests/par/par_rand (random schemas and
# decompositions through PnetCDF and ncslab, compared) at 1, 2, 3 and 4
# processes over seeds 1-40 (par_seeds: fewer under ASan), with the MPI-IO OpenMPI picks by default
# (OMPIO), then at 2 and 4 processes under ROMIO when OpenMPI has it.
# A failing seed is printed with the command that reproduces it; its
# files are kept in the scratch directory named at the end.
# Run by `make check` from the top build directory.
set -u
. "$(dirname "$0")/par_common.sh"
seeds=$(par_seeds 40)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/par_rand.XXXXXX") || exit 99
prog=$top_builddir/tests/par/par_rand
status=0
for n in 1 2 3 4; do
    par_run $n "$prog" --first 1 --count "$seeds" --dir "$tmp" || status=1
done
for n in 2 4; do
    par_run_romio $n "$prog" --first 1 --count "$seeds" --dir "$tmp" || status=1
done
if [ $status = 0 ]; then
    rm -rf "$tmp"
else
    echo "FAIL: files of the failing seeds kept in $tmp"
fi
exit $status
