#!/bin/sh
# nctest/timeit_check.sh -- a short, verified run of the timeit harness:
# the suite on a small 4-D shape for two types, a tiny --scan, a tiny
# --append and a tiny --strided, on every engine.  timeit checks every value it reads and exits
# non-zero on a wrong value or a failed call, so passing here means every
# engine returned correct data; the times themselves are not judged.  The
# CSV and the chart must come out well formed.
# Run by `make check` from the top build directory.
set -u

top_builddir=${top_builddir:-.}
timeit=$top_builddir/nctest/timeit/timeit
tmp=$(mktemp -d "${TMPDIR:-/tmp}/timeit_check.XXXXXX") || exit 99
status=0

fail() {
    echo "FAIL: $*"
    status=1
}

run() {
    echo "+ timeit $*"
    "$timeit" --dir "$tmp" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    cat "$tmp/out" "$tmp/err"
    [ $rc -eq 0 ] || fail "timeit $* exited with status $rc"
}

# The one program links netCDF-C and ncslab's v2 sources: each v2 function
# (the list libncslab_v2 exports) must be netCDF-C's there, ncslab's own
# copy renamed by lib/compat/v2/v2_names.h; an unrenamed definition would take
# the place of netCDF-C's function without a word from the linker.  (Data
# symbols are left out: netCDF-C's ncerr and ncopts are copied into the
# program by the linker, so they are defined there legitimately.)
srcdir=${srcdir:-.}
bin=$top_builddir/nctest/timeit/.libs/timeit
[ -f "$bin" ] || bin=$timeit
if nm --defined-only "$bin" >"$tmp/nm" 2>/dev/null; then
    sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$srcdir/lib/compat/v2/libncslab_v2.sym" |
        sort -u >"$tmp/v2names"
    awk 'NF >= 3 && $2 ~ /^[Tt]$/ { print $3 }' "$tmp/nm" | sort -u >"$tmp/defined"
    clash=$(comm -12 "$tmp/v2names" "$tmp/defined")
    [ -z "$clash" ] || fail "timeit defines v2 names unprefixed: $clash"
    grep -q ' ncsv2_nc_inq_vartype$' "$tmp/nm" || fail "timeit lacks ncsv2_nc_inq_vartype"
else
    fail "nm $bin failed"
fi

run --min-time 0.001 --dims 4,5,6,7 --types short,float --csv "$tmp/t.csv" --svg "$tmp/t.svg"
grep -q '^time for ncvarget 4x5x1x1 plane' "$tmp/out" || fail "no 1992-format lines"
grep -q '^Side by side' "$tmp/out" || fail "no side-by-side table"
# header + engines x 2 types x 31 tests, every row with 11 fields
rows=$(sed 1d "$tmp/t.csv" | wc -l)
engines=$(grep -c '^call     shape' "$tmp/out")
[ "$rows" -gt 0 ] && [ $((rows % 62)) -eq 0 ] || fail "CSV has $rows rows, not a multiple of 62"
awk -F, 'NF != 11 { bad = 1 } END { exit bad }' "$tmp/t.csv" || fail "CSV rows without 11 fields"
grep -q '</svg>' "$tmp/t.svg" || fail "chart not written"
[ "$engines" -eq 1 ] || fail "table header missing"

run --min-time 0.001 --dims 3,4,5 --types double --quiet --layouts
grep -q '^Layouts' "$tmp/out" || fail "no layouts table"

run --scan --scan-size 60x90 --scan-chunks 12x18 --engines all --scan-cache 0.5
grep -q '^netCDF-C cdf1 ' "$tmp/out" || fail "scan: no netCDF-C row"
grep -q '^memory resident ' "$tmp/out" || fail "scan: no memory row"
grep -q '^ncslab-native chunks 12x18 deflate 1 ' "$tmp/out" || fail "scan: no native chunked row"

run --append --append-records 12 --append-blocks 1,5 --append-repeat 2 --dims 1,6,7 \
    --types byte,long
grep -q 'write(2) raw' "$tmp/out" || fail "append: no write(2) baseline"

# strided and mapped gets: every rank from 1 to 4 (the map transposes the
# last two dimensions), odd and even lengths, through v2 and natively
run --strided --min-time 0.001 --dims 3,4,5,6 --types byte,short,double --engines all \
    --csv "$tmp/s.csv"
grep -q '^1x4x5x6 *ncslab-native ' "$tmp/out" || fail "strided: no native row"
grep -q 'ncvargetg speed-up over netCDF-C' "$tmp/out" || fail "strided: no summary"
# per type: 11 shapes, 3 engines, 3 or 4 requests each
rows=$(sed 1d "$tmp/s.csv" | wc -l)
[ "$rows" -ge $((3 * 11 * 3 * 3)) ] || fail "strided: CSV has only $rows rows"
awk -F, 'NF != 11 { bad = 1 } END { exit bad }' "$tmp/s.csv" || fail "strided CSV rows without 11 fields"
for dims in 7 5,4 2,3,1; do
    run --strided --min-time 0.001 --dims $dims --types float,char --engines all
done

rm -rf "$tmp"
exit $status
