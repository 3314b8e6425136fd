#!/bin/sh
# tests/tools/check_exports.sh -- each built library exports exactly its list.
#
#   lib/.libs/libncslab.so      every defined dynamic symbol starts with ncs_,
#                               and the set is exactly lib/libncslab.sym
#   lib/.libs/libncslab_v2.so   the set is exactly lib/compat/v2/libncslab_v2.sym
#                               (netCDF's own v2 names, so no prefix rule);
#                               checked when that library was built
#   lib/.libs/libncslab_netcdf.so  the set is exactly
#                               lib/compat/v3/libncslab_netcdf.sym, and every
#                               function ncslab/netcdf.h declares is in it
#                               but those doc/v3.md lists as not provided
#
# A difference is reported as the symbols missing from the library and the
# extra ones it exports.  Run by `make check` from the top build directory;
# automake's test harness exports srcdir.  Skips (77) when no shared library
# was built (--disable-shared).
set -u

srcdir=${srcdir:-.}
top_builddir=${top_builddir:-.}
nm=${NM_DYNAMIC:-nm}

tmp=${TMPDIR:-/tmp}/check_exports.$$
mkdir "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT

status=0

# check LIBRARY LISTFILE PREFIX: PREFIX empty means no prefix rule.
check() {
    lib=$1 symfile=$2 prefix=$3
    if [ ! -f "$symfile" ]; then
        echo "FAIL: export list $symfile not found"
        status=1
        return
    fi
    # nm prints "VALUE TYPE NAME" (no VALUE for some types).  Keep every
    # defined symbol except absolute ones (A: version-node names of a
    # versioned export script), and drop a @VERSION suffix.
    if ! $nm -D --defined-only "$lib" >"$tmp/nm.out"; then
        echo "FAIL: $nm -D --defined-only $lib failed"
        status=1
        return
    fi
    awk 'NF >= 2 { type = $(NF-1); name = $NF;
                   if (type == "A" || type == "U" || type == "w" || type == "v") next;
                   sub(/@.*/, "", name); print name }' "$tmp/nm.out" |
        LC_ALL=C sort -u >"$tmp/exported"
    # The export list: one name a line; blank lines and # comments allowed.
    sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$symfile" |
        LC_ALL=C sort -u >"$tmp/expected"

    ok=1
    if [ -n "$prefix" ]; then
        bad=$(grep -v "^$prefix" "$tmp/exported")
        if [ -n "$bad" ]; then
            echo "FAIL: $lib exports symbols without the $prefix prefix:"
            echo "$bad" | sed 's/^/  /'
            ok=0
        fi
    fi
    missing=$(LC_ALL=C comm -23 "$tmp/expected" "$tmp/exported")
    if [ -n "$missing" ]; then
        echo "FAIL: listed in $symfile but not exported by $lib:"
        echo "$missing" | sed 's/^/  /'
        ok=0
    fi
    extra=$(LC_ALL=C comm -13 "$tmp/expected" "$tmp/exported")
    if [ -n "$extra" ]; then
        echo "FAIL: exported by $lib but not listed in $symfile:"
        echo "$extra" | sed 's/^/  /'
        ok=0
    fi
    n=$(wc -l <"$tmp/exported" | tr -d ' ')
    if [ $ok = 1 ]; then
        echo "PASS: $lib: $n exported symbols${prefix:+, all $prefix}, exactly $symfile"
    else
        status=1
    fi
}

lib=$top_builddir/lib/.libs/libncslab.so
if [ ! -f "$lib" ]; then
    echo "SKIP: no shared library at $lib (configured with --disable-shared?)"
    exit 77
fi
check "$lib" "$srcdir/lib/libncslab.sym" ncs_

lib=$top_builddir/lib/.libs/libncslab_par.so
if [ -f "$lib" ]; then
    check "$lib" "$srcdir/lib/libncslab_par.sym" ncs_
    # libncslab_par is libncslab and the functions of ncslab_par.h
    extra=$(LC_ALL=C comm -13 "$srcdir/lib/libncslab.sym" "$srcdir/lib/libncslab_par.sym")
    lost=$(LC_ALL=C comm -23 "$srcdir/lib/libncslab.sym" "$srcdir/lib/libncslab_par.sym")
    declared=$(sed -n 's/^int \(ncs_[a-z_]*\)(.*/\1/p' "$srcdir/include/ncslab_par.h" | LC_ALL=C sort)
    if [ -n "$lost" ] || [ "$extra" != "$declared" ]; then
        echo "FAIL: lib/libncslab_par.sym is not lib/libncslab.sym and ncslab_par.h's functions"
        status=1
    fi
fi

lib=$top_builddir/lib/.libs/libncslab_netcdf_par.so
if [ -f "$lib" ]; then
    check "$lib" "$srcdir/lib/compat/v3/libncslab_netcdf_par.sym" ""
    # the v3 library's names (whose parallel calls answer NC_ENOPAR there),
    # the five of netcdf_par.h among them
    LC_ALL=C sort "$srcdir/lib/compat/v3/libncslab_netcdf.sym" >"$tmp/v3sorted"
    LC_ALL=C sort "$srcdir/lib/compat/v3/libncslab_netcdf_par.sym" >"$tmp/v3psorted"
    sed -n 's/^int \(nc_[a-z_]*\)(.*/\1/p' "$srcdir/include/ncslab/netcdf_par.h" |
        LC_ALL=C sort >"$tmp/pardecl"
    if ! cmp -s "$tmp/v3sorted" "$tmp/v3psorted" ||
       [ -n "$(LC_ALL=C comm -23 "$tmp/pardecl" "$tmp/v3psorted")" ]; then
        echo "FAIL: libncslab_netcdf_par.sym is not libncslab_netcdf.sym with netcdf_par.h's functions"
        status=1
    fi
fi

lib=$top_builddir/lib/.libs/libncslab_v2.so
if [ -f "$lib" ]; then
    check "$lib" "$srcdir/lib/compat/v2/libncslab_v2.sym" ""
fi
lib=$top_builddir/lib/.libs/libncslab_netcdf.so
if [ -f "$lib" ]; then
    sym=$srcdir/lib/compat/v3/libncslab_netcdf.sym
    check "$lib" "$sym" ""
    # Every function of the header: gcc's list of the prototypes it saw.
    echo '#include "ncslab/netcdf.h"' >"$tmp/h.c"
    if ${CC:-cc} -I"$srcdir/include" -aux-info "$tmp/h.aux" -c "$tmp/h.c" -o "$tmp/h.o" 2>"$tmp/h.err"; then
        grep "/ncslab/netcdf.h:" "$tmp/h.aux" |
            sed -n 's/.*[ *]\([A-Za-z_][A-Za-z_0-9]*\) (.*/\1/p' | LC_ALL=C sort -u >"$tmp/declared"
        # doc/v3.md's table marks what is declared but not provided: "| `name` | no |"
        sed -n 's/^| `\([a-z_0-9]*\)` | no |.*/\1/p' "$srcdir/doc/v3.md" | LC_ALL=C sort -u >"$tmp/absent"
        LC_ALL=C comm -23 "$tmp/declared" "$tmp/absent" >"$tmp/want"
        sed -e 's/#.*//' -e '/^$/d' "$sym" | LC_ALL=C sort -u >"$tmp/have"
        missing=$(LC_ALL=C comm -23 "$tmp/want" "$tmp/have")
        if [ -n "$missing" ]; then
            echo "FAIL: declared in ncslab/netcdf.h, not in $sym nor marked absent in doc/v3.md:"
            echo "$missing" | sed 's/^/  /'
            status=1
        fi
        sed -n 's/^| `\([a-z_0-9]*\)` | [a-z]* |.*/\1/p' "$srcdir/doc/v3.md" | LC_ALL=C sort -u >"$tmp/rows"
        norow=$(LC_ALL=C comm -23 "$tmp/declared" "$tmp/rows")
        if [ -n "$norow" ]; then
            echo "FAIL: declared in ncslab/netcdf.h but without a row in doc/v3.md's table:"
            echo "$norow" | sed 's/^/  /'
            status=1
        fi
        both=$(LC_ALL=C comm -12 "$tmp/absent" "$tmp/have")
        if [ -n "$both" ]; then
            echo "FAIL: marked absent in doc/v3.md but exported:"
            echo "$both" | sed 's/^/  /'
            status=1
        fi
        echo "PASS: $(wc -l <"$tmp/declared" | tr -d ' ') functions declared, $(wc -l <"$tmp/absent" | tr -d ' ') not provided"
    else
        cat "$tmp/h.err"
        echo "FAIL: cannot compile ncslab/netcdf.h"
        status=1
    fi
fi
exit $status
