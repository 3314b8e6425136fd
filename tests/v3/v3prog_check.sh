#!/bin/sh
# tests/v3/v3prog_check.sh -- the v3 example program, doc/examples/v3prog.c.
#
# 1. Runs doc/examples/v3prog, built by make check from the unchanged
#    source against the build tree's libncslab_netcdf, in every format.
# 2. Builds v3prog.c with the documented line
#        cc v3prog.c $(pkg-config --cflags --libs ncslab-netcdf)
#    from the build tree's .pc files (their directories pointed at the
#    source and build trees, as tests/v2/v2legacy_check.sh does).
# 3. When netCDF-C is configured, builds v3prog.c against it too and
#    compares what the two wrote: classic files byte for byte, netCDF-4
#    files by ncdump's output (the _NCProperties line, which names the
#    library, aside) when ncdump is installed.
# Run by `make check` from the top build directory.
set -u

top_builddir=${top_builddir:-.}
. "$top_builddir/tests/v2/v2env.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/v3prog.XXXXXX") || exit 99
status=0
fail() {
    echo "FAIL: $*"
    status=1
}
kinds="classic 64bit cdf5 netcdf4"

echo "== doc/examples/v3prog (make check build)"
for k in $kinds; do
    "$top_builddir/doc/examples/v3prog" "$tmp/ncslab_$k.nc" $k || fail "v3prog $k"
done

echo "== cc v3prog.c \$(pkg-config --cflags --libs ncslab-netcdf), build-tree .pc"
if [ -z "$PKG_CONFIG" ]; then
    echo "note: pkg-config not found, skipped"
else
    cp "$abs_top_srcdir/doc/examples/v3prog.c" "$tmp/v3prog.c"
    libs=$abs_top_builddir/lib/.libs
    flags=$(PKG_CONFIG_PATH=$abs_top_builddir "$PKG_CONFIG" \
                --define-variable=includedir="$abs_top_srcdir/include" \
                --define-variable=libdir="$libs" \
                --cflags --libs ncslab-netcdf)
    if [ $? != 0 ]; then
        fail "pkg-config cannot read the build tree's ncslab-netcdf.pc"
    else
        echo "$CC v3prog.c $flags"
        if ! (cd "$tmp" &&
              LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} &&
              export LD_LIBRARY_PATH &&
              $CC v3prog.c $flags -o v3prog_pc &&
              ./v3prog_pc pc.nc cdf5); then
            fail "v3prog.c built with pkg-config ncslab-netcdf"
        elif nm -D "$tmp/v3prog_pc" 2>/dev/null | grep -q ' U nc_open$' &&
             ! LD_LIBRARY_PATH=$libs ldd "$tmp/v3prog_pc" | grep -q libncslab_netcdf; then
            fail "v3prog_pc is not linked to libncslab_netcdf"
        fi
    fi
fi

if [ "$have_netcdf" = yes ] && [ -n "$PKG_CONFIG" ]; then
    echo "== cc v3prog.c \$(pkg-config --cflags --libs netcdf)"
    if (cd "$tmp" && cp "$abs_top_srcdir/doc/examples/v3prog.c" v3prog.c &&
        $CC v3prog.c $("$PKG_CONFIG" --cflags --libs netcdf) -o v3prog_netcdf); then
        for k in $kinds; do
            "$tmp/v3prog_netcdf" "$tmp/netcdf_$k.nc" $k || fail "v3prog $k against netCDF-C"
        done
        for k in classic 64bit cdf5; do
            cmp "$tmp/netcdf_$k.nc" "$tmp/ncslab_$k.nc" || fail "$k file differs from netCDF-C's"
        done
        if command -v ncdump >/dev/null 2>&1; then
            for lib in netcdf ncslab; do
                ncdump "$tmp/${lib}_netcdf4.nc" | sed -e 1d -e '/_NCProperties/d' >"$tmp/$lib.cdl"
            done
            diff "$tmp/netcdf.cdl" "$tmp/ncslab.cdl" || fail "netCDF-4 file differs from netCDF-C's (ncdump)"
        else
            echo "note: ncdump not found, netCDF-4 files not compared"
        fi
    else
        fail "v3prog.c built against netCDF-C"
    fi
fi

if [ $status = 0 ]; then
    rm -rf "$tmp"
else
    echo "outputs kept in $tmp"
fi
exit $status
