#!/bin/sh
# tests/tools/writers/writers_check.sh -- files from real writers, read through
# ncslab and compared with netCDF-C's reading.
#
# Writes files with every writer found on this machine:
#   ncgen (netcdf-bin)  each CDL file of this directory in nc3, nc6, cdf5
#                       and nc7 (types_cdf5.cdl in cdf5 only, storage.cdl
#                       and quantize.cdl in nc7 only), grid.cdl,
#                       storage.cdl and quantize.cdl also as netCDF-4 not
#                       marked classic (nc4)
#   nccopy              ncgen's classic files converted to nc7, plain
#                       (contiguous storage) and deflated
#   NCO                 ncks format conversions (-3 -6 -5 -7 -4), subsets,
#                       record-dimension changes, deflation, chunking,
#                       precision-preserving compression; ncrename,
#                       ncatted, ncap2 on classic and nc7 files; ncpdq
#                       packing, unpacking, permuting; ncecat, ncra, ncwa
#   CDO                 copy to nc nc2 nc5 nc4c nc4, selvar, setattribute,
#                       timmean (time bounds), merge
#   Python              writers.py: netCDF4-python, xarray with each
#                       engine, h5netcdf, h5py
# then, for each file, runs cmp_read on it (NAME), and on two copies that
# ncslab and netCDF-C modify with the same calls (NAME:modified; ncdump
# must also read ncslab's copy, and a classic file's two copies must be
# identical bytes).
#
# Prints one line per file: PASS, FAIL (with the first difference), XFAIL
# (a failure listed in KNOWN_FAILURES, with the issue item that explains
# it) or XPASS (listed, but passes: remove the entry).  Exits 0 when there
# is no FAIL and no XPASS, 77 when no writer is installed, 1 otherwise.
# A writer whose program or Python module is missing is skipped with a
# message.  The work directory is kept (and named) when something failed;
# NCSLAB_WRITERS_KEEP=1 keeps it always.
# Run by `make check` from the top build directory.
set -u

top_builddir=${top_builddir:-.}
. "$top_builddir/tests/tools/writers/env.sh"

if [ "$have_netcdf" != yes ]; then
    echo "SKIP: netCDF-C (the reference reader) is not configured"
    exit 77
fi
src=$abs_top_srcdir/tests/tools/writers
cmp=$abs_top_builddir/tests/tools/writers/cmp_read
known=$src/KNOWN_FAILURES

tmp=$(mktemp -d "${TMPDIR:-/tmp}/writers.XXXXXX") || exit 99
mkdir "$tmp/files" "$tmp/modified" "$tmp/log" || exit 99
status=0
nwriters=0
results=$tmp/results

have() {
    command -v "$1" >/dev/null 2>&1
}

nskipped=0
skip() {
    echo "SKIP: $*"
    nskipped=$((nskipped + 1))
}

# gen NAME COMMAND...: runs a writer, whose output must be files/NAME
gen() {
    name=$1
    shift
    if ! (cd "$tmp/files" && "$@") >"$tmp/log/$name.gen" 2>&1 ||
       [ ! -s "$tmp/files/$name" ]; then
        echo "FAIL $name: the writer failed: $*"
        sed 's/^/    /' "$tmp/log/$name.gen" | head -n 5
        rm -f "$tmp/files/$name"
        status=1
    fi
}

t0=$(date +%s)

# ---- ncgen, nccopy ---------------------------------------------------------
if have ncgen; then
    nwriters=$((nwriters + 1))
    for cdl in "$src"/*.cdl; do
        base=$(basename "$cdl" .cdl)
        case $base in
        types_cdf5) kinds=cdf5 ;;
        grid) kinds="nc3 nc6 cdf5 nc7 nc4" ;;
        storage | quantize) kinds="nc7 nc4" ;;
        *) kinds="nc3 nc6 cdf5 nc7" ;;
        esac
        for k in $kinds; do
            gen "ncgen_${base}_$k.nc" ncgen -k "$k" \
                -o "ncgen_${base}_$k.nc" "$cdl"
        done
    done
else
    skip "ncgen (netcdf-bin) not installed"
fi
if have nccopy && [ -f "$tmp/files/ncgen_grid_nc3.nc" ]; then
    for base in grid types dsg_timeseries; do
        gen "nccopy_${base}_nc7.nc" nccopy -k nc7 "ncgen_${base}_nc3.nc" \
            "nccopy_${base}_nc7.nc"
    done
    gen nccopy_grid_nc7_deflate.nc nccopy -k nc7 -d 1 -s ncgen_grid_nc3.nc \
        nccopy_grid_nc7_deflate.nc
    gen nccopy_types_cdf5_nc4.nc nccopy -k nc4 ncgen_types_cdf5_cdf5.nc \
        nccopy_types_cdf5_nc4.nc
fi

# ---- NCO -------------------------------------------------------------------
if have ncks && have ncrename && have ncatted &&
   [ -f "$tmp/files/ncgen_grid_nc3.nc" ]; then
    nwriters=$((nwriters + 1))
    g=ncgen_grid_nc3.nc
    for k in 3:nc3 6:nc6 5:cdf5 7:nc7 4:nc4; do
        gen "nco_ncks_grid_${k#*:}.nc" ncks -O -"${k%%:*}" "$g" \
            "nco_ncks_grid_${k#*:}.nc"
    done
    for base in dsg_timeseries dsg_trajectory dsg_profile dsg_profile_md \
                curvilinear types; do
        gen "nco_ncks_${base}_nc7.nc" ncks -O -7 "ncgen_${base}_nc3.nc" \
            "nco_ncks_${base}_nc7.nc"
    done
    gen nco_ncks_subset_nc3.nc ncks -O -v tas -d lat,1,2 "$g" \
        nco_ncks_subset_nc3.nc
    gen nco_ncks_subset_nc7.nc ncks -O -7 -v pr -d lon,0,4,2 "$g" \
        nco_ncks_subset_nc7.nc
    gen nco_ncks_fixrec_nc3.nc ncks -O --fix_rec_dmn time "$g" \
        nco_ncks_fixrec_nc3.nc
    gen nco_ncks_fixrec_nc7.nc ncks -O -7 --fix_rec_dmn time "$g" \
        nco_ncks_fixrec_nc7.nc
    gen nco_ncks_deflate_nc7.nc ncks -O -7 -L 1 "$g" nco_ncks_deflate_nc7.nc
    gen nco_ncks_chunked_nc7.nc ncks -O -7 --cnk_plc=all --cnk_dmn lat,2 \
        --cnk_dmn lon,3 "$g" nco_ncks_chunked_nc7.nc
    gen nco_ncks_ppc_nc7.nc ncks -O -7 --ppc default=3 "$g" \
        nco_ncks_ppc_nc7.nc
    if have ncpdq; then
        gen nco_ncpdq_pack_nc3.nc ncpdq -O -P all_new "$g" \
            nco_ncpdq_pack_nc3.nc
        gen nco_ncpdq_pack_nc7.nc ncpdq -O -7 -P all_new "$g" \
            nco_ncpdq_pack_nc7.nc
        gen nco_ncpdq_unpack_nc3.nc ncpdq -O -U "$g" nco_ncpdq_unpack_nc3.nc
        gen nco_ncpdq_permute_nc3.nc ncpdq -O -a lon,lat "$g" \
            nco_ncpdq_permute_nc3.nc
        gen nco_ncpdq_permute_nc7.nc ncpdq -O -7 -a lon,lat "$g" \
            nco_ncpdq_permute_nc7.nc
    fi
    if have ncecat && have ncra && have ncwa; then
        gen nco_ncecat_nc3.nc ncecat -O "$g" ncgen_grid_nc6.nc \
            nco_ncecat_nc3.nc
        gen nco_ncecat_nc7.nc ncecat -O -7 "$g" nco_ncecat_nc7.nc
        gen nco_ncra_nc3.nc ncra -O "$g" nco_ncra_nc3.nc
        gen nco_ncwa_nc7.nc ncwa -O -7 -a lat "$g" nco_ncwa_nc7.nc
    fi
    for k in nc3 nc7; do
        in=ncgen_grid_$k.nc
        # NCO 5.1 cannot rename a variable and attributes in one run; the
        # second run rewrites the header in place
        gen "nco_ncrename_$k.nc" sh -c "ncrename -O -v tas,tas_renamed \
            -d bnds,nv $in nco_ncrename_$k.nc &&
            ncrename -a .units,Units -a .title,Title nco_ncrename_$k.nc"
        gen "nco_ncatted_$k.nc" ncatted -O -a comment,tas,c,c,"added" \
            -a new_d,orog,c,d,"1.5,-2.5" -a title,global,m,c,"changed" \
            -a missing_value,tas,d,, "$in" "nco_ncatted_$k.nc"
        if have ncap2; then
            gen "nco_ncap2_$k.nc" ncap2 -O \
                -s 'tas2=tas*2.0f;orog_max=orog.max()' "$in" "nco_ncap2_$k.nc"
        fi
    done
elif [ -f "$tmp/files/ncgen_grid_nc3.nc" ]; then
    skip "NCO (ncks, ncrename, ncatted) not installed"
fi

# ---- CDO -------------------------------------------------------------------
if have cdo && [ -f "$tmp/files/ncgen_grid_nc3.nc" ]; then
    nwriters=$((nwriters + 1))
    g=ncgen_grid_nc3.nc
    for k in nc:nc3 nc2:nc6 nc5:cdf5 nc4c:nc7 nc4:nc4; do
        gen "cdo_copy_${k#*:}.nc" cdo -s -O -f "${k%%:*}" copy "$g" \
            "cdo_copy_${k#*:}.nc"
    done
    gen cdo_selvar_nc3.nc cdo -s -O selvar,tas "$g" cdo_selvar_nc3.nc
    gen cdo_selvar_nc7.nc cdo -s -O -f nc4c selvar,pr "$g" cdo_selvar_nc7.nc
    gen cdo_setattribute_nc3.nc cdo -s -O setattribute,tas@comment=hello \
        "$g" cdo_setattribute_nc3.nc
    gen cdo_setattribute_nc7.nc cdo -s -O -f nc4c -z zip_1 \
        setattribute,tas@comment=hello "$g" cdo_setattribute_nc7.nc
    gen cdo_curvilinear_nc7.nc cdo -s -O -f nc4c copy \
        ncgen_curvilinear_nc3.nc cdo_curvilinear_nc7.nc
    gen cdo_timmean_nc3.nc cdo -s -O timmean "$g" cdo_timmean_nc3.nc
    gen cdo_timmean_nc7.nc cdo -s -O -f nc4c -z zip_5 timmean "$g" \
        cdo_timmean_nc7.nc
    gen cdo_merge_nc6.nc cdo -s -O -f nc2 merge -selvar,tas "$g" \
        -selvar,orog "$g" cdo_merge_nc6.nc
elif [ -f "$tmp/files/ncgen_grid_nc3.nc" ]; then
    skip "CDO not installed"
fi

# ---- Python ----------------------------------------------------------------
python=
for p in ${PYTHON:-} python3 /usr/bin/python3; do
    if "$p" -c 'import numpy' >/dev/null 2>&1; then
        python=$p
        break
    fi
done
if [ -n "$python" ]; then
    if "$python" "$src/writers.py" "$tmp/files" >"$tmp/log/python.out" \
            2>"$tmp/log/python.err"; then
        cat "$tmp/log/python.out"
        n=$(grep -c '^SKIP' "$tmp/log/python.out")
        nskipped=$((nskipped + n))
        [ "$n" -lt 4 ] && nwriters=$((nwriters + 1))
    else
        echo "FAIL writers.py: $python failed:"
        sed 's/^/    /' "$tmp/log/python.err" | tail -n 5
        status=1
    fi
else
    skip "python3 with numpy not found (netCDF4-python, xarray, h5netcdf, h5py)"
fi

if [ $nwriters -eq 0 ]; then
    echo "SKIP: no writer installed"
    rm -rf "$tmp"
    exit 77
fi
t1=$(date +%s)

# ---- the comparator sees a difference --------------------------------------
# (types.cdl's classic file has attributes and values of every type)
first=ncgen_types_nc3.nc
[ -f "$tmp/files/$first" ] || first=$(cd "$tmp/files" && ls | head -n 1)
for n in 1 40; do
    if "$cmp" -x $n "$tmp/files/$first" >"$tmp/log/selftest" 2>&1; then
        echo "FAIL cmp_read: one bit flipped in ncslab's value $n of $first" \
             "is not seen"
        status=1
    fi
done

# ---- compare ---------------------------------------------------------------
# expected NAME: the issue items KNOWN_FAILURES gives for NAME, or nothing
expected() {
    sed -e 's/#.*//' "$known" | awk -v n="$1" '$1 == n { $1 = ""; print }' |
        sed 's/^ *//'
}

# report NAME OK MESSAGE
report() {
    items=$(expected "$1")
    echo "$1" >>"$results"
    if [ "$2" = ok ]; then
        if [ -n "$items" ]; then
            echo "XPASS $1 (KNOWN_FAILURES: item $items): passes now;" \
                 "remove its entry"
            status=1
        else
            echo "PASS $1${3:+ ($3)}"
        fi
    elif [ -n "$items" ]; then
        echo "XFAIL $1 (item $items): $3"
    else
        echo "FAIL $1: $3"
        status=1
    fi
}

: >"$results"
for f in $(cd "$tmp/files" && ls); do
    out=$("$cmp" "$tmp/files/$f" 2>&1)
    case $? in
    0) case $out in
       ok) report "$f" ok "" ;;
       *) report "$f" ok "${out#ok: }" ;;
       esac ;;
    *) report "$f" fail "$out" ;;
    esac

    cp "$tmp/files/$f" "$tmp/modified/$f"
    cp "$tmp/files/$f" "$tmp/modified/netcdf-c_$f"
    out=$("$cmp" -m "$tmp/modified/$f" "$tmp/modified/netcdf-c_$f" 2>&1)
    rc=$?
    if [ $rc -eq 77 ]; then
        echo "SKIP $f:modified: ${out#skipped: }"
        continue
    fi
    if [ $rc -eq 0 ] && have ncdump &&
       ! ncdump "$tmp/modified/$f" >/dev/null 2>"$tmp/log/$f.ncdump"; then
        rc=1
        out="ncdump of the modified file fails:"
        out="$out $(head -n 1 "$tmp/log/$f.ncdump")"
    fi
    # classic files: the same calls must have written the same bytes
    if [ $rc -eq 0 ] &&
       [ "$(head -c 3 "$tmp/modified/$f")" = CDF ] &&
       ! cmp -s "$tmp/modified/netcdf-c_$f" "$tmp/modified/$f"; then
        rc=1
        out="the bytes differ from netCDF-C's copy: sizes $(wc -c \
            <"$tmp/modified/netcdf-c_$f") (netCDF-C), $(wc -c \
            <"$tmp/modified/$f") (ncslab); $(cmp "$tmp/modified/netcdf-c_$f" \
            "$tmp/modified/$f" 2>&1 | sed "s|^cmp: ||; s|$tmp/modified/||g" |
            head -n 1)"
    fi
    if [ $rc -eq 0 ]; then
        report "$f:modified" ok ""
    else
        report "$f:modified" fail "$out"
    fi
done

# An entry whose file this run did not make is stale when every writer
# ran (a file renamed or no longer made), and fails the test; with a
# writer missing it is only counted.
unmade=$(sed -e 's/#.*//' "$known" | awk 'NF { print $1 }' |
         grep -vxF -f "$results")
if [ -n "$unmade" ]; then
    if [ $nskipped -eq 0 ]; then
        for n in $unmade; do
            echo "FAIL $n: listed in KNOWN_FAILURES, but no such file was made"
        done
        status=1
    else
        echo "note: $(echo "$unmade" | wc -l) KNOWN_FAILURES entries not" \
             "made (writers missing)"
    fi
fi

t2=$(date +%s)
nres=$(grep -c . "$results")
echo "$nres results; writing $((t1 - t0)) s, comparing $((t2 - t1)) s"
if [ $status -ne 0 ] || [ "${NCSLAB_WRITERS_KEEP:-0}" = 1 ]; then
    echo "files kept in $tmp"
else
    rm -rf "$tmp"
fi
exit $status
