#!/bin/sh
# tests/dropin/dropin_check.sh -- the drop-in libnetcdf.so.19 and ncslab-run
# (lib/compat/dropin, programs/run, doc/dropin.md).
#
# 1. The library: netCDF-C's soname; every symbol that each installed
#    netCDF-C client imports from netCDF-C's library (ncdump, nccopy, ncgen,
#    NCO's, CDO's, netCDF-Fortran's, Python netCDF4's; they bind at load
#    time, so one missing name and the program does not start) is exported;
#    nothing of ncslab's own is; netCDF-C's library's own dependencies are
#    among its own.
# 2. tests/dropin/dropin_calls, a netCDF-C client, run plainly and through
#    ncslab-run: the logs equal, classic files byte-identical, netCDF-4
#    files ncdump-identical, and netCDF-C's library not loaded while only
#    classic-model files were used; netCDF-4 files of the enhanced model's
#    format created and opened for writing by ncslab, and handed to
#    netCDF-C where the writer goes beyond classic content (the drop-in's
#    trace).
# 3. ncdump through ncslab-run on classic and netCDF-4 files, in each mode
#    of NCSLAB_DROPIN; what nobody serves (no netCDF-C to forward to) fails
#    cleanly; nc_inq_libvers says that ncslab serves and parses as a
#    version.
# Run by `make check` from the top build directory; skipped without
# netCDF-C's library or ncdump.
set -u
top_builddir=${top_builddir:-.}
run=$top_builddir/programs/run/ncslab-run-uninstalled
dropin=$top_builddir/lib/compat/dropin/.libs/libnetcdf.so.19
calls=$top_builddir/tests/dropin/dropin_calls
real=$(sed -n 's/^#define NCSD_NETCDF_C "\(.*\)"$/\1/p' "$top_builddir/config.h")
status=0
fail() { echo "FAIL: $*"; status=1; }
pass() { echo "ok: $*"; }

[ -n "$real" ] && [ -f "$real" ] || { echo "SKIP: no netCDF-C library to compare with"; exit 77; }
command -v ncdump >/dev/null 2>&1 || { echo "SKIP: no ncdump"; exit 77; }
[ -f "$dropin" ] || { echo "FAIL: no $dropin"; exit 1; }
# a sanitizer build's library needs its runtime, which only instrumented
# programs carry (scripts/sanitize): the installed clients cannot load it
if nm -D "$dropin" 2>/dev/null | grep -qE ' U __(asan|tsan|ubsan|msan)_'; then
    echo "SKIP: this drop-in is built with a sanitizer; uninstrumented programs cannot load it"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dropin.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

echo "== 1. the library"
soname=$(objdump -p "$dropin" | sed -n 's/^ *SONAME *//p')
[ "$soname" = libnetcdf.so.19 ] && pass "soname $soname" || fail "soname '$soname'"
nm -D --defined-only "$dropin" | awk '{print $NF}' | sort -u >"$tmp/exports"
nm -D --defined-only "$real" | awk '{print $NF}' | sort -u >"$tmp/real"
bad=$(grep -E '^(ncs_|ncsi_|ncsv3_|ncsd_)' "$tmp/exports" | head -5)
[ -z "$bad" ] && pass "exports no ncslab names" || fail "exports ncslab names: $bad"
extra=$(comm -23 "$tmp/exports" "$tmp/real" | grep -v '^strlcat$' | head -5)
[ -z "$extra" ] && pass "exports only names netCDF-C's library has" || fail "exports names netCDF-C lacks: $extra"
nclients=0
for b in /usr/bin/ncdump /usr/bin/nccopy /usr/bin/ncgen /usr/lib/nco/libnco-*.so \
         /usr/lib/*/libcdi.so.0 /usr/lib/*/libnetcdff.so.7 \
         /usr/lib/python3/dist-packages/netCDF4/_netCDF4*.so; do
    [ -f "$b" ] || continue
    nclients=$((nclients + 1))
    nm -D --undefined-only "$b" | awk '{print $NF}' | sed 's/@.*//' | sort -u |
        comm -12 - "$tmp/real" >"$tmp/imports"
    missing=$(comm -23 "$tmp/imports" "$tmp/exports" | tr '\n' ' ')
    [ -z "$missing" ] && pass "$(wc -l <"$tmp/imports") names $b imports are exported" ||
        fail "$b imports names the drop-in lacks: $missing"
done
[ $nclients -gt 0 ] || fail "no netCDF-C client installed to check the exports against"
for n in $(objdump -p "$real" | sed -n 's/^ *NEEDED *//p'); do
    objdump -p "$dropin" | grep -q "NEEDED *$n\$" || fail "does not need $n as netCDF-C's library does"
done
pass "needs what netCDF-C's library needs"

echo "== 2. a netCDF-C client, plainly and through ncslab-run"
mkdir "$tmp/plain" "$tmp/dropin"
"$calls" "$tmp/plain" >"$tmp/plain.log" 2>&1 || fail "dropin_calls plainly"
NCSLAB_DROPIN_TRACE=$tmp/trace "$run" "$calls" "$tmp/dropin" >"$tmp/dropin.log" 2>&1 ||
    fail "dropin_calls through ncslab-run"
if cmp -s "$tmp/plain.log" "$tmp/dropin.log"; then
    pass "logs equal ($(wc -l <"$tmp/plain.log") lines)"
else
    fail "logs differ:"; diff "$tmp/plain.log" "$tmp/dropin.log" | head -20
fi
grep -q '^libnetcdf files mapped  *1$' "$tmp/dropin.log" &&
    pass "netCDF-C not loaded while only classic-model files were used" ||
    fail "netCDF-C loaded for classic-model files only"
for f in c1.nc c5.nc copy.nc; do
    cmp -s "$tmp/plain/$f" "$tmp/dropin/$f" && pass "$f byte-identical" || fail "$f differs"
done
for f in c7.nc e.nc copy4.nc dflt.nc h1.nc h2.nc h3.nc h7.nc h8.nc; do
    ncdump "$tmp/plain/$f" | sed 1d >"$tmp/a.cdl"
    ncdump "$tmp/dropin/$f" | sed 1d >"$tmp/b.cdl"
    cmp -s "$tmp/a.cdl" "$tmp/b.cdl" && pass "$f ncdump-identical" || fail "$f: ncdump differs"
done

# Who served the netCDF-4 files of the enhanced model's format (the trace
# the drop-in wrote beside the log): ncslab, up to a hand-over to netCDF-C
# in the create's define mode, a define mode entered again, or data mode,
# as the calls of dropin_calls.c reach them; h2's and h8's definitions in
# data mode, and h8's sync in define mode, stay with ncslab, which enters
# and leaves define mode for them as netCDF-C does.
served() {   # served CALL FILE SIDE: FILE's CALL (create, open) by SIDE
    grep -q "^ncslab drop-in: $1($tmp/dropin/$2) $3 -> 0 " "$tmp/trace"
}
handed() {   # handed FILE MODE: FILE handed to netCDF-C in MODE
    grep -q "^ncslab drop-in: hand-over of [0-9]* ($tmp/dropin/$1, $2) to netCDF-C -> 0\$" "$tmp/trace"
}
nhanded() { grep -c "^ncslab drop-in: hand-over of [0-9]* ($tmp/dropin/$1, " "$tmp/trace"; }
for f in h1 h2 h3 h4 h5 h6 h7 h8; do
    served create $f.nc ncslab || fail "$f.nc (NC_NETCDF4) not created by ncslab"
done
served open h2.nc ncslab && served open copy4.nc ncslab ||
    fail "a netCDF-4 file of classic content opened for writing not served by ncslab"
handed h1.nc "define mode" && handed h5.nc "define mode" &&
    handed h3.nc "redefine mode" && handed h6.nc "redefine mode" &&
    handed copy4.nc "redefine mode" && handed h7.nc "data mode" ||
    fail "files not handed to netCDF-C where their writers go beyond classic content"
[ "$(nhanded h2.nc)" = 0 ] && [ "$(nhanded h4.nc)" = 0 ] && [ "$(nhanded h8.nc)" = 0 ] ||
    fail "files handed over that hold only classic content"
pass "NC_NETCDF4 files written by ncslab, handed to netCDF-C when needed ($(grep -c hand-over "$tmp/trace") hand-overs)"

echo "== 3. ncdump through ncslab-run, each mode"
for f in c1.nc c5.nc c7.nc e.nc; do
    for opt in "" -h -c -k -s "-v t" -x; do
        ncdump $opt "$tmp/plain/$f" >"$tmp/a.txt" 2>&1
        for mode in auto ncslab netcdf; do
            NCSLAB_DROPIN=$mode "$run" ncdump $opt "$tmp/plain/$f" >"$tmp/b.txt" 2>&1
            rc=$?
            if [ $mode = ncslab ] && [ $f = e.nc ]; then
                # ncslab alone does not serve the enhanced model: a clean failure
                [ $rc -ne 0 ] && [ $rc -lt 128 ] || fail "ncslab alone on $f $opt: status $rc"
                continue
            fi
            cmp -s "$tmp/a.txt" "$tmp/b.txt" || { fail "ncdump $opt $f ($mode) differs"; diff "$tmp/a.txt" "$tmp/b.txt" | head -5; }
        done
    done
done
pass "ncdump outputs compared"
"$calls" --szip "$tmp/szip.nc"
case $? in
0)  ncdump -s "$tmp/szip.nc" >"$tmp/a.txt" 2>&1
    "$run" ncdump -s "$tmp/szip.nc" >"$tmp/b.txt" 2>&1
    cmp -s "$tmp/a.txt" "$tmp/b.txt" && pass "a file with a filter ncslab does not run (szip) is forwarded" ||
        { fail "szip file: ncdump differs"; diff "$tmp/a.txt" "$tmp/b.txt" | head -5; } ;;
77) echo "skip: this netCDF-C writes no szip" ;;
*)  fail "dropin_calls --szip" ;;
esac
NCSLAB_NETCDF_C=none "$run" ncdump -h "$tmp/plain/e.nc" >"$tmp/b.txt" 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] && pass "no netCDF-C to forward to: the enhanced file fails cleanly ($(head -c 60 "$tmp/b.txt"))" ||
    fail "no netCDF-C to forward to: status $rc"
NCSLAB_NETCDF_C=none "$run" ncdump "$tmp/plain/c1.nc" >"$tmp/b.txt" 2>&1
ncdump "$tmp/plain/c1.nc" >"$tmp/a.txt"
cmp -s "$tmp/a.txt" "$tmp/b.txt" && pass "no netCDF-C to forward to: classic files as before" ||
    fail "no netCDF-C to forward to: classic ncdump differs"
v=$("$run" "$calls" --libvers)
case $v in
4.[0-9]*.[0-9]*' '*ncslab*) pass "libvers: $v" ;;
*) fail "libvers '$v'" ;;
esac
"$run" --ncslab true && pass "ncslab-run --ncslab true" || fail "ncslab-run true"
"$run" >/dev/null 2>&1; [ $? -eq 2 ] && pass "ncslab-run without a command: status 2" ||
    fail "ncslab-run without a command"
exit $status
