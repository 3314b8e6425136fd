#!/bin/sh
# tests/v3/v3fortran_check.sh -- netCDF-Fortran over libncslab_netcdf.
#
# netCDF-Fortran is a layer over netCDF-C's library, and it imports names
# netcdf.h does not declare (its int helpers, the parallel calls), so:
# 1. every name Debian's libnetcdff imports that netCDF-C's library
#    defines must be exported by libncslab_netcdf (and by
#    libncslab_netcdf_par when it is built): a missing one would leave
#    netCDF-Fortran unlinkable against ncslab;
# 2. tests/v3/v3fortran.f90, built with netCDF-Fortran and linked once
#    with netCDF-C and once with libncslab_netcdf ahead of it (so that
#    netCDF-Fortran's calls bind to ncslab's), must print the same and
#    write a file ncdump shows the same.
# Skips (77) without nf-config, gfortran, netCDF-Fortran or ncdump, and in
# sanitizer builds (an instrumented library cannot load into an
# uninstrumented program).  Run by `make check` from the top build
# directory.
set -u
top_builddir=${top_builddir:-.}
. "$top_builddir/tests/v2/v2env.sh"
libs=$abs_top_builddir/lib/.libs
lib=$libs/libncslab_netcdf.so
fc=${FC:-gfortran}
status=0
fail() { echo "FAIL: $*"; status=1; }

ff=
for f in /usr/lib/*/libnetcdff.so.7 /usr/lib/libnetcdff.so.7 /usr/lib64/libnetcdff.so.7; do
    test -f "$f" && ff=$f && break
done
nc=
for f in /usr/lib/*/libnetcdf.so.19 /usr/lib/libnetcdf.so.19 /usr/lib64/libnetcdf.so.19; do
    test -f "$f" && nc=$f && break
done
if [ -z "$ff" ] || [ -z "$nc" ] || ! command -v nf-config >/dev/null 2>&1 ||
   ! command -v "$fc" >/dev/null 2>&1 || ! command -v ncdump >/dev/null 2>&1; then
    echo "SKIP: netCDF-Fortran, nf-config, $fc or ncdump not found"
    exit 77
fi
if nm -D "$lib" 2>/dev/null | grep -qE ' U __(asan|tsan|ubsan|msan)_'; then
    echo "SKIP: sanitizer build"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/v3fortran.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

echo "== the names $ff imports from $nc"
nm -D --undefined-only "$ff" | awk '{print $NF}' | sed 's/@.*//' | sort -u >"$tmp/imports"
nm -D --defined-only "$nc" | awk '{print $NF}' | sed 's/@.*//' | sort -u >"$tmp/netcdf"
comm -12 "$tmp/imports" "$tmp/netcdf" >"$tmp/needed"
echo "$(wc -l <"$tmp/needed") names"
for l in "$lib" "$libs/libncslab_netcdf_par.so"; do
    test -f "$l" || continue
    nm -D --defined-only "$l" | awk '{print $NF}' | sort -u >"$tmp/ours"
    comm -23 "$tmp/needed" "$tmp/ours" >"$tmp/missing"
    if [ -s "$tmp/missing" ]; then
        fail "$(basename "$l") lacks $(tr '\n' ' ' <"$tmp/missing")"
    fi
done

echo "== $abs_top_srcdir/tests/v3/v3fortran.f90 over netCDF-C and over ncslab"
src=$abs_top_srcdir/tests/v3/v3fortran.f90
fflags=$(nf-config --fflags)
flibs=$(nf-config --flibs)
if ! (cd "$tmp" && $fc $fflags "$src" -o f_netcdf $flibs); then
    fail "cannot build v3fortran.f90 against netCDF-Fortran"
elif ! (cd "$tmp" && $fc $fflags "$src" -o f_ncslab -Wl,--no-as-needed -L"$libs" \
            -lncslab_netcdf -Wl,-rpath,"$libs" $flibs); then
    fail "cannot build v3fortran.f90 against netCDF-Fortran and libncslab_netcdf"
else
    (cd "$tmp" && ./f_netcdf "$tmp/netcdf.nc" >out_netcdf 2>&1) ||
        fail "v3fortran over netCDF-C exited with $?"
    (cd "$tmp" && ./f_ncslab "$tmp/ncslab.nc" >out_ncslab 2>&1) ||
        fail "v3fortran over ncslab exited with $?"
    if ! diff "$tmp/out_netcdf" "$tmp/out_ncslab"; then
        fail "v3fortran prints differently over ncslab (above: < netCDF-C, > ncslab)"
    fi
    ncdump "$tmp/netcdf.nc" | sed 1d >"$tmp/dump_netcdf"
    ncdump "$tmp/ncslab.nc" | sed 1d >"$tmp/dump_ncslab"
    if ! diff "$tmp/dump_netcdf" "$tmp/dump_ncslab"; then
        fail "ncdump of the two files differs (above)"
    fi
    lines=$(wc -l <"$tmp/out_ncslab")
    echo "$lines lines equal"
fi
test $status = 0 && echo PASS
exit $status
