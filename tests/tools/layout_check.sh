#!/bin/sh
# tests/tools/layout_check.sh -- ncslab-layout (programs/layout): the
# balanced chunk shape on cases whose answer is known (a series-only
# pattern gets chunks long in time, a map-only one one record per chunk),
# the CSV's shape, bad options and inputs, and no temporary file left.
set -u
top_builddir=${top_builddir:-.}
lay=$top_builddir/programs/layout/ncslab-layout
tmp=$(mktemp -d "${TMPDIR:-/tmp}/layout_check.XXXXXX") || exit 99
status=0
fail() { echo "FAIL: $*"; status=1; }
common="--shape time=200,lat=20,lon=30 --only default,balanced --filters none --chunk-bytes 64K --score bytes --dir $tmp"
out=$($lay $common -p series --csv "$tmp/s.csv" 2>&1) || fail "series run: $out"
echo "$out" | grep -q 'convert with: ncslab-copy -c var:200,1,1 ' || fail "series: $out"
out=$($lay $common -p map 2>&1) || fail "map run: $out"
echo "$out" | grep -q 'convert with: ncslab-copy -c var:1,20,30 ' || fail "map: $out"
# CSV: a header and one row per candidate and pattern, equal field counts
n=$(awk -F, '{ gsub(/"[^"]*"/, "q") } NR == 1 { nf = NF } NF != nf { bad = 1 } END { print bad ? -1 : NR }' "$tmp/s.csv")
[ "$n" = 3 ] || fail "CSV rows/fields: $n"
for args in "--bogus" "--shape x=0" "--shape t=4 --type char" "-p nonsense --shape t=4,y=3" \
            "--shape t=4,y=3 -p box=0:9,:" "$tmp/missing.nc" "--budget 0 --shape t=4"; do
    if err=$($lay --dir "$tmp" $args 2>&1 >/dev/null); then
        fail "no failure for: $args"
    elif [ -z "$err" ]; then
        fail "no message for: $args"
    fi
done
echo junk >"$tmp/junk.nc"
$lay --dir "$tmp" "$tmp/junk.nc" >/dev/null 2>&1 && fail "junk input accepted"
left=$(ls "$tmp" | grep -c '^ncslab-layout')
[ "$left" = 0 ] || fail "$left temporary files left"
rm -rf "$tmp"
exit $status
