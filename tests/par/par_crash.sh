#!/bin/sh
# tests/par/par_crash.sh -- tests/par/par_crash: a writer of 2 processes
# appending records collectively, one SIGKILLed after its K-th sync within
# the collective calls that follow (DELAY_US after it), for several K and
# delays; each time the job must end by the kill (mpirun aborts it: a
# non-zero status, not the timeout's 124, and no error of the writer's
# own, 3), and the file must open serially with every synced record
# intact (par_crash check).
# Run by `make check` from the top build directory.
set -u
. "$(dirname "$0")/par_common.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/par_crash.XXXXXX") || exit 99
prog=$top_builddir/tests/par/par_crash
status=0
for kd in "1 0" "2 300" "3 3000" "2 20000" "4 60000" "1 150000"; do
    set -- $kd
    rm -f "$tmp/par_crash.nc" "$tmp/par_crash.synced"
    par_run 2 "$prog" write "$tmp" "$1" "$2" >"$tmp/write.log" 2>&1
    rc=$?
    if [ $rc = 0 ] || [ $rc = 124 ] || grep -q "^par_crash: rank" "$tmp/write.log"; then
        cat "$tmp/write.log"
        echo "FAIL: the writer (K=$1, delay $2 us) ended with status $rc, not by the kill"
        status=1
        continue
    fi
    if ! par_run 1 "$prog" check "$tmp"; then
        echo "FAIL: K=$1, delay $2 us: the file left is wrong (kept in $tmp)"
        status=1
        break
    fi
done
[ $status = 0 ] && rm -rf "$tmp"
exit $status
