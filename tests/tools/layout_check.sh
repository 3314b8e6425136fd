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
# measured on a sample (100K of 480K: the first 42 records), the shapes
# are still the whole variable's; with a fixed and an unlimited time
for t in 200 200u; do
    out=$($lay $common --budget 100K -p series --shape time=$t,lat=20,lon=30 2>&1) ||
        fail "sampled series run, time=$t: $out"
    echo "$out" | grep -q '^measured on a sample: the first 42 of 200 time' ||
        fail "time=$t: no sample: $out"
    echo "$out" | grep -q '^chunks are shaped for the whole variable: ' ||
        fail "time=$t: no word on chunks longer than the sample: $out"
    echo "$out" | grep -q 'convert with: ncslab-copy -c var:200,1,1 ' ||
        fail "sampled series, time=$t: $out"
done
# the levels asked for are the levels recommended; the SVG is a document
out=$($lay $common --filters deflate --deflate 4 -p series --svg "$tmp/s.svg" 2>&1) ||
    fail "deflate run: $out"
# (a chunk of 800 bytes, which ncslab-copy, as nccopy, makes only with -M 0)
echo "$out" | grep -q 'convert with: ncslab-copy -c var:200,1,1 -M 0 -k nc7 -d 4 -s IN OUT' ||
    fail "deflate level: $out"
head -c 200 "$tmp/s.svg" | grep -q '<svg' || fail "no <svg> in the chart"
tail -c 20 "$tmp/s.svg" | grep -q '</svg>' || fail "the chart does not end with </svg>"
# a user's file: the recommendation, given to ncslab-copy as printed, makes
# a file with those chunks and the same values (ncgen and ncdump, when
# netCDF-C's tools are installed)
if command -v ncgen >/dev/null 2>&1 && command -v ncdump >/dev/null 2>&1; then
    cat >"$tmp/in.cdl" <<'CDL'
netcdf in {
dimensions: time = UNLIMITED ; y = 6 ; x = 8 ;
variables: short v(time, y, x) ; v:units = "K" ;
data: v = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
  20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38,
  39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57,
  58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76,
  77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95 ;
}
CDL
    ncgen -b -k nc3 -o "$tmp/in.nc" "$tmp/in.cdl" || fail "ncgen"
    out=$($lay --dir "$tmp" --only balanced --filters none --score bytes -p series "$tmp/in.nc" v 2>&1) ||
        fail "file run: $out"
    cmd=$(echo "$out" | sed -n 's/^convert with: ncslab-copy \(.*\) IN OUT$/\1/p')
    [ -n "$cmd" ] || fail "no conversion printed: $out"
    # shellcheck disable=SC2086
    $top_builddir/programs/copy/ncslab-copy -q $cmd "$tmp/in.nc" "$tmp/out.nc" ||
        fail "ncslab-copy refused: $cmd"
    ncdump -s -h "$tmp/out.nc" | grep -q 'v:_ChunkSizes = 2, 1, 1' ||
        fail "chunks of the copy: $(ncdump -s -h "$tmp/out.nc" | grep _ChunkSizes)"
    [ "$(ncdump -v v "$tmp/in.nc" | sed -n '/^data:/,$p')" = \
      "$(ncdump -v v "$tmp/out.nc" | sed -n '/^data:/,$p')" ] || fail "values of the copy differ"
    # --only file: each file measured as it is, read in place, left as it was
    sum=$(cksum <"$tmp/out.nc")
    out=$($lay --dir "$tmp" --only file --score bytes -p series -p map "$tmp/out.nc" v 2>&1) ||
        fail "--only file: $out"
    echo "$out" | grep -Eq '^file nc4 +2x1x1 ' || fail "--only file, chunked: $out"
    echo "$out" | grep -q '^convert with: nothing: the file as it is$' ||
        fail "--only file: a conversion of the file into itself: $out"
    [ "$(cksum <"$tmp/out.nc")" = "$sum" ] || fail "--only file changed or removed the file"
    out=$($lay --dir "$tmp" --only file,contiguous --filters none -p series "$tmp/in.nc" v 2>&1) ||
        fail "--only file,contiguous: $out"
    echo "$out" | grep -Eq '^file CDF-1 +- ' || fail "--only file, classic: $out"
    echo "$out" | grep -Eq '^contiguous CDF-1 +- ' || fail "--only file,contiguous: $out"
    [ -f "$tmp/in.nc" ] || fail "--only file removed the input"
    # a recommendation the file already has: nothing to convert (in.nc is
    # CDF-1, out.nc 2x1x1 chunks without filters); another format, another
    # filter: a conversion
    out=$($lay --dir "$tmp" --only contiguous -p series "$tmp/in.nc" v 2>&1) ||
        fail "--only contiguous: $out"
    echo "$out" | grep -qx 'convert with: nothing: the file stores v so already (ncslab-copy -c v: -k nc3 IN OUT)' ||
        fail "contiguous CDF-1 for a CDF-1 file: $out"
    ncgen -b -k nc6 -o "$tmp/in6.nc" "$tmp/in.cdl" || fail "ncgen -k nc6"
    out=$($lay --dir "$tmp" --only contiguous -p series "$tmp/in6.nc" v 2>&1) ||
        fail "--only contiguous, CDF-2: $out"
    echo "$out" | grep -qx 'convert with: ncslab-copy -c v: -k nc3 IN OUT' ||
        fail "contiguous CDF-1 for a CDF-2 file: $out"
    out=$($lay --dir "$tmp" --only user -c v:2,1,1 --filters none -p series "$tmp/out.nc" v 2>&1) ||
        fail "-c v:2,1,1 on 2x1x1 chunks: $out"
    echo "$out" | grep -q '^convert with: nothing: the file stores v so already (ncslab-copy -c v:2,1,1 ' ||
        fail "the file's own chunks: $out"
    out=$($lay --dir "$tmp" --only user -c v:2,1,1 --filters deflate -p series "$tmp/out.nc" v 2>&1) ||
        fail "-c v:2,1,1 --filters deflate on 2x1x1 chunks: $out"
    echo "$out" | grep -q '^convert with: ncslab-copy -c v:2,1,1 .*-d 1 -s IN OUT$' ||
        fail "the file's own chunks, deflated: $out"
fi
# a box with open ranges between others, every=N and an exact request
out=$($lay $common -p box=0:10,5:,: -p every=3 -p 0,0,0/10,2,3/2,1,1 2>&1) ||
    fail "box, every, exact: $out"
echo "$out" | grep -q 'pattern 1: box=0:10,5:,: (weight 1, 1 request)' || fail "box: $out"
# the man page has every option of --help, every pattern and every column
man=${srcdir:-.}/programs/layout/ncslab-layout.1
if [ -f "$man" ]; then
    text=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man")
    help=$($lay --help)
    for opt in $(echo "$help" | grep -o -- '--[a-z][a-z-]*' | sort -u) \
               $(echo "$help" | grep -o -- '^  -[a-z]' | tr -d ' ' | sort -u) \
               series map row column box= every= "start / count" @weight \
               candidate chunks size write warm cold bytes 'score(s)' 'score(B)' \
               copy_args read_bytes rchar_bytes chunks_touched; do
        case $text in
        *"$opt"*) ;;
        *) fail "ncslab-layout.1 does not mention $opt" ;;
        esac
    done
else
    fail "no $man"
fi
# CSV: a header and one row per candidate and pattern, equal field counts
n=$(awk -F, '{ gsub(/"[^"]*"/, "q") } NR == 1 { nf = NF } NF != nf { bad = 1 } END { print bad ? -1 : NR }' "$tmp/s.csv")
[ "$n" = 3 ] || fail "CSV rows/fields: $n"
for args in "--bogus" "--shape x=0" "--shape t=4 --type char" "-p nonsense --shape t=4,y=3" \
            "--shape t=4,y=3 -p box=0:9,:" "$tmp/missing.nc" "--budget 0 --shape t=4" \
            "--only file --shape t=4,y=3" "--only nofile --shape t=4,y=3"; do
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
