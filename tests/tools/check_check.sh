#!/bin/sh
# tests/tools/check_check.sh -- ncslab-check (programs/check) on bad and
# good files.
#
#   - every file of the corrupt corpus (tests/corrupt/files/MANIFEST) whose
#     expected ncs_open result is an error, or @read, is found defective
#     (status 1, an error line that names a byte offset or a variable,
#     but for the few faults that have neither), in 256 MiB of address
#     space; the good entries pass (status 0, with -s only where nothing
#     was tolerated), and a few diagnoses are checked to the byte;
#   - where PnetCDF's ncvalidator is installed, every corpus file it
#     rejects, ncslab-check -s rejects too;
#   - good files pass with -s: every layout written by ncslab-copy and,
#     where netcdf-bin is installed, ncgen's files of every classic-model
#     kind and nccopy's deflated, chunked and CDF-5 copies; a _FillValue
#     of another type than its variable's is a warning (a defect with -s);
#     a netCDF-4 file with a group cannot be checked (status 2);
#   - a leftover redefinition journal beside a good file, complete or cut
#     short, is an error, and neither file is changed;
#   - a netCDF-4 file with bytes changed inside a deflated chunk, and one
#     inside a Fletcher-32 chunk, is reported with the variable's name and
#     the chunk's index, the other variables passing (needs ncgen and
#     h5ls, which gives the chunks' addresses);
#   - chunk index entries changed (tests/tools/badchunk: an address past
#     the end, a size its filters cannot give, a filter mask of filters the
#     pipeline lacks, a chunk outside the extent, two chunks on the same
#     bytes) and filter ids changed (a plugin's, an unknown one) are
#     reported with the variable and the chunk (needs ncgen);
#   - 40 mutations each of a classic and a netCDF-4 file end in a verdict,
#     status 0 or 1, never a crash; a crash inside the library
#     (tests/tools/crashget.c preloaded) is reported as a defect of that
#     file and the next file is checked;
#   - -q prints nothing; bad options, no file, a missing file and a
#     directory give a message and status 2, which wins over 1.
# Run by `make check` from the top build directory; automake's test harness
# exports srcdir.
set -u

top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
check=$top_builddir/programs/check/ncslab-check
copy=$top_builddir/programs/copy/ncslab-copy
corpus=$srcdir/tests/corrupt/files
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_check.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0

fail() {
    echo "FAIL: $*"
    status=1
}

have() {
    command -v "$1" >/dev/null 2>&1
}

# run ARGS...: the checker's stdout+stderr in $out, its status in $rc
run() {
    out=$("$check" "$@" 2>&1)
    rc=$?
}

# ---- the corrupt corpus --------------------------------------------------
# Faults that have no one offset and concern no one variable.
nowhere="hdf5_sig.nc cdf1_var_too_big.nc cdf2_var_too_big.nc"
# The address-space limit shows that no header makes the checker allocate
# what the file does not hold; sanitizer builds reserve terabytes for their
# shadow memory and cannot run under it.
limit=262144
probe=$( (ulimit -v $limit && exec "$check" --version) 2>&1) || limit=unlimited
[ "$limit" = unlimited ] && echo "the checker does not run in 256 MiB of address space: unlimited"
nbad=0 ngood=0
while read -r name expected rest; do
    case $name in ''|'#'*) continue ;; esac
    f=$corpus/$name
    if [ ! -f "$f" ]; then
        fail "$name is in the MANIFEST but not in $corpus"
        continue
    fi
    out=$( (ulimit -v $limit; "$check" "$f") 2>&1)
    rc=$?
    case $out in *"out of memory"*) fail "$name: $out" ;; esac
    case "|$expected|" in
    "|NC_NOERR|")
        ngood=$((ngood + 1))
        [ "$rc" -eq 0 ] || fail "$name (good) gave status $rc: $out"
        ;;
    *"|NC_NOERR|"*)
        # either verdict is right; a crash or "cannot check" is not
        [ "$rc" -le 1 ] || fail "$name gave status $rc: $out"
        ;;
    *)
        nbad=$((nbad + 1))
        if [ "$rc" -ne 1 ]; then
            fail "$name (expected $expected) gave status $rc: $out"
            continue
        fi
        case $out in
        *": error at byte "[0-9]*|*": error: variable \""*|*": error: record variable \""*) ;;
        *)
            case " $nowhere " in
            *" $name "*) ;;
            *) fail "$name: the error names no offset and no variable: $out" ;;
            esac
            ;;
        esac
        ;;
    esac
done <"$corpus/MANIFEST"
[ "$nbad" -ge 100 ] || fail "only $nbad bad files found in the MANIFEST"
[ "$ngood" -ge 7 ] || fail "only $ngood good files found in the MANIFEST"
echo "corpus: $nbad bad files found defective, $ngood good ones passed"

# expect FILE PATTERN: the checker's output for a corpus file has PATTERN
expect() {
    run "$corpus/$1"
    case $out in
    *"$2"*) ;;
    *) fail "$1: expected \"$2\" in: $out" ;;
    esac
}
expect magic_wrong.nc "error at byte 0: magic"
expect version3.nc "error at byte 3: magic: version byte 3"
expect begin_in_header.nc 'error at byte 8: variable "xv": begin 8 lies inside the header'
expect dup_dim.nc 'dimension "x": a second dimension of this name'
expect dimid_out_of_range.nc 'variable "grid": dimension id 7'
expect trunc_record_data.nc 'variable "rec2": from start [1] count [1] on, the data lie past the end of the file (444 bytes)'
expect pad_nonzero_name.nc 'warning at byte 33: dimension 1: the padding of the name "x" holds non-zero bytes'
expect vsize_wrong.nc 'variable "grid": vsize 4, where the shape gives 24'
expect valid_trailing_bytes.nc "16 bytes after the end of the data"
run -s "$corpus/pad_nonzero_att.nc"
[ "$rc" -eq 1 ] || fail "-s: a warning did not make pad_nonzero_att.nc defective ($rc)"
run -s "$corpus/valid_cdf2.nc"
[ "$rc" -eq 0 ] || fail "-s: valid_cdf2.nc gave $rc: $out"

# ---- PnetCDF's ncvalidator on the corpus ----------------------------------
if have ncvalidator; then
    to=
    have timeout && to="timeout 10"
    nval=0
    for f in "$corpus"/*.nc; do
        # ncvalidator allocates what a corrupt header claims (2 GB and
        # more, touched, seconds each): bounded, it says no at once
        (ulimit -v 1048576 2>/dev/null; $to ncvalidator -q "$f") >/dev/null 2>&1
        vrc=$?
        # 0: valid; 124: timed out (it loops on some files); others reject
        [ "$vrc" -eq 0 ] || [ "$vrc" -eq 124 ] && continue
        nval=$((nval + 1))
        run -q -s "$f"
        [ "$rc" -eq 1 ] || fail "ncvalidator rejects $(basename "$f"), ncslab-check -s gives $rc"
    done
    [ "$nval" -ge 50 ] || fail "ncvalidator rejected only $nval corpus files"
    echo "ncvalidator: every one of the $nval corpus files it rejects is rejected"
else
    echo "ncvalidator (pnetcdf-bin) not installed: comparison skipped"
fi

# ---- good files ------------------------------------------------------------
good() {
    run -s "$1"
    if [ "$rc" -ne 0 ]; then
        fail "$2 ($(basename "$1")) gave status $rc: $out"
    fi
}
for src in valid_cdf1.nc valid_cdf5.nc; do
    base=${src%.nc}
    set -- "nc3" "nc6" "nc7" "nc7 -d 1 -s" "nc7 --zstd 3 --fletcher32" \
        "nc7 -c /" "nc5"
    [ "$src" = valid_cdf5.nc ] && set -- "nc5" "nc7"
    i=0
    for k in "$@"; do
        i=$((i + 1))
        o=$tmp/${base}_$i.nc
        # shellcheck disable=SC2086
        if "$copy" -q -k $k "$corpus/$src" "$o" >"$tmp/copy.err" 2>&1; then
            good "$o" "ncslab-copy -k $k of $src"
        elif [ "$src" = valid_cdf1.nc ] || [ "$k" = nc5 ]; then
            fail "ncslab-copy -k $k $src: $(cat "$tmp/copy.err")"
        fi
    done
done
if have ncgen; then
    awk 'BEGIN {
        print "netcdf g {\ndimensions:\n\ttime = UNLIMITED ; lat = 5 ; lon = 7 ; n = 3 ;"
        print "variables:\n\tfloat temp(time, lat, lon) ; temp:units = \"K\" ;"
        print "\ttemp:_FillValue = -999.f ;\n\tdouble lat(lat) ; int lon(lon) ;"
        print "\tchar name(time, n) ; short s(lat) ; byte b(n) ; b:flags = 1b, 2b, 4b ;"
        print "\tdouble scalar ;\n\t:title = \"check\" ; :version = 1, 2, 3 ;\ndata:"
        printf "\ttemp ="
        for (i = 0; i < 70; i++) printf "%s %d.5", i ? "," : "", i
        print " ;\n\tlat = 1, 2, 3, 4, 5 ; lon = 1, 2, 3, 4, 5, 6, 7 ;"
        print "\tname = \"ab\", \"cd\" ; s = 1, 2, 3, 4, 5 ; b = 1, 2, 3 ; scalar = 3.5 ;\n}"
    }' >"$tmp/g.cdl"
    for k in nc3 nc6 nc5 nc7 nc4; do
        if ncgen -k $k -o "$tmp/g_$k.nc" "$tmp/g.cdl"; then
            good "$tmp/g_$k.nc" "ncgen -k $k"
        else
            fail "ncgen -k $k"
        fi
    done
    printf 'netcdf grp {\ndimensions: x = 2 ;\nvariables: int v(x) ;\ngroup: g {\nvariables: int w(x) ;\n}\n}\n' >"$tmp/grp.cdl"
    if ncgen -k nc4 -o "$tmp/grp.nc" "$tmp/grp.cdl"; then
        run "$tmp/grp.nc"
        [ "$rc" -eq 2 ] || fail "a file with groups: status $rc: $out"
        case $out in *"cannot check: a netCDF-4 file outside the classic data model"*) ;;
        *) fail "a file with groups: $out" ;; esac
    else
        fail "ncgen grp.cdl"
    fi
    # a _FillValue of another type: the float attribute's type made int
    printf 'netcdf fv {\ndimensions: x = 2 ;\nvariables: float f(x) ; f:_FillValue = 1.f ;\n}\n' \
        >"$tmp/fv.cdl"
    if ncgen -k nc3 -o "$tmp/fv.nc" "$tmp/fv.cdl" && good "$tmp/fv.nc" "ncgen fv.cdl"; then
        at=$(grep -obUa _FillValue "$tmp/fv.nc" | head -1 | cut -d: -f1)
        printf '\000\000\000\004' | dd of="$tmp/fv.nc" bs=1 seek=$((at + 12)) conv=notrunc 2>/dev/null
        run "$tmp/fv.nc"
        [ "$rc" -eq 0 ] || fail "a _FillValue of the wrong type: status $rc without -s: $out"
        case $out in *'warning: attribute "_FillValue" of variable "f": 1 int value, not one float'*) ;;
        *) fail "a _FillValue of the wrong type: $out" ;; esac
        run -s "$tmp/fv.nc"
        [ "$rc" -eq 1 ] || fail "a _FillValue of the wrong type: status $rc with -s"
    fi
    if have nccopy; then
        nccopy -k nc7 -d 1 -s "$tmp/g_nc3.nc" "$tmp/n_deflate.nc" &&
            good "$tmp/n_deflate.nc" "nccopy -d 1 -s"
        nccopy -k nc7 -c time/1,lat/2,lon/3 "$tmp/g_nc3.nc" "$tmp/n_chunked.nc" &&
            good "$tmp/n_chunked.nc" "nccopy -c"
        nccopy -k nc5 "$tmp/g_nc7.nc" "$tmp/n_cdf5.nc" && good "$tmp/n_cdf5.nc" "nccopy -k nc5"
    fi
    echo "good files of ncslab-copy, ncgen and nccopy checked"
else
    echo "ncgen (netcdf-bin) not installed: netCDF-C's files skipped"
fi

# ---- a truncated netCDF-4 file ----------------------------------------------
# HDF5 opens no file shorter than its superblock's end-of-file address: the
# checker says where the file ends and where it should
for f in "$tmp/valid_cdf1_4.nc" "$tmp/g_nc4.nc"; do
    [ -f "$f" ] || continue
    size=$(wc -c <"$f" | tr -d ' ')
    cut=$((size - 100))
    cp "$f" "$tmp/short4.nc"
    truncate -s $cut "$tmp/short4.nc"
    run "$tmp/short4.nc"
    [ "$rc" -eq 1 ] || fail "a truncated netCDF-4 file ($(basename "$f")): status $rc: $out"
    case $out in
    *"error at byte $cut: the file is truncated: its HDF5 superblock (version "*") says it ends at byte $size, but it has $cut bytes (100 missing)"*) ;;
    *) fail "a truncated netCDF-4 file ($(basename "$f")): $out" ;;
    esac
done

# ---- a leftover journal ----------------------------------------------------
j=$tmp/j.nc
cp "$corpus/valid_cdf1.nc" "$j"
cp "$j" "$tmp/j.orig"
size=$(wc -c <"$j" | tr -d ' ')
# be64 N: eight bytes of N, big-endian, as printf escapes
be64() {
    awk -v n="$1" 'BEGIN { s = ""; for (i = 0; i < 8; i++) { b[i] = n % 256; n = int(n / 256) }
        for (i = 7; i >= 0; i--) s = s sprintf("\\%03o", b[i]); print s }'
}
# a complete journal: one DATA record of the file's first 4 bytes, CRC-32
# as zlib computes it (gzip's trailer holds it, little-endian)
body=$tmp/jbody
{
    printf 'NCSJRNL1'; printf "$(be64 "$size")"
    printf 'DATA'; printf "$(be64 0)"; printf "$(be64 4)"; head -c 4 "$j"
} >"$body"
# crc_be FILE: the CRC-32 of FILE as four big-endian bytes (printf escapes)
crc_be() {
    # shellcheck disable=SC2046
    set -- $(gzip -c <"$1" | tail -c 8 | head -c 4 | od -An -tu1)
    printf '\\%03o\\%03o\\%03o\\%03o' "$4" "$3" "$2" "$1"
}
if have gzip && have od; then
    { cat "$body"; printf "$(crc_be "$body")"; } >"$j-ncsjournal"
    cp "$j-ncsjournal" "$tmp/jj.orig"
    run "$j"
    [ "$rc" -eq 1 ] || fail "complete journal: status $rc: $out"
    case $out in
    *"leftover redefinition journal"*"complete (1 ranges)"*) ;;
    *) fail "complete journal not reported as such: $out" ;;
    esac
    cmp -s "$j" "$tmp/j.orig" || fail "the check changed the data file"
    cmp -s "$j-ncsjournal" "$tmp/jj.orig" || fail "the check changed the journal"
else
    echo "gzip or od missing: the complete journal skipped"
fi
# cut short: the header alone
{ printf 'NCSJRNL1'; printf "$(be64 "$size")"; } >"$j-ncsjournal"
run "$j"
[ "$rc" -eq 1 ] || fail "incomplete journal: status $rc: $out"
case $out in
*"leftover redefinition journal"*"incomplete"*) ;;
*) fail "incomplete journal not reported as such: $out" ;;
esac
[ -f "$j-ncsjournal" ] || fail "the check deleted the journal"
rm -f "$j-ncsjournal"
run -s "$j"
[ "$rc" -eq 0 ] || fail "without the journal the file is good, status $rc: $out"

# ---- corrupted chunks ------------------------------------------------------
# corrupt_chunk FILE VAR INDEX: bytes changed in the middle of the chunk at
# logical offset INDEX ("[1, 0, 0, 0]", as h5ls prints it)
corrupt_chunk() {
    line=$(h5ls -va "$1/$2" 2>/dev/null | grep -F "$3")
    nbytes=$(echo "$line" | awk '{ print $2 }')
    addr=$(echo "$line" | awk '{ print $3 }')
    if [ -z "$addr" ] || [ -z "$nbytes" ]; then
        fail "no address for chunk $3 of $2 in h5ls -va: $(h5ls -va "$1/$2" 2>&1 | tail -5)"
        return 1
    fi
    cp "$1" "$1.orig"
    for pat in '\377\000\377\000\377\000\377\000' '\125\252\125\252\125\252\125\252'; do
        printf "$pat" | dd of="$1" bs=1 seek=$((addr + nbytes / 2)) conv=notrunc 2>/dev/null
        cmp -s "$1" "$1.orig" || return 0
    done
    fail "could not change chunk $3 of $2"
    return 1
}
if have ncgen && have h5ls; then
    awk 'BEGIN {
        print "netcdf big {\ndimensions:\n\ttime = UNLIMITED ; y = 40 ; x = 50 ;"
        print "variables:\n\tfloat field(time, y, x) ;\n\tint other(y, x) ;\ndata:"
        printf "\tfield ="
        for (t = 0; t < 3; t++) for (y = 0; y < 40; y++) for (x = 0; x < 50; x++)
            printf "%s %d", (t + y + x) ? "," : "", t * 10000 + y * 100 + x
        printf " ;\n\tother ="
        for (y = 0; y < 40; y++) for (x = 0; x < 50; x++)
            printf "%s %d", (y + x) ? "," : "", y * 7 + x
        print " ;\n}" }' >"$tmp/big.cdl"
    ncgen -k nc3 -o "$tmp/big3.nc" "$tmp/big.cdl" || fail "ncgen big.cdl"
    for kind in deflate fletcher32; do
        o=$tmp/big_$kind.nc
        if [ $kind = deflate ]; then
            opts="-d 1 -s"
        else
            opts="--fletcher32"
        fi
        # shellcheck disable=SC2086
        "$copy" -q -k nc7 $opts -c time/1,y/40,x/50 "$tmp/big3.nc" "$o" ||
            { fail "ncslab-copy $opts"; continue; }
        good "$o" "ncslab-copy $opts"
        corrupt_chunk "$o" field "[1, 0, 0, 0]" || continue
        run "$o"
        [ "$rc" -eq 1 ] || fail "$kind chunk corrupted: status $rc: $out"
        case $out in
        *'error: variable "field": chunk [1,0,0], start [1,0,0] count [1,40,50]: '*) ;;
        *) fail "$kind chunk corrupted: variable or chunk not named: $out" ;;
        esac
        case $out in
        *'variable "other"'*) fail "$kind: variable other reported: $out" ;;
        esac
        n=$(printf '%s\n' "$out" | grep -c ': error')
        [ "$n" -eq 1 ] || fail "$kind: $n errors for one corrupted chunk: $out"
    done
    echo "corrupted deflate and Fletcher-32 chunks found"
else
    echo "ncgen or h5ls missing: corrupted chunks skipped"
fi

# ---- the chunk index and the filter pipeline ------------------------------
# tests/tools/badchunk changes one entry of a chunk index (an address, a
# stored size, a filter mask, a coordinate) or a filter's id in a copy of
# a netCDF-4 file; each defect is an error naming the variable and the
# chunk (at the chunk's offset), the untouched variable is not named.
badchunk=$top_builddir/tests/tools/badchunk
# index_case NAME SOURCE PATTERN BADCHUNK-ARGS...: the checker's verdict on
# the copy of SOURCE that badchunk makes
index_case() {
    name=$1 src=$2 pat=$3
    shift 3
    o=$tmp/idx_$name.nc
    if ! "$badchunk" "$src" "$o" "$@" >"$tmp/badchunk.err" 2>&1; then
        fail "index $name: badchunk $*: $(cat "$tmp/badchunk.err")"
        return
    fi
    run "$o"
    [ "$rc" -eq 1 ] || fail "index $name: status $rc: $out"
    case $out in
    *"$pat"*) ;;
    *) fail "index $name: expected \"$pat\" in: $out" ;;
    esac
}
if [ -f "$tmp/big3.nc" ]; then
    u=$tmp/idx_plain.nc d=$tmp/idx_deflate.nc f=$tmp/idx_f32.nc
    "$copy" -q -k nc7 -c time/1,y/40,x/50 "$tmp/big3.nc" "$u" || fail "ncslab-copy plain"
    "$copy" -q -k nc7 -d 1 -s -c time/1,y/40,x/50 "$tmp/big3.nc" "$d" || fail "ncslab-copy -d 1"
    "$copy" -q -k nc7 --fletcher32 -c time/1,y/40,x/50 "$tmp/big3.nc" "$f" ||
        fail "ncslab-copy --fletcher32"
    for g in "$u" "$d" "$f"; do
        good "$g" "ncslab-copy for the chunk index cases"
    done
    run -v "$d"
    case $out in
    *'variable "field": chunk index: 3 chunks, '*' bytes stored, filters: shuffle, deflate'*) ;;
    *"this HDF5 cannot list chunk indexes"*)
        # built with HDF5 headers before 1.10.5: no chunk listing
        echo "this HDF5 cannot list chunk indexes: the chunk index cases skipped"
        u= ;;
    *) fail "-v: no chunk index line: $out" ;;
    esac
fi
if [ -f "$tmp/big3.nc" ] && [ -n "${u:-}" ]; then
    usize=$(wc -c <"$u" | tr -d ' ')
    past=$((usize + 4096))
    index_case past_eof "$u" "error at byte $past: variable \"field\": chunk [1,0,0]: its 8000 bytes at byte $past lie past the end of the file ($usize bytes)" \
        field 1 addr $past
    index_case size_plain "$u" 'variable "field": chunk [1,0,0]: 7900 bytes stored, where a chunk of 8000 bytes through no filter has exactly 8000' \
        field 1 size 7900
    index_case size_zero "$u" 'variable "field": chunk [1,0,0]: the index gives it no bytes' \
        field 1 size 0
    index_case outside "$u" 'variable "field": chunk [2,2,0]: the index places it outside the variable'"'"'s extent [3,40,50]' \
        field 2 origin 1 80
    index_case overlap "$u" 'variable "field": chunk [1,0,0]: its bytes ' field 1 like 0
    case $out in *'overlap those of variable "field": chunk [0,0,0] (bytes '*) ;;
    *) fail "index overlap: the other chunk not named: $out" ;; esac
    index_case mask_plain "$u" 'variable "field": chunk [1,0,0]: filter mask 0x1 names filters the pipeline of 0 does not have' \
        field 1 mask 1
    index_case mask_skipped "$d" 'bytes stored, where a chunk of 8000 bytes through no filter has exactly 8000' \
        field 1 mask 3
    case $out in *'error at byte '*': variable "field": chunk [1,0,0]: '*) ;;
    *) fail "index mask_skipped: chunk not named: $out" ;; esac
    index_case size_deflate "$d" 'variable "field": chunk [1,0,0]: 2 bytes stored, where its filters make 8000 bytes of data into 7 to ' \
        field 1 size 2
    index_case size_f32 "$f" 'variable "field": chunk [0,0,0]: 8000 bytes stored, where a chunk of 8000 bytes with its checksum has exactly 8004' \
        field 0 size 8000
    for c in past_eof size_plain size_zero outside overlap mask_plain mask_skipped size_deflate size_f32; do
        run "$tmp/idx_$c.nc"
        case $out in *'variable "other"'*) fail "index $c: variable other reported: $out" ;; esac
    done
    # a filter only HDF5 with a plugin runs, and one nobody knows: named,
    # and the chunks that cannot be decoded reported by variable and chunk
    # (ids under 256: the 1.8 file format's pipeline entries keep their
    # length only so; see tests/tools/badchunk.c)
    index_case szip "$d" 'warning: variable "field": filter 4 (szip) is not one ncslab runs' \
        deflate 4 filter
    index_case unknown "$d" 'warning: variable "field": filter 200 of its pipeline is unknown to ncslab and netCDF-C' \
        deflate 200 filter
    case $out in *'error: variable "field": chunk [0,0,0], start [0,0,0] count [1,40,50]: '*) ;;
    *) fail "index unknown: the undecodable chunk not named: $out" ;; esac
    echo "chunk index and filter pipeline defects found"
fi

# ---- mutations ------------------------------------------------------------
# Three bytes overwritten at 40 places spread over a file (a fixed stride,
# so the run is the same every time): each check ends with a verdict and
# status 0 or 1, whatever the bytes hit (HDF5's metadata included).
mutate() {
    src=$1 nm=0
    size=$(wc -c <"$src" | tr -d ' ')
    for i in $(seq 1 40); do
        off=$(( (i * 7919 * 13) % size ))
        cp "$src" "$tmp/m.nc"
        printf '\377\000\125' | dd of="$tmp/m.nc" bs=1 seek=$off conv=notrunc 2>/dev/null
        run "$tmp/m.nc"
        case $rc:$out in
        [01]:*"m.nc: OK"*|[01]:*"m.nc: BAD"*) ;;
        *) fail "$(basename "$src") with bytes changed at $off: status $rc: $out" ;;
        esac
        [ "$rc" -eq 1 ] && nm=$((nm + 1))
    done
    echo "$(basename "$src"): $nm of 40 mutations found defective, none crashed the check"
}
mutate "$corpus/valid_cdf2.nc"
if [ -f "$tmp/big_deflate.nc.orig" ]; then
    mutate "$tmp/big_deflate.nc.orig"
fi

# ---- a crash while reading --------------------------------------------------
# tests/tools/crashget.c, preloaded, makes every ncs_get die of SIGSEGV: each
# file with data is reported defective and the next file is still checked;
# one without variables is good.
crash=$top_builddir/tests/tools/.libs/libcrashget.so
if [ -f "$crash" ]; then
    out=$(LD_PRELOAD=$crash "$check" "$corpus/valid_cdf1.nc" "$corpus/valid_minimal.nc" \
          "$corpus/valid_cdf2.nc" 2>&1)
    rc=$?
    case $out in
    *"symbol lookup error"*|*"ASan runtime"*|*"cannot be preloaded"*)
        # a sanitizer build's library needs its runtime in every process
        echo "the crashing ncs_get cannot be preloaded here: skipped" ;;
    *)
        [ "$rc" -eq 1 ] || fail "crashing reads: status $rc: $out"
        case $out in
        *"valid_cdf1.nc: error: reading the file killed the check with signal 11"*"valid_cdf1.nc: BAD"*"valid_minimal.nc: OK"*"valid_cdf2.nc: error: reading the file killed"*"valid_cdf2.nc: BAD"*) ;;
        *) fail "crashing reads not reported file by file: $out" ;;
        esac
        echo "a crash while reading reported, the next file checked" ;;
    esac
else
    fail "$crash not built"
fi

# ---- the command line ------------------------------------------------------
good_f=$corpus/valid_cdf1.nc bad_f=$corpus/begin_overlap.nc
out=$("$check" -q "$good_f" "$bad_f" 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "-q good bad: status $rc"
[ -z "$out" ] || fail "-q printed: $out"
out=$("$check" -q "$good_f" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ -z "$out" ] || fail "-q good: status $rc, output: $out"
out=$("$check" -q "$tmp/missing.nc" 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ -z "$out" ] || fail "-q missing: status $rc, output: $out"
run "$good_f" "$bad_f"
[ "$rc" -eq 1 ] || fail "good bad: status $rc"
case $out in *"valid_cdf1.nc: OK"*"begin_overlap.nc: BAD"*) ;;
*) fail "good bad: verdicts not printed: $out" ;; esac
# usage: USAGE MESSAGE-PATTERN ARGS...
usage() {
    pat=$1
    shift
    run "$@"
    [ "$rc" -eq 2 ] || fail "'$*': status $rc, expected 2"
    case $out in *"$pat"*) ;; *) fail "'$*': no message with \"$pat\": $out" ;; esac
}
usage "unknown option '-x'" -x "$good_f"
usage "unknown option '--frobnicate'" --frobnicate "$good_f"
usage "no file to check" -v
usage "missing.nc: cannot check: No such file or directory" "$tmp/missing.nc"
usage "cannot check: not a regular file" "$tmp"
usage "missing.nc: cannot check" "$bad_f" "$tmp/missing.nc"
run -v "$good_f"
case $out in *'dimension "'*'valid_cdf1.nc: OK'*) ;; *) fail "-v: $out" ;; esac
run --help
[ "$rc" -eq 0 ] || fail "--help: status $rc"

[ "$status" -eq 0 ] && echo "PASS: ncslab-check"
exit $status
