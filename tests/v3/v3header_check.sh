#!/bin/sh
# tests/v3/v3header_check.sh -- ncslab/netcdf.h against netCDF-C's netcdf.h:
#   - every macro netCDF-C's header defines is defined by ours, with the
#     same value (numbers compared as printed by the same program built
#     against each header, strings as strings, macros with no value or with
#     parameters for presence);
#   - every function netCDF-C's header declares is declared by ours with
#     the same prototype (gcc's -aux-info list of each).
# Skips (77) when netCDF-C's header cannot be found or the compiler is not
# gcc.  Run by `make check`; automake's test harness exports srcdir.
set -u
srcdir=${srcdir:-.}
cc=${CC:-cc}
ncflags=${NETCDF_CFLAGS:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/v3header.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

echo '#include <netcdf.h>' >"$tmp/nc.c"
hdr=$($cc $ncflags -E "$tmp/nc.c" 2>/dev/null | sed -n 's/^# [0-9]* "\(.*\/netcdf\.h\)".*/\1/p' | head -n 1)
if [ -z "$hdr" ] || [ ! -f "$hdr" ]; then
    echo "SKIP: netCDF-C's netcdf.h not found"
    exit 77
fi
echo "netCDF-C's header: $hdr"

# ---- macros -----------------------------------------------------------------
$cc $ncflags -E -dM "$tmp/nc.c" >"$tmp/nc.dm" || { fail "cannot preprocess $hdr"; exit 1; }
sed -n 's/^[[:space:]]*#[[:space:]]*define[[:space:]]\{1,\}\([A-Za-z_][A-Za-z_0-9]*\).*/\1/p' "$hdr" |
    LC_ALL=C sort -u >"$tmp/names"
{
    echo '#include <stdio.h>'
    echo '#include HEADER'
    echo 'int main(void) {'
    while read -r m; do
        line=$(grep "^#define $m[ (]" "$tmp/nc.dm" | head -n 1)
        if [ -z "$line" ]; then
            line=$(grep "^#define $m\$" "$tmp/nc.dm" | head -n 1)
        fi
        [ -n "$line" ] || continue   # defined only on other platforms
        value=${line#"#define $m"}
        case $value in '('*) value='()' ;; esac   # with parameters
        value=$(printf '%s' "$value" | sed 's/^[[:space:]]*//')
        case $m in EXTERNL|MSC_EXTRA) value= ;; esac
        case $value in
        '()'|'') # with parameters, or empty: presence only
            printf '#ifdef %s\n    puts("%s defined");\n#else\n    puts("%s missing");\n#endif\n' "$m" "$m" "$m" ;;
        *'"'*)
            printf '#ifdef %s\n    printf("%s = \\"%%s\\"\\n", (const char *)(%s));\n#else\n    puts("%s missing");\n#endif\n' "$m" "$m" "$m" "$m" ;;
        *)
            printf '#ifdef %s\n    printf("%s = %%.21Lg\\n", (long double)(%s));\n#else\n    puts("%s missing");\n#endif\n' "$m" "$m" "$m" "$m" ;;
        esac
    done <"$tmp/names"
    echo 'return 0; }'
} >"$tmp/values.c"
n=$(wc -l <"$tmp/names" | tr -d ' ')
$cc $ncflags -DHEADER='<netcdf.h>' -o "$tmp/nc_values" "$tmp/values.c" || fail "cannot build the netCDF-C value printer"
$cc -I"$srcdir/include" -DHEADER='"ncslab/netcdf.h"' -o "$tmp/ncs_values" "$tmp/values.c" ||
    fail "cannot build the ncslab value printer"
if [ $status -eq 0 ]; then
    "$tmp/nc_values" >"$tmp/nc.out"
    "$tmp/ncs_values" >"$tmp/ncs.out"
    if diff "$tmp/nc.out" "$tmp/ncs.out" >"$tmp/diff"; then
        echo "PASS: $(wc -l <"$tmp/nc.out" | tr -d ' ') macros of $n names, same values"
    else
        cat "$tmp/diff"
        fail "macros differ (< netCDF-C, > ncslab)"
    fi
fi

# ---- prototypes ----------------------------------------------------------------
if $cc --version 2>/dev/null | grep -qi 'gcc\|free software'; then
    echo '#include "ncslab/netcdf.h"' >"$tmp/ncs.c"
    $cc $ncflags -aux-info "$tmp/nc.aux" -c "$tmp/nc.c" -o "$tmp/nc.o" &&
        $cc -I"$srcdir/include" -aux-info "$tmp/ncs.aux" -c "$tmp/ncs.c" -o "$tmp/ncs.o" ||
        fail "cannot list prototypes"
    for f in nc ncs; do
        grep '/netcdf\.h:' "$tmp/$f.aux" | sed -e 's|^/\*[^*]*\*/ ||' -e 's/long int/long/g' \
            -e 's/^extern //' | LC_ALL=C sort -u >"$tmp/$f.protos"
    done
    missing=$(LC_ALL=C comm -23 "$tmp/nc.protos" "$tmp/ncs.protos")
    if [ -n "$missing" ]; then
        echo "$missing" | sed 's/^/  /'
        fail "prototypes of netCDF-C's header missing or different in ncslab/netcdf.h"
    else
        echo "PASS: $(wc -l <"$tmp/nc.protos" | tr -d ' ') prototypes, all declared alike"
    fi
else
    echo "note: not gcc, prototypes not compared"
fi
# ---- the companion headers ------------------------------------------------------
# netcdf_filter.h and netcdf_mem.h: every macro with netCDF-C's value and
# every prototype alike; netcdf_meta.h: every macro defined (its values say
# what each library provides, so they differ).
for h in netcdf_filter netcdf_mem netcdf_meta; do
    printf '#include <netcdf.h>\n#include <%s.h>\n' $h >"$tmp/c_nc.c"
    printf '#include "ncslab/netcdf.h"\n#include "ncslab/%s.h"\n' $h >"$tmp/c_ncs.c"
    if ! $cc $ncflags -E "$tmp/c_nc.c" >/dev/null 2>&1; then
        echo "note: netCDF-C has no $h.h, not compared"
        continue
    fi
    chdr=$($cc $ncflags -E "$tmp/c_nc.c" | sed -n "s/^# [0-9]* \"\(.*\/$h\.h\)\".*/\1/p" | head -n 1)
    names=$(sed -n 's/^[[:space:]]*#[[:space:]]*define[[:space:]]\{1,\}\([A-Za-z_][A-Za-z_0-9]*\).*/\1/p' "$chdr" | LC_ALL=C sort -u)
    {
        echo '#include <stdio.h>'
        echo "#include HEADER1"
        echo "#include HEADER2"
        echo 'int main(void) {'
        for m in $names; do
            if [ $h = netcdf_meta ]; then
                printf '#ifdef %s\n    puts("%s defined");\n#else\n    puts("%s missing");\n#endif\n' "$m" "$m" "$m"
            else
                printf '#ifdef %s\n    printf("%s = %%.21Lg\\n", (long double)(%s + 0));\n#else\n    puts("%s missing");\n#endif\n' "$m" "$m" "$m" "$m"
            fi
        done
        echo 'return 0; }'
    } >"$tmp/c_values.c"
    # include guards have no value: presence only for them
    sed -i 's/(long double)(\(NETCDF_[A-Z_]*_H\) + 0)/(long double)(1)/' "$tmp/c_values.c"
    if $cc $ncflags -DHEADER1='<netcdf.h>' -DHEADER2="<$h.h>" -o "$tmp/c_nc" "$tmp/c_values.c" &&
       $cc -I"$srcdir/include" -DHEADER1='"ncslab/netcdf.h"' -DHEADER2="\"ncslab/$h.h\"" \
           -o "$tmp/c_ncs" "$tmp/c_values.c"; then
        "$tmp/c_nc" >"$tmp/c_nc.out"
        "$tmp/c_ncs" >"$tmp/c_ncs.out"
        if diff "$tmp/c_nc.out" "$tmp/c_ncs.out"; then
            echo "PASS: $h.h: $(wc -l <"$tmp/c_nc.out" | tr -d ' ') macros alike"
        else
            fail "$h.h: macros differ (< netCDF-C, > ncslab)"
        fi
    else
        fail "$h.h: cannot build the macro printers"
    fi
    if $cc --version 2>/dev/null | grep -qi 'gcc\|free software'; then
        $cc $ncflags -aux-info "$tmp/c_nc.aux" -c "$tmp/c_nc.c" -o "$tmp/c_nc.o" &&
            $cc -I"$srcdir/include" -aux-info "$tmp/c_ncs.aux" -c "$tmp/c_ncs.c" -o "$tmp/c_ncs.o"
        for f in c_nc c_ncs; do
            grep "/$h\.h:" "$tmp/$f.aux" | sed -e 's|^/\*[^*]*\*/ ||' -e 's/long int/long/g' \
                -e 's/^extern //' | LC_ALL=C sort -u >"$tmp/$f.protos"
        done
        missing=$(LC_ALL=C comm -23 "$tmp/c_nc.protos" "$tmp/c_ncs.protos")
        if [ -n "$missing" ]; then
            echo "$missing" | sed 's/^/  /'
            fail "$h.h: prototypes missing or different"
        else
            echo "PASS: $h.h: $(wc -l <"$tmp/c_nc.protos" | tr -d ' ') prototypes alike"
        fi
    fi
done
exit $status
