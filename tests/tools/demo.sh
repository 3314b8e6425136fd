#!/bin/sh
# tests/tools/demo.sh -- runs doc/examples/demo for CDF-1, CDF-2 and CDF-5.
#
# The demo verifies every value it reads back and exits non-zero on a
# mismatch.  When netCDF-C's ncdump is on PATH, each file is also read with
# it: its format must be the one asked for and the data must dump.
# Run by `make check` from the top build directory.
set -u

top_builddir=${top_builddir:-.}
demo=$top_builddir/doc/examples/demo
status=0

if command -v ncdump >/dev/null 2>&1; then
    have_ncdump=1
else
    have_ncdump=0
    echo "note: ncdump not found, netCDF-C cross-check skipped"
fi

for fmt in 1 2 5; do
    file=ncslab_demo_cdf$fmt.nc
    rm -f "$file"
    echo "== demo $file $fmt"
    if ! "$demo" "$file" "$fmt"; then
        echo "FAIL: demo for CDF-$fmt"
        status=1
        continue
    fi
    [ $have_ncdump = 1 ] || continue
    case $fmt in
        1) want="classic" ;;
        2) want="64-bit offset" ;;
        5) want="cdf5" ;;
    esac
    kind=$(ncdump -k "$file" 2>&1)
    if [ "$kind" != "$want" ]; then
        echo "FAIL: ncdump -k $file says '$kind', want '$want'"
        status=1
    fi
    if ! ncdump "$file" >"$file.cdl" 2>&1; then
        echo "FAIL: ncdump cannot read $file:"
        cat "$file.cdl"
        status=1
    elif ! grep -q '10000, 10001, 10002' "$file.cdl"; then
        echo "FAIL: ncdump of $file does not show the first temp values:"
        cat "$file.cdl"
        status=1
    else
        echo "ncdump reads $file ($kind)"
    fi
    rm -f "$file.cdl"
done
exit $status
