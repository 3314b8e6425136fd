#!/bin/sh
# tests/timeit/timeit_check.sh -- a short, verified run of ncslab-timeit
# (programs/timeit): the suite on a small 4-D shape for two types, a tiny
# --scan, a tiny --append, a tiny --strided and a tiny --threads, on every
# engine.  timeit
# checks every value it reads and exits non-zero on a wrong value or a
# failed call, so passing here means every engine returned correct data;
# the times themselves are not judged.  The CSV and the chart must come out
# well formed.  Before that: --help and the man page list the same options,
# and each of --help, --version and a bad option gets its exit status.
# Run by `make check` from the top build directory; automake's test harness
# exports srcdir.
set -u

top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
timeit=$top_builddir/programs/timeit/ncslab-timeit
man=$srcdir/programs/timeit/ncslab-timeit.1
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

# The options of --help (a line "  --name ...") and of the man page (the
# item of each .TP) must be the same list, so neither falls behind the
# other.
"$timeit" --help >"$tmp/help" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "--help exited with status $rc"
[ -s "$tmp/err" ] && fail "--help wrote to stderr: $(cat "$tmp/err")"
head -n 1 "$tmp/help" | grep -q '^usage: ncslab-timeit ' || fail "--help: no usage line"
sed -n 's/^  \(--[a-z][a-z0-9-]*\).*/\1/p' "$tmp/help" | sort >"$tmp/help.opts"
if [ -f "$man" ]; then
    awk '/^\.TP/ { if ((getline line) > 0) print line }' "$man" | sed 's/\\-/-/g' |
        grep -o -e '--[a-z][a-z0-9-]*' | sort >"$tmp/man.opts"
    [ -s "$tmp/help.opts" ] || fail "--help lists no options"
    diff "$tmp/help.opts" "$tmp/man.opts" >"$tmp/opts.diff" ||
        fail "--help (<) and $man (>) list different options: $(cat "$tmp/opts.diff")"
    grep -q '^\.TH NCSLAB-TIMEIT 1 ' "$man" || fail "$man: no .TH line"
else
    fail "no man page $man"
fi
"$timeit" --version >"$tmp/version" 2>&1 || fail "--version failed"
grep -q '^ncslab-timeit: libncslab [0-9].*, netCDF-C [0-9]' "$tmp/version" ||
    fail "--version printed: $(cat "$tmp/version")"
"$timeit" --no-such-option >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "a bad option exited with status $rc, not 2"
grep -q '^usage: ncslab-timeit ' "$tmp/err" || fail "a bad option: no usage on stderr"

# The program's sources include only their own headers and the public
# ones (and v2_names.h): their include path has no lib/, but the top of
# the tree is on it, so a header of the library named by its path would
# still be found.
for src in "$srcdir"/programs/timeit/*.[ch]; do
    bad=$(sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$src" |
        grep -v -x -e timeit.h -e suite.h -e terrain.h -e ncslab.h -e ncslab/netcdf.h -e v2_names.h \
            -e engine_v3.c)
    [ -z "$bad" ] || fail "$src includes $bad"
done

# The one program links netCDF-C and ncslab's v2 layer, the archive
# libncsv2.a of the v2 sources compiled with their names renamed by
# lib/compat/v2/v2_names.h: the archive must define every name of the list
# libncslab_v2 exports, each with the prefix, and nothing else; and each
# v2 function in the program must be netCDF-C's, since an unrenamed
# definition would take the place of netCDF-C's function without a word
# from the linker.  (Data symbols are left out there: netCDF-C's ncerr and
# ncopts are copied into the program by the linker, so they are defined
# there legitimately.)  The library itself is linked, not compiled in:
# when libncslab is shared, the program defines none of its functions.
sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$srcdir/lib/compat/v2/libncslab_v2.sym" |
    sort -u >"$tmp/v2names"
archive=$top_builddir/programs/timeit/libncsv2.a
if nm --defined-only "$archive" >"$tmp/nm" 2>/dev/null; then
    sed 's/^/ncsv2_/' "$tmp/v2names" >"$tmp/v2prefixed"
    awk 'NF >= 3 && $2 ~ /^[A-Z]$/ { print $3 }' "$tmp/nm" | sort -u >"$tmp/defined"
    diff "$tmp/v2prefixed" "$tmp/defined" >"$tmp/nm.diff" ||
        fail "$archive: the prefixed v2 list (<) and its symbols (>) differ: $(cat "$tmp/nm.diff")"
else
    fail "nm $archive failed"
fi
bin=$top_builddir/programs/timeit/.libs/ncslab-timeit
[ -f "$bin" ] || bin=$timeit
if nm --defined-only "$bin" >"$tmp/nm" 2>/dev/null; then
    awk 'NF >= 3 && $2 ~ /^[Tt]$/ { print $3 }' "$tmp/nm" | sort -u >"$tmp/defined"
    clash=$(comm -12 "$tmp/v2names" "$tmp/defined")
    [ -z "$clash" ] || fail "timeit defines v2 names unprefixed: $clash"
    grep -q ' ncsv2_ncvarget$' "$tmp/nm" || fail "timeit lacks ncsv2_ncvarget"
    if [ -f "$top_builddir/lib/.libs/libncslab.so" ]; then
        own=$(grep -E '^ncsi?_' "$tmp/defined" | head -n 5)
        [ -z "$own" ] || fail "timeit defines library functions itself: $own"
    fi
else
    fail "nm $bin failed"
fi

run --min-time 0.001 --dims 4,5,6,7 --types short,float --csv "$tmp/t.csv" --svg "$tmp/t.svg"
grep -q '^time for ncvarget 4x5x1x1 plane' "$tmp/out" || fail "no 1992-format lines"
grep -q '^Side by side' "$tmp/out" || fail "no side-by-side table"
# header + engines x 2 types x 47 tests (31, and the 16 puts again with a
# sync), every row with 11 fields
rows=$(sed 1d "$tmp/t.csv" | wc -l)
engines=$(grep -c '^call     shape' "$tmp/out")
[ "$rows" -gt 0 ] && [ $((rows % 94)) -eq 0 ] || fail "CSV has $rows rows, not a multiple of 94"
awk -F, 'NF != 11 { bad = 1 } END { exit bad }' "$tmp/t.csv" || fail "CSV rows without 11 fields"
# put+sync: a time for every engine on disk, n/a for the floor
for e in ncslab netCDF-C; do
    n=$(awk -F, -v e=$e '$1 == e && $4 == "put+sync" && $6 + 0 > 0' "$tmp/t.csv" | wc -l)
    [ "$n" -ge 32 ] || fail "CSV: $n timed put+sync rows for $e"
done
awk -F, '$1 == "memory" && $4 == "put+sync" && $6 != "n/a" { bad = 1 } END { exit bad }' \
    "$tmp/t.csv" || fail "CSV: put+sync timed on the memory floor"
grep -q '^put+sync 4x5x1x1 plane' "$tmp/out" || fail "no put+sync row in the table"
grep -q '</svg>' "$tmp/t.svg" || fail "chart not written"
[ "$engines" -eq 1 ] || fail "table header missing"

# scripts/figures turns that run into the README's section: 2 types x 31
# get and put tests compared, and --update replaces only that section.
if [ -x /usr/bin/python3 ]; then
    figures="/usr/bin/python3 $srcdir/scripts/figures --csv $tmp/t.csv --out $tmp/out"
    $figures --commit abc1234 --date 2000-01-01 >"$tmp/fig" 2>&1 || fail "figures failed"
    grep -q "faster than netCDF-C's on [0-9]* of 62 " "$tmp/fig" || fail "figures: no 62-test count"
    grep -q '^    Side by side: float_var' "$tmp/fig" || fail "figures: no table"
    printf 'Head\n\nToday'"'"'s numbers\n---\n\nold text\n\nThe chart of the same run\nTail\n' >"$tmp/R"
    $figures --commit abc1234 --date 2000-01-01 --update "$tmp/R" || fail "figures --update failed"
    { head -n 5 "$tmp/R"; tail -n 2 "$tmp/R"; } >"$tmp/R2"
    grep -q 'old text' "$tmp/R" && fail "figures --update kept the old section"
    [ "$(sed -n 1p "$tmp/R2")" = Head ] && [ "$(sed -n 7p "$tmp/R2")" = Tail ] ||
        fail "figures --update changed text outside its section"
    $figures --commit abc1234 --targets | grep -c '^| ' | grep -qx 6 || fail "figures --targets: not 6 rows"
fi

# the v3 engines: both libraries through nc_get_vara_* and the like, every
# value checked, as for the others
run --min-time 0.001 --dims 3,4,5 --types byte,char,short,long,float,double --quiet \
    --engines ncslab-v3,netcdf-v3,netcdf
grep -q 'ncslab v3' "$tmp/out" || fail "no ncslab v3 engine in the table"
grep -q 'netCDF-C v3' "$tmp/out" || fail "no netCDF-C v3 engine in the table"

run --min-time 0.001 --dims 3,4,5 --types double --quiet --layouts
grep -q '^Layouts' "$tmp/out" || fail "no layouts table"

# The peers configure found (the program then holds their engine tables,
# ti_lib_pnetcdf and ti_lib_netcdf2): the suite and the scan on every type
# and classic format, values checked; a build without a peer refuses its
# name.
peer_built() {
    nm "$bin" 2>/dev/null | grep -q " ti_lib_$1\$"
}
# Open MPI does not free what MPI_Init allocates, and MPI_Finalize unloads
# the components that allocated it, so an ASan build (scripts/sanitize)
# cannot suppress those leaks by name: the runs with PnetCDF check no
# leaks (the others still do).
run_mpi() {
    saved=${ASAN_OPTIONS-}
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
    export ASAN_OPTIONS
    run "$@"
    ASAN_OPTIONS=$saved
}
peers=
if peer_built pnetcdf; then
    peers=$peers,pnetcdf
    for format in 1 2 5; do
        run_mpi --min-time 0.001 --dims 3,4,5,2 --engines netcdf,pnetcdf --format $format --quiet
        grep -q "^ *netCDF-C *PnetCDF *\$" "$tmp/out" || fail "pnetcdf: no PnetCDF column"
    done
    grep -q '^ncslab-timeit: .*, PnetCDF [0-9]' "$tmp/version" || fail "--version: no PnetCDF"
else
    "$timeit" --engines pnetcdf --dims 2 >"$tmp/out" 2>&1 && fail "pnetcdf accepted, not built"
fi
if peer_built netcdf2; then
    peers=$peers,netcdf2,netcdf2-4
    run --min-time 0.001 --dims 3,4,5,2 --types short,double --engines netcdf,netcdf2,netcdf2-4 \
        --quiet
    grep -q "netCDF-C2 chunks" "$tmp/out" || fail "netcdf2-4: no column"
fi
if [ -n "$peers" ]; then
    run_mpi --scan --scan-size 60x90 --scan-chunks 12x18 --engines netcdf$peers
    if peer_built pnetcdf; then
        grep -q '^PnetCDF cdf1 ' "$tmp/out" || fail "scan: no PnetCDF row"
    fi
    if peer_built netcdf2; then
        grep -q '^netCDF-C2 chunks 12x18 deflate 1 ' "$tmp/out" || fail "scan: no netCDF-C2 row"
    fi
    run_mpi --append --append-records 12 --append-blocks 1,5 --append-repeat 2 --dims 1,6,7 \
        --types byte,long --engines netcdf$peers
    grep -q 'not available' "$tmp/out" && fail "append: a peer was not available"
    run_mpi --strided --min-time 0.001 --dims 3,4,5,6 --types byte,short,double \
        --engines netcdf$peers
    for lib in PnetCDF:pnetcdf netCDF-C2:netcdf2; do
        if peer_built "${lib#*:}"; then
            grep -q "^1x4x5x6 *${lib%:*} " "$tmp/out" || fail "strided: no ${lib%:*} row"
        fi
    done
fi

run --scan --scan-size 60x90 --scan-chunks 12x18 --scan-cache 0.5 \
    --engines ncslab,ncslab-chunked,netcdf,netcdf4,memory,native
grep -q '^netCDF-C cdf1 ' "$tmp/out" || fail "scan: no netCDF-C row"
grep -q '^memory resident ' "$tmp/out" || fail "scan: no memory row"
grep -q '^ncslab-native chunks 12x18 deflate 1 ' "$tmp/out" || fail "scan: no native chunked row"

run --append --append-records 12 --append-blocks 1,5 --append-repeat 2 --dims 1,6,7 \
    --types byte,long
grep -q 'write(2) raw' "$tmp/out" || fail "append: no write(2) baseline"

# strided and mapped gets: every rank from 1 to 4 (the map transposes the
# last two dimensions), odd and even lengths, through v2 and natively
run --strided --min-time 0.001 --dims 3,4,5,6 --types byte,short,double \
    --engines ncslab,native,netcdf --csv "$tmp/s.csv"
grep -q '^1x4x5x6 *ncslab-native ' "$tmp/out" || fail "strided: no native row"
grep -q 'ncvargetg speed-up over netCDF-C' "$tmp/out" || fail "strided: no summary"
# per type: 11 shapes, 3 engines, 3 or 4 requests each
rows=$(sed 1d "$tmp/s.csv" | wc -l)
[ "$rows" -ge $((3 * 11 * 3 * 3)) ] || fail "strided: CSV has only $rows rows"
awk -F, 'NF != 11 { bad = 1 } END { exit bad }' "$tmp/s.csv" || fail "strided CSV rows without 11 fields"
for dims in 7 5,4 2,3,1; do
    run --strided --min-time 0.001 --dims $dims --types float,char --engines ncslab,native,netcdf
done

# cold reads: every get shape and the time series, on each file engine,
# with the bytes of each call; the page drop is checked with mincore
run --cold --dims 3,4,5,6 --cold-records 20 --types short,double --csv "$tmp/c.csv"
grep -q '^Cold reads: short_var' "$tmp/out" || fail "cold: no table"
grep -q '^20x1x1x1 series ' "$tmp/out" || fail "cold: no time series row"
grep -q 'calls found pages of the file still cached' "$tmp/out" || fail "cold: no drop check"
# per type 15 shapes + the series, each with the bytes its read calls
# returned (the device's, the other row, are 0 where the scratch is tmpfs)
for e in ncslab netCDF-C; do
    n=$(awk -F, -v e=$e '$1 == e && $3 == "double" && $4 == "cold-get" && $8 + 0 > 0' "$tmp/c.csv" |
        wc -l)
    [ "$n" -ge 16 ] || fail "cold: $n rows with bytes for $e"
done
awk -F, 'NF != 11 { bad = 1 } END { exit bad }' "$tmp/c.csv" || fail "cold CSV rows without 11 fields"
# threads: every layout and read checked, on one thread and on two
run --threads 2 --threads-size 96x72 --scan-chunks 12x18 --min-time 0.001 --csv "$tmp/th.csv"
grep -q '^chunked 12x18 deflate *slab ' "$tmp/out" || fail "threads: no deflate slab row"
rows=$(sed 1d "$tmp/th.csv" | wc -l)
[ "$rows" -eq 22 ] || fail "threads: CSV has $rows rows, not 22"
"$timeit" --dir "$tmp" --threads 1 >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "--threads 1 exited with status $rc, not 2"

rm -rf "$tmp"
exit $status
