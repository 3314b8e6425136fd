#!/bin/sh
# tests/tools/install_check.sh -- `make install` installs the programs, the
# libraries, the headers, the pkg-config files and the man pages, and the
# installed programs run.
#
# Installs the build into a scratch DESTDIR, then checks that
#   - the programs ncslab-copy, ncslab-layout, ncslab-check, ncslab-timeit
#     and ncslab-run are in bin/ and executable, and each answers --version
#     with the installed libraries (LD_LIBRARY_PATH to the installed lib/);
#   - every installed program has its page in man1/, and the library's
#     pages ncslab(3), ncslab-v2(3) and ncslab-netcdf(3) are in man3/;
#   - libncslab.so, include/ncslab.h and ncslab.pc are installed;
#   - the installed ncslab-copy copies a file and the installed
#     ncslab-check finds the copy good (needs ncgen; skipped without it).
# Run by `make check` from the top build directory.
set -u

tmp=$(mktemp -d "${TMPDIR:-/tmp}/install_check.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0
fail() {
    echo "FAIL: $*"
    status=1
}

# the make of the test harness is not the one to run here: its jobserver
# and flags belong to `make check`
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s install \
        DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log"
    fail "make install DESTDIR=$tmp/root"
    exit 1
fi

# where the configured prefix put things, found by name
find_one() {
    find "$tmp/root" -path "$1" | head -n 1
}
bin=$(dirname "$(find_one '*/bin/ncslab-copy')")
man=$(dirname "$(dirname "$(find_one '*/man1/ncslab-copy.1')")")
lib=$(dirname "$(find_one '*/lib*/libncslab.so')")
[ -d "$bin" ] || { fail "no bin/ncslab-copy installed"; exit 1; }
[ -d "$man/man1" ] || fail "no man1/ncslab-copy.1 installed"
[ -d "$lib" ] || fail "no libncslab.so installed"
[ -n "$(find_one '*/include/ncslab.h')" ] || fail "no include/ncslab.h installed"
[ -n "$(find_one '*/pkgconfig/ncslab.pc')" ] || fail "no pkgconfig/ncslab.pc installed"

for p in ncslab-copy ncslab-layout ncslab-check ncslab-timeit ncslab-run; do
    if [ ! -x "$bin/$p" ]; then
        fail "$p is not installed in $bin"
        continue
    fi
    out=$(LD_LIBRARY_PATH=$lib "$bin/$p" --version 2>&1) ||
        fail "installed $p --version: $out"
    case $out in *ncslab*) ;; *) fail "installed $p --version says: $out" ;; esac
done
nprog=0
for p in "$bin"/*; do
    nprog=$((nprog + 1))
    name=$(basename "$p")
    [ -f "$man/man1/$name.1" ] || fail "$name is installed without its page man1/$name.1"
done
[ "$nprog" -ge 5 ] || fail "only $nprog programs installed"
for page in ncslab.3 ncslab-v2.3 ncslab-netcdf.3; do
    [ -f "$man/man3/$page" ] || fail "man3/$page is not installed"
done

if command -v ncgen >/dev/null 2>&1; then
    printf 'netcdf t { dimensions: t = UNLIMITED ; x = 40 ;\nvariables: float v(t, x) ;\ndata: v = 1, 2, 3 ; }' \
        >"$tmp/t.cdl"
    ncgen -k nc3 -o "$tmp/t.nc" "$tmp/t.cdl" || fail "ncgen"
    LD_LIBRARY_PATH=$lib "$bin/ncslab-copy" -q --verify -d 1 -s "$tmp/t.nc" "$tmp/t4.nc" ||
        fail "the installed ncslab-copy"
    LD_LIBRARY_PATH=$lib "$bin/ncslab-check" -q "$tmp/t4.nc" ||
        fail "the installed ncslab-check on the installed ncslab-copy's output"
fi
[ $status -eq 0 ] && echo "ok: $nprog programs with their pages, the library's pages, headers and pkg-config"
exit $status
