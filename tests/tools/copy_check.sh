#!/bin/sh
# tests/tools/copy_check.sh -- ncslab-copy (programs/copy) against netCDF-C's
# reading of what it writes.
#
# Inputs are written by netCDF-C's ncgen from CDL generated here: record and
# fixed variables of every classic type, text, a scalar, fill values in the
# data, attributes of several types, and a 600 KB variable whose values
# encode their coordinates (more than the slab of the 1M budget every copy
# here is given, so it moves in several slabs).  Each input is copied into
# every layout (CDF-1, CDF-2, CDF-5, netCDF-4 classic contiguous, chunked,
# deflate+shuffle, zstd+Fletcher-32, and chunks larger than the budget), and
# each of those into every layout again; ncdump of every output must equal
# ncdump of the original (its first line, the file's name, aside).
# netCDF-C has no zstd decoder here, so a zstd output's header is compared
# and its values through the copies made from it.  A second input holds the
# CDF-5 types too and goes CDF-5 to CDF-5 (no other classic-model format
# holds them; asking for one is among the failures).  Where nccopy is
# installed, -c, -d and -M give the chunk sizes nccopy gives.  Then
# bad options and unreadable inputs: each must fail with a message, and
# leave neither the output nor a temporary file; nor may SIGINT, SIGTERM or
# SIGHUP in the middle of a copy.
# Needs ncgen and ncdump (netcdf-bin); skips without them.
# Run by `make check` from the top build directory.
set -u

top_builddir=${top_builddir:-.}
copy=$top_builddir/programs/copy/ncslab-copy
for tool in ncgen ncdump; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "SKIP: $tool (netcdf-bin) not found"
        exit 77
    fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/copy_check.XXXXXX") || exit 99
status=0
ncopies=0

fail() {
    echo "FAIL: $*"
    status=1
}

# cdl NAME WITH_CDF5_TYPES
cdl() {
    awk -v name="$1" -v cdf5="$2" 'BEGIN {
        nt = 3; ny = 200; nx = 250
        printf "netcdf %s {\ndimensions:\n", name
        printf "\ttime = UNLIMITED ;\n\tlat = 4 ;\n\tlon = 5 ;\n\tn = 3 ;\n"
        printf "\tstrlen = 6 ;\n\ty = %d ;\n\tx = %d ;\nvariables:\n", ny, nx
        print "\tfloat temp(time, lat, lon) ;"
        print "\t\ttemp:units = \"K\" ;"
        print "\t\ttemp:_FillValue = -999.f ;"
        print "\t\ttemp:valid_range = 100.f, 400.f ;"
        print "\tdouble lat(lat) ;\n\t\tlat:units = \"degrees_north\" ;"
        print "\tint time(time) ;\n\tchar name(n, strlen) ;"
        print "\tbyte b(n) ;\n\t\tb:flags = 1b, 2b, 4b ;"
        print "\tshort s(time, n) ;\n\t\ts:_FillValue = -1s ;"
        print "\tdouble sc ;\n\t\tsc:long_name = \"a scalar\" ;"
        print "\tfloat big(time, y, x) ;\n\t\tbig:comment = \"t*1e5+y*1e3+x\" ;"
        print "\tint band(y, n) ;"
        if (cdf5) {
            print "\tubyte ub(n) ;\n\t\tub:_FillValue = 7UB ;"
            print "\tushort us(time) ;\n\tuint ui(n) ;"
            print "\tint64 i64(n) ;\n\t\ti64:range = -9000000000000LL, 9000000000000LL ;"
            print "\tuint64 u64(n) ;"
        }
        print "\n// global attributes:"
        print "\t\t:title = \"copy test\" ;\n\t\t:version = 3 ;"
        print "\t\t:scale = 1.5, 2.5 ;\n\t\t:tiny = -1b ;\n\t\t:short_one = 300s ;"
        print "data:"
        printf " temp ="
        for (i = 0; i < nt * 20; i++)
            printf "%s %s", i ? "," : "", i == 20 ? "_" : i + 1
        print " ;"
        print " lat = -45, -15, 15, 45 ;\n time = 0, 6, 12 ;"
        print " name = \"alpha\", \"beta\", \"gamma\" ;\n b = -128, 0, 127 ;"
        print " s = 1, 2, 3, 4, _, 6, 7, 8, 9 ;\n sc = 3.25 ;"
        printf " big ="
        for (t = 0; t < nt; t++)
            for (y = 0; y < ny; y++) {
                printf "%s\n ", t + y ? "," : ""
                for (x = 0; x < nx; x++)
                    printf "%s%d", x ? ", " : " ", t * 100000 + y * 1000 + x
            }
        print " ;"
        printf " band ="
        for (y = 0; y < ny; y++)
            printf "%s %d, %d, %d", y ? "," : "", -y, y * 7, y * 1000003
        print " ;"
        if (cdf5) {
            print " ub = 0, 7, 255 ;\n us = 0, _, 65535 ;"
            print " ui = 0, 1, 4294967295 ;"
            print " i64 = -9223372036854775807, 0, 9223372036854775807 ;"
            print " u64 = 0, 1, 18446744073709551615 ;"
        }
        print "}"
    }'
}

# The options that make each layout, and a line `ncdump -s -h` must show.
layouts="cdf1 cdf2 cdf5 nc4c nc4k nc4d nc4z nc4b"
opts() {
    case $1 in
    cdf1) echo "-k classic" ;;
    cdf2) echo "-k nc6" ;;
    cdf5) echo "-5" ;;
    nc4c) echo "-k nc7 -c / -d 0 --zstd 0" ;;
    nc4k) echo "-k nc7 -c time/1,y/64,x/50 -c band:7,2 -M 0 -d 0 --zstd 0" ;;
    nc4d) echo "-7 -d 1 -s -c y/30,x/250" ;;
    nc4z) echo "-k nc7 --zstd 3 --fletcher32 -c big:2,16,125" ;;
    nc4b) echo "-k nc7 -c time/3,y/200,x/250 -d 0 --zstd 0" ;;
    esac
}
storage_line() {
    case $1 in
    nc4c) echo 'lat:_Storage = "contiguous"' ;;
    nc4k) echo 'band:_ChunkSizes = 7, 2' ;;
    nc4d) echo 'big:_DeflateLevel = 1' ;;
    nc4z) echo 'big:_Fletcher32 = "true"' ;;
    nc4b) echo 'big:_ChunkSizes = 3, 200, 250' ;;
    esac
}
kind_of() {
    case $1 in
    cdf1) echo classic ;;
    cdf2) echo "64-bit offset" ;;
    cdf5) echo cdf5 ;;
    *) echo "netCDF-4 classic model" ;;
    esac
}

# convert IN LAYOUT OUT REFERENCE_DUMP: copy, then compare with netCDF-C
convert() {
    ncopies=$((ncopies + 1))
    # shellcheck disable=SC2046
    if ! "$copy" -q --verify -m 1M $(opts "$2") "$1" "$3" 2>"$3.err"; then
        fail "ncslab-copy $(opts "$2") $1: $(cat "$3.err")"
        return
    fi
    kind=$(ncdump -k "$3")
    [ "$kind" = "$(kind_of "$2")" ] || fail "$3 is '$kind', want '$(kind_of "$2")'"
    line=$(storage_line "$2")
    if [ -n "$line" ] && ! ncdump -s -h "$3" | grep -qF "$line"; then
        fail "$3: ncdump -s -h does not show '$line'"
    fi
    if [ "$2" = nc4z ]; then
        ncdump -h "$3" | sed 1d >"$3.cdl"
        sed 1d "$4.h" >"$3.want"
        ncdump -s -h "$3" | grep -q '_Filter = "32015,3"' ||
            fail "$3: no zstd filter in ncdump -s -h"
    else
        ncdump "$3" | sed 1d >"$3.cdl"
        sed 1d "$4" >"$3.want"
    fi
    cmp -s "$3.cdl" "$3.want" || {
        fail "ncdump of $3 (from $1, $(opts "$2")) differs from the original:"
        diff "$3.want" "$3.cdl" | head -n 10
    }
}

# round_trip BASE LAYOUTS...: every layout from BASE, then every pair
round_trip() {
    base=$1
    shift
    ncdump "$tmp/$base.nc" >"$tmp/$base.dump"
    ncdump -h "$tmp/$base.nc" >"$tmp/$base.dump.h"
    for s in "$@"; do
        convert "$tmp/$base.nc" "$s" "$tmp/$base-$s.nc" "$tmp/$base.dump"
    done
    for s in "$@"; do
        for t in "$@"; do
            convert "$tmp/$base-$s.nc" "$t" "$tmp/$base-$s-$t.nc" "$tmp/$base.dump"
        done
    done
}

cdl base 0 >"$tmp/base.cdl"
cdl base5 1 >"$tmp/base5.cdl"
ncgen -k nc3 -o "$tmp/base.nc" "$tmp/base.cdl" || fail "ncgen base"
ncgen -k cdf5 -o "$tmp/base5.nc" "$tmp/base5.cdl" || fail "ncgen base5"
round_trip base $layouts
round_trip base5 cdf5
echo "$ncopies copies compared with netCDF-C's reading"

# the output of an input netCDF-C made chunked and compressed
ncgen -k nc7 -o "$tmp/nc.nc" "$tmp/base.cdl" || fail "ncgen nc7"
convert "$tmp/nc.nc" cdf2 "$tmp/nc-cdf2.nc" "$tmp/base.dump"
convert "$tmp/nc.nc" nc4d "$tmp/nc-nc4d.nc" "$tmp/base.dump"

# the output gets the mode of any new file, not the temporary file's 0600
touch "$tmp/plain"
[ "$(stat -c %a "$tmp/base-cdf5.nc")" = "$(stat -c %a "$tmp/plain")" ] ||
    fail "output mode $(stat -c %a "$tmp/base-cdf5.nc"), want $(stat -c %a "$tmp/plain")"

# ---- failures: message, nonzero status, no output, no temporary file ----
printf 'not a netCDF file\n' >"$tmp/text.nc"
cp "$tmp/base.nc" "$tmp/short.nc"
truncate -s 300000 "$tmp/short.nc"
mkdir "$tmp/bad"
expect_failure() {
    want=$1
    shift
    out=$tmp/bad/out.nc
    "$copy" "$@" "$out" >"$tmp/bad.stdout" 2>"$tmp/bad.stderr"
    rc=$?
    if [ $rc -eq 0 ]; then
        fail "ncslab-copy $* succeeded"
    elif [ $rc -ne "$want" ]; then
        fail "ncslab-copy $*: status $rc, want $want"
    fi
    grep -q '^ncslab-copy: ..*' "$tmp/bad.stderr" ||
        fail "ncslab-copy $*: no message on stderr"
    [ -s "$tmp/bad.stdout" ] && fail "ncslab-copy $*: wrote to stdout"
    left=$(ls -A "$tmp/bad")
    [ -z "$left" ] || fail "ncslab-copy $* left: $left"
    rm -f "$tmp/bad/"*
    echo "ok: fails as it should: ncslab-copy $* ($(head -n 1 "$tmp/bad.stderr"))"
}
expect_failure 2 --no-such-option "$tmp/base.nc"
expect_failure 2 -k cdf-5 "$tmp/base.nc"
expect_failure 2 -k nc4 "$tmp/base.nc"
expect_failure 2 -d 10 "$tmp/base.nc"
expect_failure 2 --zstd 23 "$tmp/base.nc"
expect_failure 2 -d 1 --zstd 1 "$tmp/base.nc"
expect_failure 2 -m 10x "$tmp/base.nc"
expect_failure 2 -m 1000 "$tmp/base.nc"
expect_failure 2 -c time/0 "$tmp/base.nc"
expect_failure 2 -c time/x "$tmp/base.nc"
expect_failure 2 -c big:1,2,q "$tmp/base.nc"
expect_failure 2 -k classic -d 1 "$tmp/base.nc"
expect_failure 2 -k cdf5 -c y/10 "$tmp/base.nc"
expect_failure 1 -k nc7 "$tmp/base5.nc"
"$copy" "$tmp/base.nc" >"$tmp/bad.stdout" 2>"$tmp/bad.stderr" && fail "one file name accepted"
grep -q '^ncslab-copy: want an input and an output' "$tmp/bad.stderr" ||
    fail "one file name: no message"
expect_failure 1 -c nosuchdim/3 "$tmp/base.nc"
expect_failure 1 -c nosuchvar:3 "$tmp/base.nc"
expect_failure 1 -c big:1,2 "$tmp/base.nc"
expect_failure 1 -c band:300,1 "$tmp/base.nc"
expect_failure 1 "$tmp/no-such-file.nc"
# ---- nccopy's chunking rules ------------------------------------------------
# The same -c (and -d, -M) through nccopy and ncslab-copy, from a classic
# input and from a chunked netCDF-4 one: ncdump -s shows the same storage
# and chunk sizes for every variable (dimensions not named keep the
# input's chunk lengths, else take netCDF-C's default ones; fixed-size
# variables with chunks under 8192 bytes are contiguous).
if command -v nccopy >/dev/null 2>&1; then
    cat >"$tmp/rules.cdl" <<'CDL'
netcdf rules {
dimensions: time = UNLIMITED ; lat = 50 ; lon = 70 ; n = 3 ; big = 3000 ;
variables: float temp(time, lat, lon) ; double lat(lat) ; int lon(lon) ;
  char name(time, n) ; short s(lat) ; float fixed(lat, lon) ; byte b(n) ;
  double bigv(big) ; float tser(time) ; float tl(time, lat) ; double scalar ;
data: tser = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;
}
CDL
    ncgen -k nc3 -o "$tmp/rules3.nc" "$tmp/rules.cdl" || fail "ncgen rules"
    nccopy -k nc7 -c time/2,lat/5,lon/7,n/1,big/1500 "$tmp/rules3.nc" "$tmp/rules4.nc" ||
        fail "nccopy rules4"
    nrules=0
    for src in rules3 rules4; do
        for spec in "-c lat/2" "-c time/3" "-c lon/7,lat/5" "-c n/1" "-c big/100" \
                    "-c lat/" "-c time/" "-c lat/50,lon/70" "-c time/1,lat/50" "" \
                    "-d 1" "-d 1 -c lat/2" "-c fixed:2,7" "-c fixed:50,70" "-c tl:3,10" \
                    "-c temp:" "-M 0 -c lat/2" "-M 100000 -c lat/2"; do
            rm -f "$tmp/r_n.nc" "$tmp/r_s.nc"
            # shellcheck disable=SC2086
            nccopy -k nc7 $spec "$tmp/$src.nc" "$tmp/r_n.nc" || { fail "nccopy $spec"; continue; }
            # shellcheck disable=SC2086
            "$copy" -q -k nc7 $spec "$tmp/$src.nc" "$tmp/r_s.nc" ||
                { fail "ncslab-copy $spec"; continue; }
            ncdump -s -h "$tmp/r_n.nc" | grep -E '_Storage|_ChunkSizes' >"$tmp/r_n.txt"
            ncdump -s -h "$tmp/r_s.nc" | grep -E '_Storage|_ChunkSizes' >"$tmp/r_s.txt"
            grep -q _ChunkSizes "$tmp/r_n.txt" || fail "nccopy $spec $src: no chunks at all"
            if ! cmp -s "$tmp/r_n.txt" "$tmp/r_s.txt"; then
                fail "-k nc7 $spec from $src: storage differs from nccopy's:"
                diff "$tmp/r_n.txt" "$tmp/r_s.txt" | head -n 10
            fi
            nrules=$((nrules + 1))
        done
    done
    echo "ok: $nrules -c specifications chunk as nccopy's do"
else
    echo "nccopy not installed: the chunking rules are not compared"
fi

expect_failure 1 "$tmp/text.nc"
expect_failure 1 "$tmp/bad"
expect_failure 1 -k classic "$tmp/base5.nc"
expect_failure 1 "$tmp/short.nc"
expect_failure 1 -k nc7 "$tmp/short.nc"
"$copy" "$tmp/base.nc" "$tmp/no-such-dir/out.nc" 2>"$tmp/bad.stderr" &&
    fail "copy into a missing directory succeeded"
grep -q '^ncslab-copy: ' "$tmp/bad.stderr" || fail "missing directory: no message"

# a failed copy leaves an existing output as it was
printf 'keep me\n' >"$tmp/bad/keep.nc"
"$copy" "$tmp/short.nc" "$tmp/bad/keep.nc" 2>/dev/null && fail "truncated input copied"
[ "$(cat "$tmp/bad/keep.nc")" = "keep me" ] || fail "a failed copy changed the existing output"
[ "$(ls -A "$tmp/bad")" = keep.nc ] || fail "a failed copy left: $(ls -A "$tmp/bad")"

# interrupted: the signal comes once the temporary file exists, while the
# copy (0.6 s here) is under way; neither it nor an output may remain.
# A background job ignores SIGINT (and so does ncslab-copy then), so SIGINT
# comes from timeout(1), at a time that is, on this machine, mid-copy.
printf 'netcdf f { dimensions: y = 3200 ; x = 4000 ; variables: float v(y, x) ; }' \
    >"$tmp/fill.cdl"
ncgen -k nc3 -o "$tmp/fill.nc" "$tmp/fill.cdl" || fail "ncgen fill"
mkdir "$tmp/int"
for sig in TERM HUP; do
    "$copy" -q -d 9 -m 1M --verify "$tmp/fill.nc" "$tmp/int/out.nc" 2>/dev/null &
    pid=$!
    n=0
    while [ -z "$(ls -A "$tmp/int")" ] && [ $n -lt 1000 ]; do
        sleep 0.01
        n=$((n + 1))
    done
    kill -s $sig $pid
    wait $pid
    rc=$?
    if [ $rc -eq 0 ]; then
        echo "note: the copy finished before SIG$sig arrived"
        rm -f "$tmp/int/"*
        continue
    fi
    left=$(ls -A "$tmp/int")
    if [ $rc -le 128 ]; then
        fail "SIG$sig: exit status $rc, not death by the signal"
    elif [ -n "$left" ]; then
        fail "SIG$sig left $left"
        rm -f "$tmp/int/"*
    else
        echo "ok: SIG$sig during the copy (status $rc) left no file"
    fi
done
timeout -s INT 0.2 "$copy" -q -d 9 -m 1M --verify "$tmp/fill.nc" "$tmp/int/out.nc" 2>/dev/null
rc=$?
left=$(ls -A "$tmp/int")
if [ $rc -eq 0 ]; then
    echo "note: the copy finished before SIGINT arrived"
elif [ -n "$left" ]; then
    fail "SIGINT left $left"
else
    echo "ok: SIGINT during the copy (timeout status $rc) left no file"
fi

if [ $status -eq 0 ]; then
    rm -rf "$tmp"
else
    echo "files kept in $tmp"
fi
exit $status
