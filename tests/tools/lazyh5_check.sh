#!/bin/sh
# tests/tools/lazyh5_check.sh -- HDF5 is loaded on the first use of a
# netCDF-4 file (lib/store/hdf5/h5_load.c), and never by a program that
# uses only classic files.
#
#   1. tests/tools/lazyh5 (linked with libncslab only): no HDF5 mapping
#      after a classic open/get/put/close; one after creating a netCDF-4
#      file; in a second process, one after opening it
#   2. where HDF5 cannot be loaded, netCDF-4 files fail with NCS_ENOTBUILT
#      and classic files keep working: a directory searched before the
#      system's (LD_LIBRARY_PATH) holds, under HDF5's SONAME, a file that
#      is not a library; tests/tools/fakeh5.c (no HDF5 functions); the
#      same reporting an older release and another series
#   3. libncslab.so and libncslab_v2.so need no HDF5 library and leave no
#      HDF5 symbol to the dynamic linker; no pkg-config file names HDF5
#
# Run by `make check` from the top build directory.  Skips (77) where
# /proc/self/maps is missing or no shared library was built.
set -u
top_builddir=${top_builddir:-.}
prog=$top_builddir/tests/tools/lazyh5
fake=$top_builddir/tests/tools/.libs/libfakeh5.so
lib=$top_builddir/lib/.libs/libncslab.so
lib_v2=$top_builddir/lib/.libs/libncslab_v2.so

[ -r /proc/self/maps ] || { echo "SKIP: no /proc/self/maps"; exit 77; }
[ -f "$lib" ] && [ -f "$fake" ] || { echo "SKIP: no shared libraries built"; exit 77; }

tmp=${TMPDIR:-/tmp}/lazyh5_check.$$
mkdir "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

soname=$("$prog" soname) || { echo "FAIL: lazyh5 soname"; exit 1; }

# 1.
"$prog" "$tmp" create || fail "lazyh5 create"
"$prog" "$tmp" open || fail "lazyh5 open"

# 2.
mkdir "$tmp/broken" "$tmp/fake" || exit 1
echo "not a shared library" >"$tmp/broken/$soname"
cp "$fake" "$tmp/fake/$soname" || exit 1
run_unloadable() {
    dir=$1 what=$2
    shift 2
    if ! env "$@" LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
            "$prog" "$tmp" unloadable; then
        fail "lazyh5 unloadable: $what"
    fi
}
run_unloadable "$tmp/broken" "not a library"
run_unloadable "$tmp/fake" "no HDF5 functions"
run_unloadable "$tmp/fake" "release 0.0.0" FAKEH5_VERSION=0.0.0
run_unloadable "$tmp/fake" "series 1.99" FAKEH5_VERSION=1.99.0
# After all that, the netCDF-4 file is intact and HDF5 loads again.
"$prog" "$tmp" open || fail "lazyh5 open after the failed loads"

# 3.
for l in "$lib" "$lib_v2"; do
    [ -f "$l" ] || continue
    needed=$(${OBJDUMP:-objdump} -p "$l" | sed -n 's/^ *NEEDED *//p' | grep -i hdf5)
    [ -z "$needed" ] || fail "$l needs $needed"
    undef=$(${NM:-nm} -D --undefined-only "$l" | sed -n 's/.* \(H5[A-Za-z0-9_]*\).*/\1/p')
    [ -z "$undef" ] || fail "$l leaves HDF5 symbols to the dynamic linker:" $undef
done
for pc in "$top_builddir"/*.pc; do
    if grep -i hdf5 "$pc" >/dev/null; then
        fail "$pc names HDF5:"
        grep -i hdf5 "$pc"
    fi
done
exit $status
