#!/bin/sh
# tests/v2/v2conform_check.sh -- the v2 conformance suite, ncslab against
# netCDF-C, for CDF-1, CDF-2 and CDF-5.
#
# For each format, tests/v2/v2conform_ncslab and tests/v2/v2conform_netcdf run
# in directories of their own.  Both must pass their own checks, print the
# same stdout and stderr line for line, exit with the same status, and
# leave the same set of files, each cmp-identical to its twin.  Without
# netCDF-C only the ncslab build runs (its checks hold netCDF-C's
# expectations).  A failing run's directory is kept and named.
# Run by `make check` from the top build directory.
set -u

top_builddir=${top_builddir:-.}
. "$top_builddir/tests/v2/v2env.sh"

ncslab=$top_builddir/tests/v2/v2conform_ncslab
netcdf=$top_builddir/tests/v2/v2conform_netcdf
if [ "$have_netcdf" != yes ]; then
    echo "note: netCDF-C not configured; running the ncslab build alone"
    netcdf=
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/v2conform.XXXXXX") || exit 99
status=0

fail() {
    echo "FAIL: $*"
    status=1
}

# run NAME PROGRAM FMT: leaves NAME.out, NAME.err, NAME.status in $tmp/cdfFMT
run() {
    d=$tmp/cdf$3
    mkdir -p "$d/$1"
    "$2" "$d/$1" "$3" >"$d/$1.out" 2>"$d/$1.err"
    echo $? >"$d/$1.status"
    tail -n 1 "$d/$1.out" | sed "s/^/$1 CDF-$3: /"
    if ! tail -n 1 "$d/$1.out" | grep -Eq '^[0-9]+ passed, 0 failed$' ||
       [ "$(cat "$d/$1.status")" != 0 ]; then
        fail "$1 build, CDF-$3: its own checks failed:"
        grep -A1 '^FAIL' "$d/$1.out"
        sed 's/^/  stderr: /' "$d/$1.err"
    fi
}

for fmt in 1 2 5; do
    echo "== CDF-$fmt"
    d=$tmp/cdf$fmt
    run ncslab "$ncslab" $fmt
    [ -n "$netcdf" ] || continue
    run netcdf "$netcdf" $fmt
    for part in out err status; do
        if ! diff -u "$d/netcdf.$part" "$d/ncslab.$part" >"$d/diff.$part"; then
            fail "CDF-$fmt: $part differs (- netCDF-C, + ncslab):"
            cat "$d/diff.$part"
        fi
    done
    (cd "$d/netcdf" && ls -A) >"$d/netcdf.files"
    (cd "$d/ncslab" && ls -A) >"$d/ncslab.files"
    if ! diff -u "$d/netcdf.files" "$d/ncslab.files"; then
        fail "CDF-$fmt: the two builds left different files"
    fi
    nfiles=0
    for f in $(cat "$d/netcdf.files"); do
        [ -f "$d/ncslab/$f" ] || continue
        nfiles=$((nfiles + 1))
        if ! cmp "$d/netcdf/$f" "$d/ncslab/$f"; then
            fail "CDF-$fmt: $f differs"
        fi
    done
    [ $nfiles -gt 0 ] || fail "CDF-$fmt: no files to compare"
    echo "CDF-$fmt: $nfiles files compared"
done

if [ $status = 0 ]; then
    rm -rf "$tmp"
else
    echo "outputs kept in $tmp"
fi
exit $status
