#!/bin/sh
# parbench_check.sh -- a small run of the parallel kernels at 2 processes
# (make check): each kernel's file through ncslab is byte for byte
# PnetCDF's, and the run prints a row for every kernel.  No timing is
# judged here (doc/parallel.md has the measured table).
top_builddir=${top_builddir:-.}
PAR_TIMEOUT=300
. "$(dirname "$0")/../par/par_common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$(par_run 2 "$top_builddir/tests/bench/parbench" --scale 1 --reps 1 \
      --dir "$tmp")
status=$?
echo "$out"
if [ $status != 0 ]; then
    echo "FAIL: parbench exited with $status"
    exit 1
fi
for k in flash wrf e3sm e3sm-blocking e3sm-collective; do
    if ! echo "$out" | grep -q "^$k,2,.*,yes\$"; then
        echo "FAIL: no row with the same bytes for $k"
        exit 1
    fi
done
echo "PASS: 5 kernels at 2 processes, ncslab's files PnetCDF's byte for byte"
