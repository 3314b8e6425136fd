#!/bin/sh
# tests/v2/v2legacy_check.sh -- the legacy v2 example program.
#
# 1. Runs doc/examples/legacy, built by make check from the unchanged source
#    against the build tree's library.
# 2. Builds doc/examples/legacy.c with the documented line
#        cc legacy.c $(pkg-config --cflags --libs ncslab-v2)
#    taking ncslab-v2.pc (and the ncslab.pc it requires) from the build
#    tree.  Their directories name the install prefix, so includedir and
#    libdir are pointed at the source and build trees with
#    --define-variable; everything else (the -I of include/ncslab that makes
#    <netcdf.h> ncslab's, -lncslab_v2) comes from the .pc files as written.
#    The installed tree gets the line exactly in `make installcheck`.
# 3. When netCDF-C is configured, builds legacy.c against it too: the
#    program is a v2 program, not an ncslab one.
# Run by `make check` from the top build directory.
set -u

top_builddir=${top_builddir:-.}
. "$top_builddir/tests/v2/v2env.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/v2legacy.XXXXXX") || exit 99
status=0
fail() {
    echo "FAIL: $*"
    status=1
}

echo "== doc/examples/legacy (make check build)"
"$top_builddir/doc/examples/legacy" "$tmp/legacy_check.nc" || fail "doc/examples/legacy"

echo "== cc legacy.c \$(pkg-config --cflags --libs ncslab-v2), build-tree .pc"
if [ -z "$PKG_CONFIG" ]; then
    echo "note: pkg-config not found, skipped"
else
    cp "$abs_top_srcdir/doc/examples/legacy.c" "$tmp/legacy.c"
    libs=$abs_top_builddir/lib/.libs
    flags=$(PKG_CONFIG_PATH=$abs_top_builddir "$PKG_CONFIG" \
                --define-variable=includedir="$abs_top_srcdir/include" \
                --define-variable=libdir="$libs" \
                --cflags --libs ncslab-v2)
    if [ $? != 0 ]; then
        fail "pkg-config cannot read the build tree's ncslab-v2.pc"
    else
        echo "$CC legacy.c $flags"
        # the linker and the loader find libncslab.so, which
        # libncslab_v2.so needs, through LD_LIBRARY_PATH
        if ! (cd "$tmp" &&
              LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} &&
              export LD_LIBRARY_PATH &&
              $CC legacy.c $flags -o legacy_pc &&
              ./legacy_pc legacy_pc.nc); then
            fail "legacy.c built with pkg-config ncslab-v2"
        elif [ -n "$(nm -u "$tmp/legacy_pc" 2>/dev/null | grep -w nc_open)" ]; then
            fail "legacy_pc refers to netCDF-C's nc_open"
        fi
    fi
fi

if [ "$have_netcdf" = yes ] && [ -n "$PKG_CONFIG" ]; then
    echo "== cc legacy.c \$(pkg-config --cflags --libs netcdf)"
    if (cd "$tmp" &&
        $CC legacy.c $("$PKG_CONFIG" --cflags --libs netcdf) -o legacy_netcdf &&
        ./legacy_netcdf legacy_netcdf.nc); then
        # the same program writes the same bytes through either library
        cmp "$tmp/legacy_netcdf.nc" "$tmp/legacy_check.nc" ||
            fail "legacy.nc differs between netCDF-C and ncslab"
    else
        fail "legacy.c built against netCDF-C"
    fi
fi

if [ $status = 0 ]; then
    rm -rf "$tmp"
else
    echo "outputs kept in $tmp"
fi
exit $status
