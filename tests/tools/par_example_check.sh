#!/bin/sh
# tests/tools/par_example_check.sh -- doc/examples/par_write.c built with
# the documented line, from the build tree's .pc file,
#     mpicc par_write.c $(pkg-config --cflags --libs ncslab-par)
# (the compiler here: $CC with MPI's flags, which ncslab-par.pc names),
# run at 4 processes; the file it wrote read back serially by ncslab-check
# and, when installed, ncdump.  Run by `make check` from the build tree.
set -u
top_builddir=${top_builddir:-.}
. "$top_builddir/tests/v2/v2env.sh"
if [ -z "$PKG_CONFIG" ]; then
    echo "note: no pkg-config: skipped"
    exit 77
fi
PAR_TIMEOUT=120
. "$abs_top_srcdir/tests/par/par_common.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/parex.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
libs=$abs_top_builddir/lib/.libs
flags=$(PKG_CONFIG_PATH=$abs_top_builddir "$PKG_CONFIG" \
            --define-variable=includedir="$abs_top_srcdir/include" \
            --define-variable=libdir="$libs" --cflags --libs ncslab-par) || {
    echo "FAIL: pkg-config cannot read the build tree's ncslab-par.pc"
    exit 1
}
cp "$abs_top_srcdir/doc/examples/par_write.c" "$tmp/"
echo "$CC par_write.c $flags"
(cd "$tmp" && $CC par_write.c $flags -o par_write) || {
    echo "FAIL: par_write.c does not build with pkg-config ncslab-par"
    exit 1
}
out=$(cd "$tmp" && LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} &&
      export LD_LIBRARY_PATH && par_run 4 ./par_write out.nc)
status=$?
echo "$out"
if [ $status != 0 ] || ! echo "$out" | grep -q "4 processes wrote out.nc: every value read back"; then
    echo "FAIL: par_write at 4 processes"
    exit 1
fi
"$abs_top_builddir/programs/check/ncslab-check" "$tmp/out.nc" || {
    echo "FAIL: ncslab-check rejects the file par_write wrote"
    exit 1
}
if command -v ncdump >/dev/null 2>&1; then
    ncdump -v series "$tmp/out.nc" | grep -q "3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5" || {
        echo "FAIL: ncdump does not read process 3's record"
        exit 1
    }
fi
echo "PASS: par_write.c built through pkg-config ncslab-par, run at 4 processes"
