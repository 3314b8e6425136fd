#!/bin/sh
# tests/dropin/clients_check.sh -- installed netCDF clients run with
# netCDF-C and through the drop-in libnetcdf.so.19 (issue 20,
# doc/dropin.md), their outputs compared.
#
# The wrapper is the command in NCSLAB_RUN: an executable that takes
# COMMAND ARGS... and execs them with the drop-in in front; by default the
# build tree's programs/run/ncslab-run-uninstalled, and without either the
# test is skipped (77).  tests/dropin/identity-run.sh, which runs the
# command unchanged, is the stand-in for developing this script: with it
# both runs use netCDF-C and every comparison must pass.
#
# Inputs, made once per run with netCDF-C in a temporary directory:
# classic.cdl, chunked.cdl, cdf5types.cdl, a generated CDL of 300
# variables and enhanced.cdl, written by ncgen in every classic-model
# kind (CDF-1, CDF-2, CDF-5, netCDF-4 classic model, netCDF-4 with only
# classic-model features) and converted by NCO (ncks) and nccopy.
#
# Each comparison runs one command twice, each time in an empty directory
# of its own: plainly and as `$NCSLAB_RUN COMMAND ...`.  It passes when
#   - both exit with the same status (0, unless the comparison expects an
#     error: then both fail, with the same messages);
#   - standard output and standard error are the same text (CDO's timing
#     and memory figures, "[0.02s 45MB]", are removed first: they differ
#     from run to run);
#   - both runs leave the same files (NCO's temporary files, named by
#     process id, left when NCO fails, are not compared); classic files
#     (CDF-1, CDF-2, CDF-5) must be identical bytes (cmp) and netCDF-4
#     files, identical bytes or the same `ncdump -s` text from the
#     plain ncdump, except for the lines
#       _NCProperties       names the library and version that wrote the
#                           file, which is what the drop-in changes;
#       _SuperblockVersion  the HDF5 container's superblock version: set by
#                           the writer's HDF5 format bounds, not by any
#                           netCDF call, and read the same by every reader.
#     Everything else of `ncdump -s` is kept: schema, data, fill values,
#     _Storage, _ChunkSizes, _DeflateLevel, _Shuffle, _Fletcher32,
#     _Endianness, _NoFill, _Format and _IsNetcdf4.  The same two lines
#     are removed from `ncdump -s` text of files the two runs wrote; of
#     the inputs (netCDF-C's files) the drop-in must print them as they
#     are.
# A few comparisons read, through the wrapper, the files that the wrapped
# run of an earlier comparison wrote (ncslab as writer and reader), and
# plainly those of its plain run.
#
# Prints one line per comparison, PASS, FAIL or SKIP and the command
# (input paths shortened to their names), on FAIL the reasons and the
# first lines of each difference, then a summary.  Exits 1 when a
# comparison failed, 0 otherwise, 77 when NCSLAB_RUN is unset or netCDF-C's
# programs are missing, 99 on a broken setup.  Clients that are not
# installed (NCO, CDO, gfortran with netCDF-Fortran, Python's netCDF4 and
# xarray) are skipped with a line saying so.
#
# Every file lives in one mktemp -d directory, removed at exit (kept and
# named when NCSLAB_CLIENTS_KEEP=1).  Depends neither on the current
# directory nor on a writable source tree.
set -u

here=$(cd "$(dirname "$0")" && pwd) || exit 99

# a sanitizer build's drop-in needs its runtime, which only instrumented
# programs carry (scripts/sanitize): the installed clients cannot load it
dropin_lib=${top_builddir:-.}/lib/compat/dropin/.libs/libnetcdf.so.19
if [ -z "${NCSLAB_RUN:-}" ] && [ -f "$dropin_lib" ] &&
   nm -D "$dropin_lib" 2>/dev/null | grep -qE ' U __(asan|tsan|ubsan|msan)_'; then
    echo "SKIP: the drop-in is built with a sanitizer; uninstrumented programs cannot load it"
    exit 77
fi
# make check runs it from the top build directory: the build tree's wrapper
if [ -z "${NCSLAB_RUN:-}" ] && [ -x "${top_builddir:-.}/programs/run/ncslab-run-uninstalled" ]; then
    NCSLAB_RUN=${top_builddir:-.}/programs/run/ncslab-run-uninstalled
fi
if [ -z "${NCSLAB_RUN:-}" ]; then
    echo "SKIP: NCSLAB_RUN is not set (the drop-in wrapper command, e.g."
    echo "      NCSLAB_RUN=\$prefix/bin/ncslab-run)"
    exit 77
fi
case $NCSLAB_RUN in
    /*) ;;
    */*) NCSLAB_RUN=$(pwd)/$NCSLAB_RUN ;;
    *) NCSLAB_RUN=$(command -v "$NCSLAB_RUN") || NCSLAB_RUN=missing ;;
esac
if [ ! -f "$NCSLAB_RUN" ] || [ ! -x "$NCSLAB_RUN" ]; then
    echo "ERROR: NCSLAB_RUN is not an executable file: $NCSLAB_RUN"
    exit 99
fi

have() {
    command -v "$1" >/dev/null 2>&1
}

for p in ncgen ncdump nccopy; do
    if ! have $p; then
        echo "SKIP: $p (netcdf-bin) is not installed: no inputs can be made"
        exit 77
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dropin_clients.XXXXXX") || exit 99
if [ "${NCSLAB_CLIENTS_KEEP:-0}" = 1 ]; then
    trap 'echo "kept: $tmp"' EXIT
else
    trap 'rm -rf "$tmp"' EXIT
fi
trap 'exit 130' HUP INT TERM
in=$tmp/in
mkdir "$in" "$tmp/plain" "$tmp/wrap" "$tmp/bin" "$tmp/log" || exit 99

# A command that runs longer than this is killed and its comparison fails.
limit=${NCSLAB_CLIENTS_TIMEOUT:-120}
timeout=
have timeout && timeout="timeout $limit"

npass=0
nfail=0
nskip=0
n=0
last=
t0=$(date +%s)

echo "wrapper: $NCSLAB_RUN"

# section NAME: starts a part of the report, saying when.
section() {
    echo "== $1 (at $(($(date +%s) - t0)) s)"
}

skip() {
    echo "SKIP  $*"
    nskip=$((nskip + 1))
}

# What the report shows of a command: input paths shortened to their names.
show() {
    printf '%s\n' "$*" | sed -e "s|$in/||g" -e "s|$tmp/||g"
}

# ---- inputs -----------------------------------------------------------------

# mkin NAME COMMAND...: makes the input in/NAME with netCDF-C (plainly).
inputs_ok=yes
mkin() {
    name=$1
    shift
    if ! (cd "$in" && $timeout "$@") >"$tmp/log/$name.mk" 2>&1 </dev/null ||
       [ ! -s "$in/$name" ]; then
        echo "FAIL  input $name: $(show "$@")"
        sed -n '1,5s/^/      /p' "$tmp/log/$name.mk"
        nfail=$((nfail + 1))
        inputs_ok=no
        rm -f "$in/$name"
    fi
}

# The generated input: 300 variables of the five numeric classic types,
# half of them record variables, each with attributes, values encoding
# the variable's index.
awk 'BEGIN {
    split("byte short int float double", type, " ")
    split("b s  f  ", suffix, " ")
    print "netcdf many {\ndimensions:\n\ttime = UNLIMITED ;\n\tn = 3 ;\nvariables:"
    print "\tdouble time(time) ;\n\t\ttime:units = \"days since 1900-01-01\" ;"
    print "\tfloat temp(time, n) ;"
    for (i = 0; i < 300; i++) {
        t = type[i % 5 + 1]
        printf "\t%s v%03d(%s) ;\n", t, i, i % 2 ? "time, n" : "n"
        printf "\t\tv%03d:index = %d ;\n", i, i
        printf "\t\tv%03d:long_name = \"variable %d of %s\" ;\n", i, i, t
    }
    print "\n// global attributes:\n\t\t:title = \"many variables\" ;\ndata:"
    print " time = 0, 1 ;\n temp = 1, 2, 3, 4, 5, 6 ;"
    for (i = 0; i < 300; i++) {
        m = i % 2 ? 6 : 3
        printf " v%03d =", i
        for (k = 0; k < m; k++)
            printf "%s %d", k ? "," : "", (i * 7 + k * 3) % 120 - (i % 5 < 2 ? 60 : 0)
        print " ;"
    }
    print "}"
}' >"$in/many.cdl" || exit 99

for spec in c1:nc3 c2:nc6 c5:cdf5 n7:nc7 n4:nc4; do
    mkin "${spec%%:*}.nc" ncgen -b -k "${spec#*:}" -o "${spec%%:*}.nc" "$here/classic.cdl"
done
mkin t5.nc ncgen -b -k cdf5 -o t5.nc "$here/cdf5types.cdl"
mkin t4.nc ncgen -b -k nc4 -o t4.nc "$here/cdf5types.cdl"
mkin k7.nc ncgen -b -k nc7 -o k7.nc "$here/chunked.cdl"
mkin k4.nc ncgen -b -k nc4 -o k4.nc "$here/chunked.cdl"
mkin m1.nc ncgen -b -k nc3 -o m1.nc "$in/many.cdl"
mkin m7.nc ncgen -b -k nc7 -o m7.nc "$in/many.cdl"
mkin e4.nc ncgen -b -k nc4 -o e4.nc "$here/enhanced.cdl"
mkin cp7.nc nccopy -k nc7 -d 5 -s c1.nc cp7.nc
mkin cp1.nc nccopy -k nc3 k7.nc cp1.nc
mkin cp5.nc nccopy -k cdf5 n4.nc cp5.nc
mkin cp4.nc nccopy -k nc4 -c time/2,lat/2,lon/3 c5.nc cp4.nc
classic="c1 c2 c5 t5 m1 cp1 cp5"
nc4="n7 n4 t4 k7 k4 m7 cp7 cp4"
some="c1 c2 c5 t5 n7 n4 k7 k4 m1 cp1"   # each with every ncdump option
if have ncks; then
    mkin nco2.nc ncks -h -6 c1.nc nco2.nc
    mkin nco5.nc ncks -h -5 k4.nc nco5.nc
    mkin nco1.nc ncks -h -3 k7.nc nco1.nc
    mkin nco7.nc ncks -h -7 -L 2 --cnk_dmn time,1 c1.nc nco7.nc
    mkin nco4.nc ncks -h -4 --cnk_plc=all --cnk_dmn lat,2 c2.nc nco4.nc
    classic="$classic nco2 nco5 nco1"
    nc4="$nc4 nco7 nco4"
    some="$some nco1 nco7"
fi
# Inputs written by ncslab: ncgen through the wrapper.  The netCDF-4 ones
# differ from netCDF-C's in their bytes (ncslab's own HDF5 layout, and
# _NCProperties naming it); CDF-5 is byte for byte netCDF-C's.  With the
# real wrapper (it writes NCSLAB_DROPIN_TRACE) their provenance must say
# ncslab.
mkin s5.nc "$NCSLAB_RUN" ncgen -b -k cdf5 -o s5.nc "$here/cdf5types.cdl"
mkin s7.nc "$NCSLAB_RUN" ncgen -b -k nc7 -o s7.nc "$here/classic.cdl"
mkin s4.nc "$NCSLAB_RUN" ncgen -b -k nc4 -o s4.nc "$here/classic.cdl"
mkin sk7.nc "$NCSLAB_RUN" ncgen -b -k nc7 -o sk7.nc "$here/chunked.cdl"
classic="$classic s5"
nc4="$nc4 s7 s4 sk7"
if (cd "$in" && NCSLAB_DROPIN_TRACE=$tmp/log/probe.trace "$NCSLAB_RUN" ncdump -k c1.nc) \
       >/dev/null 2>&1 && [ -f "$tmp/log/probe.trace" ]; then
    for f in s7 s4 sk7; do
        [ ! -f "$in/$f.nc" ] || ncdump -s -h "$in/$f.nc" | grep -q '_NCProperties = ".*ncslab=' || {
            echo "FAIL  input $f.nc: not written by ncslab (its _NCProperties)"
            nfail=$((nfail + 1))
            inputs_ok=no
        }
    done
fi
if [ $inputs_ok != yes ]; then
    echo "ERROR: inputs could not be made; the comparisons would say nothing"
    exit 99
fi

# ---- one comparison -------------------------------------------------------

# run_side SIDE DIR COMMAND...: runs COMMAND in the new directory DIR,
# through the wrapper when SIDE is wrap; @SIDE@ in an argument becomes
# SIDE.  Leaves DIR.out, DIR.err and DIR.rc.
run_side() {
    side=$1
    dir=$2
    shift 2
    for a; do
        shift
        case $a in
            *@SIDE@*) set -- "$@" "$(printf '%s\n' "$a" | sed "s|@SIDE@|$side|g")" ;;
            *) set -- "$@" "$a" ;;
        esac
    done
    [ "$side" = wrap ] && set -- "$NCSLAB_RUN" "$@"
    mkdir "$dir" || return
    (cd "$dir" && exec $timeout "$@") >"$dir.out" 2>"$dir.err" </dev/null
    echo $? >"$dir.rc"
}

# CDO's timing and memory figures removed from a stream.
clean_cdo() {
    sed -E 's/\[[0-9.]+s( [0-9.]+[KMGT]?B)?\]/[time]/g' "$1"
}

# The lines of `ncdump -s` that may differ between two netCDF-4 files
# with the same content, removed from a stream.
clean_special() {
    grep -v -e '^		:_NCProperties = ' -e '^		:_SuperblockVersion = ' "$@"
}

# The `ncdump -s` of a netCDF-4 file, as compared.
clean_nc4() {
    ncdump -s "$1" 2>&1 | clean_special
}

kind_of() {
    case $(od -An -tx1 -N4 "$1" | tr -d ' \n') in
        43444601) echo CDF-1 ;;
        43444602) echo CDF-2 ;;
        43444605) echo CDF-5 ;;
        89484446) echo HDF5 ;;
        *) echo other ;;
    esac
}

# why TEXT: a reason the comparison fails.
why() {
    printf '%s\n' "$*" >>"$reasons"
}

# difftext PLAIN WRAPPED WHAT: the first lines of a difference.
difftext() {
    if ! diff -u --label "plain $3" --label "wrapped $3" "$1" "$2" >"$tmp/diff"; then
        why "$3 differs:"
        sed -n '1,14s/^/  /p' "$tmp/diff" >>"$reasons"
        return 1
    fi
}

# same_file PLAIN WRAPPED NAME (identical bytes are the same file of any
# kind; netCDF-4 files that differ in bytes are compared by ncdump -s)
same_file() {
    cmp -s "$1" "$2" && return
    kp=$(kind_of "$1")
    kw=$(kind_of "$2")
    if [ "$kp" != "$kw" ]; then
        why "$3: plain wrote $kp, wrapped $kw"
        return
    fi
    case $kp in
        HDF5)
            clean_nc4 "$1" >"$tmp/a" && clean_nc4 "$2" >"$tmp/b"
            difftext "$tmp/a" "$tmp/b" "$3 (ncdump -s)"
            ;;
        *)
            if ! cmp "$1" "$2" >"$tmp/cmp" 2>&1; then
                why "$3 ($kp): not the same bytes: $(cat "$tmp/cmp")"
                if [ "$kp" != other ]; then
                    ncdump "$1" >"$tmp/a" 2>&1
                    ncdump "$2" >"$tmp/b" 2>&1
                    difftext "$tmp/a" "$tmp/b" "$3 (ncdump)" &&
                        why "  (ncdump shows no difference)"
                fi
            fi
            ;;
    esac
}

# compare [+fails] [+cdo|+nc4] COMMAND ARGS...: runs the command plainly
# and through the wrapper, and compares.  +fails: the command must fail
# (both runs, the same way); +cdo: CDO's timings are removed from the
# streams; +nc4: so are the lines of ncdump -s that may differ between
# netCDF-4 files of the same content (for ncdump -s of files that the
# two runs of an earlier comparison wrote).  Sets last to the comparison's id (its directories are
# plain/ID and wrap/ID).
compare() {
    fails=no
    filter=none
    while :; do
        case $1 in
            +fails) fails=yes; shift ;;
            +cdo) filter=cdo; shift ;;
            +nc4) filter=nc4; shift ;;
            *) break ;;
        esac
    done
    n=$((n + 1))
    last=$n
    _p=$tmp/plain/$last
    _w=$tmp/wrap/$last
    reasons=$tmp/log/$last.why
    : >"$reasons"
    run_side plain "$_p" "$@" &
    run_side wrap "$_w" "$@" &
    wait
    read -r prc <"$_p.rc"
    read -r wrc <"$_w.rc"
    if [ $fails = no ] && [ "$prc" != 0 ]; then
        why "the plain run failed (status $prc):"
        sed -n '1,5s/^/  /p' "$_p.err" "$_p.out" >>"$reasons"
    elif [ $fails = yes ] && [ "$prc" = 0 ]; then
        why "the plain run succeeded, but this comparison expects an error"
    fi
    [ "$prc" = "$wrc" ] || why "exit status: plain $prc, wrapped $wrc"
    for _s in out err; do
        if [ $filter = cdo ]; then
            clean_cdo "$_p.$_s" >"$tmp/a"
            clean_cdo "$_w.$_s" >"$tmp/b"
            difftext "$tmp/a" "$tmp/b" "std$_s"
        elif [ $filter = nc4 ]; then
            clean_special "$_p.$_s" >"$tmp/a"
            clean_special "$_w.$_s" >"$tmp/b"
            difftext "$tmp/a" "$tmp/b" "std$_s"
        elif ! cmp -s "$_p.$_s" "$_w.$_s"; then
            difftext "$_p.$_s" "$_w.$_s" "std$_s"
        fi
    done
    # NCO names its temporary output by its process id and leaves it
    # behind when it fails: not compared
    (cd "$_p" && find . -type f ! -name '*.pid[0-9]*.tmp' | sort) >"$tmp/files.plain"
    (cd "$_w" && find . -type f ! -name '*.pid[0-9]*.tmp' | sort) >"$tmp/files.wrap"
    if difftext "$tmp/files.plain" "$tmp/files.wrap" "list of files written"; then
        while read -r _f; do
            same_file "$_p/$_f" "$_w/$_f" "${_f#./}"
        done <"$tmp/files.plain"
    fi
    if [ -s "$reasons" ]; then
        echo "FAIL  $(show "$@")"
        sed 's/^/      /' "$reasons"
        nfail=$((nfail + 1))
    else
        echo "PASS  $(show "$@")"
        npass=$((npass + 1))
    fi
}

# ---- ncdump -----------------------------------------------------------------
section "ncdump"
# netCDF-C 4.9.0's ncdump -s fails on CDF-5 files: it asks for the
# endianness of each variable of more than one byte, which
# nc_inq_var_endian refuses for a classic file (NC_ENOTNC4, "Attempting
# netcdf-4 operation on netcdf-3 file"), after printing part of the
# header.  The drop-in must fail the same way.
for f in $classic $nc4; do
    compare ncdump "$in/$f.nc"
    case $(kind_of "$in/$f.nc") in
        CDF-5) compare +fails ncdump -s "$in/$f.nc" ;;
        *) compare ncdump -s "$in/$f.nc" ;;
    esac
done
for f in $some; do
    compare ncdump -h "$in/$f.nc"
    compare ncdump -c "$in/$f.nc"
    compare ncdump -v temp,time "$in/$f.nc"
    compare ncdump -t -v time "$in/$f.nc"
    compare ncdump -k "$in/$f.nc"
done
for f in c1 c2 c5 t5 n7 k7 m1 m7; do
    compare ncdump -x "$in/$f.nc"
done
compare +fails ncdump -x "$in/n4.nc"
compare ncdump -t "$in/c1.nc"
compare ncdump -i -v time,time_bnds "$in/c1.nc"
compare ncdump -p 3,7 "$in/c1.nc"
compare ncdump -f c -v temp,packed "$in/c2.nc"
compare ncdump -b f -v packed,name "$in/n7.nc"
compare ncdump -l 30 -n renamed "$in/k7.nc"
compare ncdump -s -h "$in/t4.nc"
compare ncdump -v v007,v298 "$in/m7.nc"
compare +fails ncdump -v nosuch "$in/c1.nc"
compare +fails ncdump "$in/does-not-exist.nc"
compare +fails ncdump "$here/classic.cdl"

# ---- nccopy -----------------------------------------------------------------
section "nccopy"
for f in c1 c5 n7 k7 k4 sk7 s4; do
    for k in nc3 nc6 cdf5 nc4 nc7; do
        compare nccopy -k $k "$in/$f.nc" out.nc
    done
done
compare nccopy -k nc4 "$in/t5.nc" out.nc
compare nccopy -k cdf5 "$in/t4.nc" out.nc
for k in nc3 nc6 nc7; do
    compare +fails nccopy -k $k "$in/t5.nc" out.nc
done
compare nccopy -k nc4 -c time/1,lat/2,lon/3 "$in/c1.nc" out.nc
compare nccopy -c temp:1,2,3 "$in/k7.nc" out.nc
compare nccopy -k nc7 -c time/5,level/1 "$in/c5.nc" out.nc
compare nccopy -d 1 "$in/c1.nc" out.nc
compare nccopy -d 9 -s "$in/k4.nc" out.nc
compare nccopy -k nc7 -d 3 -s -c time/5 "$in/c5.nc" out.nc
compare nccopy -d 0 "$in/k7.nc" out.nc
compare nccopy -s -d 2 "$in/t4.nc" out.nc
compare nccopy -u "$in/k7.nc" out.nc
compare nccopy -V temp,time "$in/c1.nc" out.nc
compare nccopy -m 1000 -h 100000 -e 3 "$in/m7.nc" out.nc
compare nccopy -w "$in/c2.nc" out.nc
compare nccopy "$in/m1.nc" out.nc
compare +fails nccopy "$in/does-not-exist.nc" out.nc

# ---- ncgen ------------------------------------------------------------------
section "ncgen"
readback=
for k in nc3 nc6 cdf5 nc7 nc4; do
    compare ncgen -b -k $k -o out.nc "$here/classic.cdl"
    readback="$readback $last"
done
compare ncgen -b -x -k nc3 -o out.nc "$here/classic.cdl"
readback="$readback $last"
compare ncgen -c "$here/classic.cdl"
for k in nc7 nc4; do
    compare ncgen -b -k $k -o out.nc "$here/chunked.cdl"
    readback="$readback $last"
done
compare ncgen -c "$here/chunked.cdl"
for k in cdf5 nc4; do
    compare ncgen -b -k $k -o out.nc "$here/cdf5types.cdl"
    readback="$readback $last"
done
compare +fails ncgen -b -k nc3 -o out.nc "$here/cdf5types.cdl"
for k in nc3 nc6 nc7; do
    compare ncgen -b -k $k -o out.nc "$in/many.cdl"
    readback="$readback $last"
done
compare ncgen -b "$here/classic.cdl"

section "files written through the wrapper, read through it"
for id in $readback; do
    compare ncdump "$tmp/@SIDE@/$id/out.nc"
    case $(kind_of "$tmp/plain/$id/out.nc") in
        CDF-5) compare +fails ncdump -s -h "$tmp/@SIDE@/$id/out.nc" ;;
        HDF5) compare +nc4 ncdump -s -h "$tmp/@SIDE@/$id/out.nc" ;;
        *) compare ncdump -s -h "$tmp/@SIDE@/$id/out.nc" ;;
    esac
done

# ---- NCO --------------------------------------------------------------------
section "NCO"
nco=
for p in ncks ncra ncrcat ncecat nces ncwa ncbo ncflint ncpdq ncap2 ncatted ncrename; do
    have $p || nco="$nco $p"
done
if [ -n "$nco" ]; then
    skip "NCO: not installed:$nco"
else
    # -h: no history attribute (it holds the time of day)
    compare ncks -h -d time,1,3 "$in/c1.nc" out.nc
    compare ncks -h -d time,0,,2 -d lon,1,5,2 "$in/c1.nc" out.nc
    compare ncks -h -d lat,-30.0,30.0 -d lon,100.0, "$in/c2.nc" out.nc
    compare ncks -h -d time,1,,3 -d level,2 -d lat,0,3,3 "$in/c5.nc" out.nc
    compare ncks -h -v temp,packed "$in/c1.nc" out.nc
    compare ncks -h -x -v temp,empty "$in/c5.nc" out.nc
    compare ncks -h -d time,1,,2 -d x,0,,3 "$in/k7.nc" out.nc
    compare ncks -h -d time,1,,2 -d x,0,,3 "$in/sk7.nc" out.nc
    compare ncks -h -v temp,checked -d y,1,4 "$in/k4.nc" out.nc
    compare ncks -h -d n,1,,2 "$in/t5.nc" out.nc
    compare ncks -h -4 --cnk_plc=all --cnk_dmn time,2 --cnk_dmn lat,3 "$in/c1.nc" out.nc
    compare ncks -h -7 --cnk_map=rd1 -L 1 "$in/c1.nc" out.nc
    compare ncks -h --cnk_plc=unchunk "$in/k7.nc" out.nc
    compare ncks -h --cnk_plc=g2d --cnk_byt=4096 "$in/k4.nc" out.nc
    compare ncks -h --cnk_plc=xpl --cnk_dmn y,2 --cnk_dmn x,8 "$in/k4.nc" out.nc
    compare ncks -h -5 "$in/k4.nc" out.nc
    compare ncks -h -3 "$in/n7.nc" out.nc
    compare ncks -h -6 "$in/m7.nc" out.nc
    compare ncks -H -C -v temp -d time,2 "$in/c1.nc"
    compare ncks -m "$in/c5.nc"
    compare ncks -M "$in/k7.nc"
    compare ncks --cdl -H -v packed "$in/k7.nc"
    compare ncks -s '%g ' -H -C -v temp -d time,0,1 "$in/c1.nc"
    compare ncks --json -v temp,name "$in/c1.nc"
    compare ncks --xml -v time "$in/n7.nc"
    compare +fails ncks -h -v nosuch "$in/c1.nc" out.nc
    compare +fails ncks -h -d time,9 "$in/c1.nc" out.nc
    compare ncra -h "$in/c1.nc" out.nc
    compare ncra -h -d time,0,,2 -y max "$in/n7.nc" out.nc
    compare ncra -h "$in/k7.nc" out.nc
    compare ncrcat -h "$in/c1.nc" "$in/c2.nc" out.nc
    compare ncrcat -h -d time,1,,2 "$in/c5.nc" "$in/n7.nc" out.nc
    compare ncrcat -h "$in/k7.nc" "$in/k4.nc" out.nc
    compare ncecat -h "$in/c1.nc" "$in/c5.nc" out.nc
    compare ncecat -h -u ens "$in/k7.nc" "$in/k4.nc" out.nc
    compare nces -h "$in/c1.nc" "$in/c2.nc" out.nc
    compare nces -h -y max "$in/k7.nc" "$in/k4.nc" out.nc
    compare ncwa -h -a time "$in/c1.nc" out.nc
    compare ncwa -h -a y,x "$in/k7.nc" out.nc
    compare ncwa -h -y rms -a lon "$in/c5.nc" out.nc
    compare ncbo -h --op_typ=sbt "$in/c1.nc" "$in/c2.nc" out.nc
    compare ncbo -h --op_typ=mlt "$in/k7.nc" "$in/k4.nc" out.nc
    compare ncflint -h -w 0.25,0.75 "$in/c1.nc" "$in/c2.nc" out.nc
    compare ncflint -h -w 0.5,0.5 "$in/k7.nc" "$in/k4.nc" out.nc
    compare ncpdq -h -a lon,lat "$in/c1.nc" out.nc
    compare ncpdq -h -a -time "$in/k7.nc" out.nc
    compare ncpdq -h -U "$in/c1.nc" out.nc
    compare ncpdq -h -U "$in/k4.nc" out.nc
    compare ncpdq -h -P all_new "$in/c2.nc" out.nc
    # shellcheck disable=SC2016 # $time is ncap2's, not the shell's
    compare ncap2 -h -s 'temp2=temp*2;tm=temp.avg($time);tot=count.total()' "$in/c1.nc" out.nc
    compare ncap2 -h -s 'c2=checked+1;where(temp > 120) temp=0' "$in/k7.nc" out.nc
    compare ncatted -h -a units,temp,o,c,degK -a newatt,global,c,d,3.5 -a long_name,temp,d,, "$in/c1.nc" out.nc
    compare ncatted -h -a units,temp,o,c,degC -a title,global,a,c," (edited)" "$in/k7.nc" out.nc
    compare ncatted -h -a _FillValue,count,o,l,-7 "$in/c5.nc" out.nc
    compare ncrename -h -v temp,tas -d lat,latitude -a lon@units,Units "$in/c1.nc" out.nc
    compare ncrename -h -v .nofill,nf -v checked,chk "$in/k7.nc" out.nc
    compare ncrename -h -a global@title,Title -a .units,Units "$in/n4.nc" out.nc
fi

# ---- CDO --------------------------------------------------------------------
section "CDO"
if ! have cdo; then
    skip "CDO: cdo is not installed"
else
    for f in c1 c5 n7 k7 sk7; do
        compare +cdo cdo sinfo "$in/$f.nc"
    done
    compare +cdo cdo infon "$in/c2.nc"
    compare +cdo cdo -O --no_history timmean "$in/c1.nc" out.nc
    compare +cdo cdo -O --no_history -f nc4 timmean "$in/k7.nc" out.nc
    compare +cdo cdo -O --no_history selindexbox,2,4,1,3 -selname,temp,packed "$in/c1.nc" out.nc
    compare +cdo cdo -O --no_history selindexbox,2,5,1,4 -selname,temp,checked,packed "$in/k7.nc" out.nc
    compare +cdo cdo -O --no_history copy "$in/c1.nc" out.nc
    compare +cdo cdo -O --no_history -f nc2 copy "$in/c1.nc" out.nc
    compare +cdo cdo -O --no_history -f nc5 copy "$in/c5.nc" out.nc
    compare +cdo cdo -O --no_history -f nc4c -z zip_2 copy "$in/c1.nc" out.nc
    compare +cdo cdo -O --no_history -f nc4 copy "$in/k7.nc" out.nc
    compare +cdo cdo -O --no_history -f nc copy "$in/k4.nc" out.nc
fi

# ---- Fortran ----------------------------------------------------------------
section "Fortran (netCDF-Fortran)"
fflags=
if ! have gfortran; then
    skip "Fortran: gfortran is not installed"
elif have nf-config; then
    fflags="$(nf-config --fflags) $(nf-config --flibs)"
elif have pkg-config && pkg-config --exists netcdf-fortran; then
    fflags="$(pkg-config --cflags --libs netcdf-fortran)"
else
    skip "Fortran: netCDF-Fortran (nf-config or its pkg-config module) is not installed"
fi
if [ -n "$fflags" ]; then
    built=yes
    for prog in f90_rw.f90 f77_rw.f; do
        # shellcheck disable=SC2086 # fflags is a list of words
        if ! gfortran -o "$tmp/bin/${prog%.*}" "$here/$prog" $fflags >"$tmp/log/$prog" 2>&1; then
            echo "FAIL  gfortran $prog $fflags"
            sed -n '1,10s/^/      /p' "$tmp/log/$prog"
            nfail=$((nfail + 1))
            built=no
        fi
    done
    echo "INFO  built f90_rw and f77_rw: gfortran -o ... $fflags"
    if [ $built = yes ]; then
        for k in classic 64bit cdf5 nc4classic nc4; do
            compare "$tmp/bin/f90_rw" out.nc $k
            # its file read back, through the wrapper for the wrapper's
            compare ncdump "$tmp/@SIDE@/$last/out.nc"
        done
        for k in classic 64bit cdf5 nc4classic; do
            compare "$tmp/bin/f77_rw" out.nc $k "$in/c1.nc"
        done
        compare "$tmp/bin/f77_rw" out.nc classic "$in/n7.nc"
        compare "$tmp/bin/f77_rw" out.nc nc4classic "$in/c2.nc"
    fi
fi

# ---- Python -----------------------------------------------------------------
section "Python (netCDF4, xarray)"
py=/usr/bin/python3
if [ ! -x $py ]; then
    skip "Python: $py is not installed"
elif ! $py -c 'import netCDF4, xarray' >/dev/null 2>&1; then
    skip "Python: $py lacks netCDF4 or xarray (python3-netcdf4, python3-xarray)"
else
    set --
    for f in c1 c2 c5 t5 cp1; do set -- "$@" "$in/$f.nc"; done
    compare $py "$here/clients.py" read "$@"
    set --
    for f in n7 k7 cp7 m7; do set -- "$@" "$in/$f.nc"; done
    compare $py "$here/clients.py" read "$@"
    set --
    for f in n4 k4 t4; do set -- "$@" "$in/$f.nc"; done
    compare $py "$here/clients.py" read "$@"
    set --
    for f in s7 sk7 s4; do set -- "$@" "$in/$f.nc"; done
    compare $py "$here/clients.py" read "$@"
    compare $py "$here/clients.py" write .
    id=$last
    for f in py_cdf1 py_cdf2 xr_cdf1; do
        compare ncdump "$tmp/@SIDE@/$id/$f.nc"
    done
    # Not compared: the version each side reports (through the wrapper it
    # names ncslab), shown to make plain which library served.
    q='import netCDF4; print(netCDF4.getlibversion())'
    vp=$($py -c "$q" 2>&1)
    vw=$("$NCSLAB_RUN" $py -c "$q" 2>&1)
    echo "INFO  nc_inq_libvers plain:   $vp"
    echo "INFO  nc_inq_libvers wrapped: $vw"
    [ "$vp" != "$vw" ] ||
        echo "WARN  the same version both ways: is the drop-in in front (a stand-in wrapper)?"
fi

# ---- the enhanced model: forwarded to netCDF-C ------------------------------
section "enhanced model (forwarded)"
compare ncdump "$in/e4.nc"
compare ncdump -s "$in/e4.nc"
compare ncdump -h "$in/e4.nc"
compare ncdump -v /surface/wind,names "$in/e4.nc"
compare ncdump -g surface "$in/e4.nc"
compare +fails ncdump -x "$in/e4.nc"
compare ncgen -b -k nc4 -o out.nc "$here/enhanced.cdl"
compare ncdump "$tmp/@SIDE@/$last/out.nc"
compare ncgen -k nc4 -lc "$here/enhanced.cdl"
compare nccopy "$in/e4.nc" out.nc
# netCDF-C refuses deflate on the variable-length types (string, vlen)
compare +fails nccopy -d 4 -s "$in/e4.nc" out.nc
compare nccopy -d 4 -s -V t,obs,sky,blob "$in/e4.nc" out.nc
compare +fails nccopy -k nc7 "$in/e4.nc" out.nc
# NCO 5.1.4 stops at user-defined types (NC_EBADTYPE) when it prints
# them; it copies groups and strings
if have ncks; then
    compare +fails ncks -m "$in/e4.nc"
    compare ncks -h -g surface "$in/e4.nc" out.nc
    compare ncks -h -v names,t "$in/e4.nc" out.nc
fi

# ---- who writes netCDF-4 files (the drop-in's trace) -------------------------
# Files in the netCDF-4 format without the classic-model flag are written by
# ncslab until their writer asks for what only netCDF-C represents, then
# handed to it (doc/dropin.md, "Hand-over").  writes WANT COMMAND...: runs
# the command through the wrapper with NCSLAB_DROPIN_TRACE and checks that
# ncslab created its output and how it was handed over: WANT "none", or
# "define mode" / "redefine mode" / "data mode" for the first hand-over.
# A stand-in wrapper writes no trace: skipped.
section "netCDF-4 writes: who serves"
writes() {
    want=$1
    shift
    n=$((n + 1))
    d=$tmp/trace.$n
    mkdir "$d"
    (cd "$d" && NCSLAB_DROPIN_TRACE=$d/trace $timeout "$NCSLAB_RUN" "$@") >"$d/log" 2>&1 </dev/null
    if [ ! -f "$d/trace" ]; then
        skip "$(show "$@"): no trace (a stand-in wrapper)"
        return
    fi
    created=$(grep -c "^ncslab drop-in: create([^)]*) ncslab -> 0 " "$d/trace")
    first=$(sed -n 's/^ncslab drop-in: hand-over of [0-9]* ([^,]*, \(.*\)) to netCDF-C -> 0$/\1/p' \
            "$d/trace" | head -n 1)
    if [ "$created" -ge 1 ] && [ "${first:-none}" = "$want" ]; then
        echo "PASS  $(show "$@"): created by ncslab, hand-over: $want"
        npass=$((npass + 1))
    else
        echo "FAIL  $(show "$@"): $created creates by ncslab, hand-over: ${first:-none}," \
             "expected $want"
        nfail=$((nfail + 1))
    fi
}
writes none nccopy -k nc4 "$in/c1.nc" out.nc
writes none nccopy -k nc4 -d 1 -s "$in/k7.nc" out.nc
writes "define mode" nccopy "$in/e4.nc" out.nc
if have ncks; then
    writes none ncks -h -4 "$in/c2.nc" out.nc
    writes "define mode" ncks -h -g surface "$in/e4.nc" out.nc
fi
have ncap2 && writes none ncap2 -h -O -4 -s 'z=temp*2' "$in/c1.nc" out.nc
have cdo && writes none cdo -s -O --no_history -f nc4 copy "$in/c1.nc" out.nc
have cdo && writes none cdo -s -O --no_history -f nc4 timmean "$in/k7.nc" out.nc

t1=$(date +%s)
echo "clients_check: $n comparisons: $npass passed, $nfail failed, $nskip skipped" \
    "($((t1 - t0)) s, wrapper $NCSLAB_RUN)"
[ $nfail -eq 0 ]
