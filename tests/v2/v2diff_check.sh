#!/bin/sh
# tests/v2/v2diff_check.sh -- programs built twice from one source, against
# ncslab's v2 library and against netCDF-C, whose outputs must agree.
#
#   v2header   the v2 header: prototypes (checked while compiling) and the
#              value of every constant; run once
#   v2diff     the netCDF-3 inquiry calls and the check order of the v2
#              calls, in CDF-1, CDF-2, CDF-5 and netCDF-4 classic
#
# Each pair runs in directories of its own; stdout, stderr and the exit
# status must be the same line for line.  Skips (77) without netCDF-C:
# these programs state no expectations of their own.  A failing run's
# directory is kept and named.  Run by `make check` from the top build
# directory.
set -u

top_builddir=${top_builddir:-.}
. "$top_builddir/tests/v2/v2env.sh"
if [ "$have_netcdf" != yes ]; then
    echo "SKIP: netCDF-C not configured"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/v2diff.XXXXXX") || exit 99
status=0

# pair NAME FMT: runs NAME_netcdf and NAME_ncslab and compares them
pair() {
    d=$tmp/$1.$2
    for lib in netcdf ncslab; do
        mkdir -p "$d/$lib"
        "$top_builddir/tests/v2/$1_$lib" "$d/$lib" "$2" >"$d/$lib.out" 2>"$d/$lib.err"
        echo $? >"$d/$lib.status"
    done
    ok=1
    for part in out err status; do
        if ! diff -u "$d/netcdf.$part" "$d/ncslab.$part" >"$d/diff.$part"; then
            echo "FAIL: $1 format $2: $part differs (- netCDF-C, + ncslab):"
            cat "$d/diff.$part"
            ok=0
        fi
    done
    if [ "$(cat "$d/netcdf.status")" != 0 ]; then
        echo "FAIL: $1 format $2: the netCDF-C build failed:"
        tail -n 5 "$d/netcdf.out" "$d/netcdf.err"
        ok=0
    fi
    if [ $ok = 1 ]; then
        echo "PASS: $1 format $2: $(wc -l <"$d/netcdf.out" | tr -d ' ') lines the same"
    else
        status=1
    fi
}

pair v2header 1
for fmt in 1 2 5 4; do
    pair v2diff $fmt
done

if [ $status = 0 ]; then
    rm -rf "$tmp"
else
    echo "outputs kept in $tmp"
fi
exit $status
