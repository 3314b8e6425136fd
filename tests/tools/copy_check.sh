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
    nc4c) echo "-k nc7 -c / -F none" ;;
    nc4k) echo "-k nc7 -c time/1,y/64,x/50 -c band:7,2 -M 0 -d 0 --zstd 0" ;;
    nc4d) echo "-7 -d 1 -s -c y/30,x/250" ;;
    nc4z) echo "-k nc7 --zstd 3 --fletcher32 -c big:2,16,125" ;;
    nc4b) echo "-k nc7 -c time/3,y/200,x/250 -d 0 --zstd 0" ;;
    nc4e) echo "-k nc4 -d 2 -s" ;;
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
    nc4e) echo "netCDF-4" ;;
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
# netCDF-4 without the classic model's mark (-k nc4), and back
convert "$tmp/base.nc" nc4e "$tmp/base-nc4e.nc" "$tmp/base.dump"
convert "$tmp/base-nc4e.nc" cdf1 "$tmp/base-nc4e-cdf1.nc" "$tmp/base.dump"
convert "$tmp/base-nc4e.nc" nc4z "$tmp/base-nc4e-nc4z.nc" "$tmp/base.dump"
"$copy" -q "$tmp/base-nc4e.nc" "$tmp/nc4e-same.nc" || fail "copy of a netCDF-4 file"
[ "$(ncdump -k "$tmp/nc4e-same.nc")" = "netCDF-4" ] ||
    fail "a netCDF-4 input's copy is $(ncdump -k "$tmp/nc4e-same.nc"), not netCDF-4"

# the output gets the mode of any new file, not the temporary file's 0600
touch "$tmp/plain"
[ "$(stat -c %a "$tmp/base-cdf5.nc")" = "$(stat -c %a "$tmp/plain")" ] ||
    fail "output mode $(stat -c %a "$tmp/base-cdf5.nc"), want $(stat -c %a "$tmp/plain")"

# the temporary output is created, never opened with O_TRUNC: ext4 starts
# the write-back of a whole file rewritten after a truncation to empty when
# it is closed (auto_da_alloc), so the copy would wait for the disk there
if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null; then
    for o in "-k nc5" "-k nc7 -c y/200"; do
        rm -f "$tmp/tr.nc"
        # LeakSanitizer cannot run under ptrace (an ASan build): no leak
        # check here; the runs above have it
        # shellcheck disable=SC2086
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
            strace -f -e trace=open,openat,creat,truncate,ftruncate -o "$tmp/strace.txt" \
            "$copy" -q $o "$tmp/base.nc" "$tmp/tr.nc" || fail "ncslab-copy $o under strace"
        grep -F 'tr.nc.ncslab-copy.' "$tmp/strace.txt" >"$tmp/strace.tmp"
        grep -q 'O_CREAT|O_EXCL' "$tmp/strace.tmp" ||
            fail "$o: the temporary output is not created with O_EXCL: $(cat "$tmp/strace.tmp")"
        grep -q 'O_TRUNC' "$tmp/strace.tmp" &&
            fail "$o: the temporary output is opened with O_TRUNC: $(cat "$tmp/strace.tmp")"
        grep -Eq 'ftruncate\([0-9]+, 0\)' "$tmp/strace.txt" &&
            fail "$o: a file is truncated to empty: $(grep ftruncate "$tmp/strace.txt")"
    done
    [ -s "$tmp/tr.nc" ] || fail "no output under strace"
else
    echo "strace not usable: the temporary file's creation is not checked"
fi

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
expect_failure 1 -k nc4 "$tmp/base5.nc"
expect_failure 2 -c big:compact "$tmp/base.nc"
expect_failure 2 -F 32015,3 "$tmp/base.nc"
expect_failure 2 -F none -d 1 "$tmp/base.nc"
expect_failure 2 -F none --fletcher32 "$tmp/base.nc"
expect_failure 2 -h 10x "$tmp/base.nc"
expect_failure 2 -e many "$tmp/base.nc"
"$copy" "$tmp/base.nc" >"$tmp/bad.stdout" 2>"$tmp/bad.stderr" && fail "one file name accepted"
grep -q '^ncslab-copy: want an input and an output' "$tmp/bad.stderr" ||
    fail "one file name: no message"
expect_failure 1 -c nosuchdim/3 "$tmp/base.nc"
expect_failure 1 -c nosuchvar:3 "$tmp/base.nc"
expect_failure 1 -c big:1,2 "$tmp/base.nc"
expect_failure 1 -c band:300,1 "$tmp/base.nc"
expect_failure 1 "$tmp/no-such-file.nc"
# ---- nccopy's rules ---------------------------------------------------------
# The same options through nccopy and ncslab-copy: ncdump -s -h of the two
# outputs must be equal but for the first line and _NCProperties (storage,
# chunk sizes, filters, fill, the format).  Inputs: classic ones, one that
# nccopy chunked, and ones ncgen wrote with deflate, shuffle and Fletcher-32
# (ncgen's special attributes), each with and without a record dimension,
# and one whose record dimension has no records yet.  The rules: dimensions
# not named keep the input's chunk lengths, else take netCDF-C's default
# ones; fixed-size variables with chunks under 8192 bytes (-M) are
# contiguous; -s counts only with -d 1-9; -d and a var: specification
# together chunk the variable; only the last dim/len list counts; -F none
# removes every filter; -u makes the record dimension fixed-size.
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
    # filters as netCDF-C writes them, from ncgen's special attributes
    sed -e 's/float temp(time, lat, lon) ;/& temp:_ChunkSizes = 2, 5, 7 ; temp:_DeflateLevel = 2 ; temp:_Shuffle = "true" ;/' \
        -e 's/int lon(lon) ;/& lon:_Fletcher32 = "true" ;/' \
        -e 's/float fixed(lat, lon) ;/& fixed:_ChunkSizes = 25, 70 ; fixed:_Fletcher32 = "true" ; fixed:_DeflateLevel = 1 ;/' \
        -e 's/double bigv(big) ;/& bigv:_ChunkSizes = 1500 ;/' \
        -e 's/float tl(time, lat) ;/& tl:_Fletcher32 = "true" ;/' "$tmp/rules.cdl" >"$tmp/rulesf.cdl"
    # without the record dimension (nccopy cannot do -c / with one)
    cat >"$tmp/fixed.cdl" <<'CDL'
netcdf fixed {
dimensions: lat = 50 ; lon = 70 ; n = 3 ; big = 3000 ;
variables: double lat(lat) ; int lon(lon) ; short s(lat) ; float fixed(lat, lon) ;
  byte b(n) ; double bigv(big) ; double scalar ;
}
CDL
    sed -e 's/int lon(lon) ;/& lon:_Fletcher32 = "true" ;/' \
        -e 's/float fixed(lat, lon) ;/& fixed:_ChunkSizes = 25, 70 ; fixed:_Fletcher32 = "true" ; fixed:_DeflateLevel = 1 ;/' \
        -e 's/double bigv(big) ;/& bigv:_ChunkSizes = 1500 ; bigv:_DeflateLevel = 3 ; bigv:_Shuffle = "true" ;/' \
        "$tmp/fixed.cdl" >"$tmp/fixedf.cdl"
    printf 'netcdf z { dimensions: time = UNLIMITED ; x = 3000 ;\nvariables: float v(time, x) ; double w(x) ; float t(time) ; }' \
        >"$tmp/empty.cdl"
    ncgen -k nc3 -o "$tmp/rules3.nc" "$tmp/rules.cdl" || fail "ncgen rules"
    ncgen -k nc7 -o "$tmp/rulesf.nc" "$tmp/rulesf.cdl" || fail "ncgen rulesf"
    ncgen -k nc3 -o "$tmp/fixed3.nc" "$tmp/fixed.cdl" || fail "ncgen fixed"
    ncgen -k nc7 -o "$tmp/fixedf.nc" "$tmp/fixedf.cdl" || fail "ncgen fixedf"
    ncgen -k nc3 -o "$tmp/empty3.nc" "$tmp/empty.cdl" || fail "ncgen empty"
    nccopy -k nc7 -c time/2,lat/5,lon/7,n/1,big/1500 "$tmp/rules3.nc" "$tmp/rules4.nc" ||
        fail "nccopy rules4"
    nccopy -k nc4 "$tmp/rulesf.nc" "$tmp/rulese.nc" || fail "nccopy rulese"
    ncdump -s -h "$tmp/rulesf.nc" | grep -q 'fixed:_Fletcher32 = "true"' ||
        fail "ncgen wrote no Fletcher-32 into rulesf.nc"
    ncdump -s -h "$tmp/fixedf.nc" | grep -q 'bigv:_ChunkSizes = 1500' ||
        fail "fixedf.nc lost its chunks: $(cat "$tmp/fixedf.cdl")"
    ncdump -h "$tmp/fixed3.nc" | grep -q 'time' && fail "fixed3.nc has a time dimension"
    nrules=0
    # same_as_nccopy INPUT OPTIONS...
    same_as_nccopy() {
        src=$1
        shift
        rm -f "$tmp/r_n.nc" "$tmp/r_s.nc"
        nccopy "$@" "$tmp/$src.nc" "$tmp/r_n.nc" || { fail "nccopy $* $src"; return; }
        "$copy" -q "$@" "$tmp/$src.nc" "$tmp/r_s.nc" 2>"$tmp/r_s.err" ||
            { fail "ncslab-copy $* $src: $(cat "$tmp/r_s.err")"; return; }
        # the header with its special attributes (_Format names the kind);
        # netCDF-C 4.9.0's ncdump -s fails on CDF-5 files: -k and -h then
        if ncdump -s -h "$tmp/r_n.nc" >"$tmp/r_n.h" 2>/dev/null; then
            sed 1d "$tmp/r_n.h" | grep -v _NCProperties >"$tmp/r_n.txt"
            ncdump -s -h "$tmp/r_s.nc" 2>&1 | sed 1d | grep -v _NCProperties >"$tmp/r_s.txt"
            grep -q '_Format = ' "$tmp/r_n.txt" ||
                fail "nccopy $* $src: no _Format in ncdump -s"
        else
            { ncdump -k "$tmp/r_n.nc"; ncdump -h "$tmp/r_n.nc" | sed 1d; } >"$tmp/r_n.txt"
            { ncdump -k "$tmp/r_s.nc"; ncdump -h "$tmp/r_s.nc" | sed 1d; } >"$tmp/r_s.txt"
        fi
        if ! cmp -s "$tmp/r_n.txt" "$tmp/r_s.txt"; then
            fail "$* from $src: ncdump -s -h differs from nccopy's:"
            diff "$tmp/r_n.txt" "$tmp/r_s.txt" | head -n 10
        fi
        nrules=$((nrules + 1))
    }
    for src in rules3 rules4 rulesf fixed3 fixedf; do
        for spec in "-c lat/2" "-c lon/7,lat/5" "-c n/1" "-c big/100" "-c lat/" \
                    "-c lat/50,lon/70" "" "-d 1" "-d 1 -c lat/2" "-c fixed:2,7" \
                    "-c fixed:50,70" "-c fixed:" "-c fixed:contiguous" \
                    "-c fixed:CONTIGUOUS" "-M 0 -c lat/2" "-M 100000 -c lat/2" \
                    "-M 0" "-M 0 -d 1" "-M 100000 -d 1" "-s" "-s -d 1" "-s -d 0" \
                    "-d 0" "-c fixed: -d 1" "-c fixed:contiguous -d 1" \
                    "-c fixed:2,7 -d 1" "-c fixed:1,1 -d 1" "-d 9 -s -c fixed:" \
                    "-c bigv:" "-c bigv: -d 1" "-c fixed:50,70 -c fixed:5,5" \
                    "-c lat/5 -c lon/7" "-c lon/7 -c lat/" "-F none" "-F none -c lat/5" \
                    "-F *,none -c fixed:" "-u" "-u -c lat/5" "-u -d 1" "-h 10M -e 100" \
                    "-k nc6" "-3 -u" "-k nc4" "-4 -d 1 -s" "-k nc4 -c lat/5 -F none"; do
            # shellcheck disable=SC2086
            same_as_nccopy $src -k nc7 $spec
        done
        same_as_nccopy "$src" -s
        same_as_nccopy "$src" -c lat/5
        same_as_nccopy "$src" -k cdf5
    done
    for spec in "" "-d 1" "-k nc7" "-c lat/5" "-s"; do
        # shellcheck disable=SC2086
        same_as_nccopy rulese $spec
    done
    for src in rules3 rules4 rulesf; do
        for spec in "-c time/3" "-c time/" "-c time/1,lat/50" "-c tl:3,10" "-c temp:" \
                    "-c temp:contiguous" "-c temp:3,10,10 -d 1" "-c tl:1,50 -d 2" \
                    "-c tser:5" "-c time/5 -c lat/5" "-c time/ -d 1" "-c tl: -d 1"; do
            # shellcheck disable=SC2086
            same_as_nccopy $src -k nc7 $spec
        done
    done
    for src in fixed3 fixedf; do
        for spec in "-c /" "-c //" "-c / -d 1" "-c / -d 0" "-c / -c fixed:50,70" \
                    "-c / -c bigv:1500" "-c lat/5 -c /" "-c / -c lat/5"; do
            # shellcheck disable=SC2086
            same_as_nccopy $src -k nc7 $spec
        done
    done
    for spec in "" "-c x/100" "-d 1 -s" "-c w:1500" "-c w: -d 2"; do
        # shellcheck disable=SC2086
        same_as_nccopy empty3 -k nc7 $spec
    done
    echo "ok: $nrules option sets give the output nccopy gives"

    # -s without -d changes nothing (a note says so), yet it makes a
    # classic input's copy netCDF-4, as nccopy's does
    "$copy" -q -s "$tmp/rules3.nc" "$tmp/r_s.nc" 2>"$tmp/r_s.err" || fail "-s alone"
    grep -q 'note: -s' "$tmp/r_s.err" || fail "-s alone: no note"
    [ "$(ncdump -k "$tmp/r_s.nc")" = "netCDF-4 classic model" ] || fail "-s alone: not netCDF-4"
    ncdump -s -h "$tmp/r_s.nc" | grep -q _Shuffle && fail "-s alone shuffled"
    # a replaced dim/len list is said to be replaced
    "$copy" -q -c lat/5 -c lon/7 "$tmp/rules3.nc" "$tmp/r_s.nc" 2>"$tmp/r_s.err" ||
        fail "-c lat/5 -c lon/7"
    grep -q 'note: -c lon/7 replaces the earlier -c lat/5' "$tmp/r_s.err" ||
        fail "-c lat/5 -c lon/7: no note: $(cat "$tmp/r_s.err")"

    # Where nccopy fails and ncslab-copy does not (doc/chunking.md):
    # -c / with a record variable: netCDF-C's "Invalid argument"; here the
    # record variables take the library's default chunks, the rest is
    # contiguous, as nccopy -k nc7 makes of the classic input
    nccopy -k nc7 -c / "$tmp/rules3.nc" "$tmp/r_n.nc" 2>/dev/null &&
        echo "note: this nccopy copies -c / with record variables; doc/chunking.md is out of date"
    nccopy -k nc7 "$tmp/rules3.nc" "$tmp/r_n.nc" || fail "nccopy -k nc7 rules3"
    for src in rules3 rules4 rulesf; do
        "$copy" -q -k nc7 -c / -F none "$tmp/$src.nc" "$tmp/r_s.nc" || fail "-c / -F none $src"
        ncdump -s -h "$tmp/r_n.nc" | sed 1d | grep -v _NCProperties >"$tmp/r_n.txt"
        ncdump -s -h "$tmp/r_s.nc" | sed 1d | grep -v _NCProperties >"$tmp/r_s.txt"
        cmp -s "$tmp/r_n.txt" "$tmp/r_s.txt" || {
            fail "-c / -F none from $src is not what nccopy -k nc7 makes of the classic file:"
            diff "$tmp/r_n.txt" "$tmp/r_s.txt" | head -n 10
        }
    done
    # -c / keeps the input's filters (chunked in the library's default
    # shape), as nccopy does for fixed-size variables
    "$copy" -q -c / "$tmp/rulesf.nc" "$tmp/r_s.nc" || fail "-c / rulesf"
    ncdump -s -h "$tmp/r_s.nc" >"$tmp/r_s.txt"
    for line in 'temp:_ChunkSizes = 1, 50, 70' 'temp:_DeflateLevel = 2' \
                'fixed:_ChunkSizes = 50, 70' 'fixed:_Fletcher32 = "true"' \
                'bigv:_Storage = "contiguous"' 'tl:_Fletcher32 = "true"'; do
        grep -qF "$line" "$tmp/r_s.txt" || fail "-c / rulesf: no '$line'"
    done
    # a chunk longer than the records so far (nccopy: "Bad chunk sizes"),
    # a dim/len longer than a fixed dimension (cut to it; nccopy fails)
    "$copy" -q -c tser:20 -c lat/100 "$tmp/rules3.nc" "$tmp/r_s.nc" || fail "-c tser:20 -c lat/100"
    ncdump -s -h "$tmp/r_s.nc" | grep -qF 'tser:_ChunkSizes = 20 ;' || fail "-c tser:20"
    ncdump -s -h "$tmp/r_s.nc" | grep -qF 'tl:_ChunkSizes = 1, 50 ;' || fail "-c lat/100"
else
    echo "nccopy not installed: the chunking rules are not compared"
fi

# -d (any level) removes a Zstandard input's filter, keeps Fletcher-32
"$copy" -q -d 0 "$tmp/base-nc4z.nc" "$tmp/nozstd.nc" || fail "-d 0 from zstd"
ncdump -s -h "$tmp/nozstd.nc" | grep -q '_Filter' && fail "-d 0 kept Zstandard"
ncdump -s -h "$tmp/nozstd.nc" | grep -q 'big:_Fletcher32 = "true"' || fail "-d 0 dropped Fletcher-32"
ncdump "$tmp/nozstd.nc" | sed 1d >"$tmp/nozstd.cdl"
sed 1d "$tmp/base.dump" | cmp -s - "$tmp/nozstd.cdl" || fail "-d 0 from zstd: values"
"$copy" -q -F none "$tmp/base-nc4z.nc" "$tmp/nofilter.nc" || fail "-F none from zstd"
ncdump -s -h "$tmp/nofilter.nc" | grep -qE '_Filter|_Fletcher32' && fail "-F none kept a filter"

# a record dimension without records, into every layout and back
ncgen -k nc3 -o "$tmp/empty.nc" - <<'CDL' || fail "ncgen empty"
netcdf empty { dimensions: time = UNLIMITED ; x = 3000 ;
variables: float v(time, x) ; v:units = "m" ; double w(x) ; float t(time) ;
data: w = 1, 2, 3 ; }
CDL
ncdump "$tmp/empty.nc" | sed 1d >"$tmp/empty.want"
n=0
for o in "-k classic" "-k nc6" "-5" "-k nc7" "-c time/4,x/100" "-d 1 -s" \
         "--zstd 3 --fletcher32" "-k nc7 -c / -F none" "-u -k nc7"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    "$copy" -q --verify -m 1M $o "$tmp/empty.nc" "$tmp/empty-$n.nc" 2>"$tmp/empty.err" ||
        { fail "no records, $o: $(cat "$tmp/empty.err")"; continue; }
    "$copy" -q --verify -k classic "$tmp/empty-$n.nc" "$tmp/empty-$n-1.nc" ||
        fail "no records, $o, back to CDF-1"
    ncdump "$tmp/empty-$n-1.nc" | sed 1d >"$tmp/empty.got"
    cmp -s "$tmp/empty.want" "$tmp/empty.got" || fail "no records, $o: ncdump differs"
    case $o in --zstd*) ;; *)
        ncdump "$tmp/empty-$n.nc" | sed 1d >"$tmp/empty.got"
        cmp -s "$tmp/empty.want" "$tmp/empty.got" || fail "no records, $o: ncdump differs" ;;
    esac
done
echo "ok: a record dimension without records, $n ways"

# nccopy's -h (chunk cache size) copies; -h alone is the usage; -u
"$copy" -q -h 4M -e 10 "$tmp/base.nc" "$tmp/h.nc" || fail "-h 4M -e 10"
[ -s "$tmp/h.nc" ] || fail "-h 4M: no output"
"$copy" -h | grep -q '^usage: ncslab-copy' || fail "-h alone: no usage"
"$copy" -q -u --verify "$tmp/base.nc" "$tmp/u.nc" || fail "-u"
ncdump -h "$tmp/u.nc" | grep -q 'time = 3 ;' || fail "-u: time is not a fixed dimension of 3"

expect_failure 1 "$tmp/text.nc"
expect_failure 1 "$tmp/bad"
expect_failure 1 -k classic "$tmp/base5.nc"
expect_failure 1 "$tmp/short.nc"
expect_failure 1 -k nc7 "$tmp/short.nc"
"$copy" "$tmp/base.nc" "$tmp/no-such-dir/out.nc" 2>"$tmp/bad.stderr" &&
    fail "copy into a missing directory succeeded"
grep -q '^ncslab-copy: ' "$tmp/bad.stderr" || fail "missing directory: no message"

# a write error fails the copy with its message and status 1 and leaves no
# file: the file size limit, with SIGXFSZ ignored, makes write(2) fail with
# EFBIG (a netCDF-4 output's close after it crashed the program in HDF5's
# exit handler)
mkdir "$tmp/fsz"
for o in "-k nc5" "-k nc7" "-k nc7 -d 1 -s"; do
    # shellcheck disable=SC2086
    (trap '' XFSZ; ulimit -f 40 && exec "$copy" -q $o "$tmp/base.nc" "$tmp/fsz/out.nc") \
        >"$tmp/fsz.out" 2>&1
    rc=$?
    [ $rc -eq 1 ] || fail "$o, a write error: status $rc, want 1: $(cat "$tmp/fsz.out")"
    grep -Eq "^ncslab-copy: .*(File too large|HDF error)" "$tmp/fsz.out" ||
        fail "$o, a write error: no message: $(cat "$tmp/fsz.out")"
    [ -z "$(ls -A "$tmp/fsz")" ] || fail "$o, a write error left: $(ls -A "$tmp/fsz")"
    rm -f "$tmp/fsz/"*
done

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
