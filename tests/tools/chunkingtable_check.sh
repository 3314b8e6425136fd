#!/bin/sh
# tests/tools/chunkingtable_check.sh -- scripts/chunkingtable on a small
# variable (100 x 30 x 40), the whole chain: copybench_data writes it,
# ncslab-copy converts it into five layouts, ncslab-layout --only file
# measures each.  Times on a shared machine prove nothing, so the checks
# are on what does not depend on it: every layout measured, with the chunk
# shape asked for, and the bytes read, which show each layout's bias (a
# contiguous series reads more than a contiguous slice, one series per
# chunk the other way round, the balanced shape between the two).
# Needs netCDF-C (copybench_data); run by `make check` from the top build
# directory.
set -u
top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
status=0
fail() { echo "FAIL: $*"; status=1; }
err=$(mktemp "${TMPDIR:-/tmp}/chunkingtable_check.XXXXXX") || exit 99
out=$(NCSLAB_BUILD_DIR=$top_builddir "$srcdir/scripts/chunkingtable" --no-make --raw \
    --records 100 --lat 30 --lon 40 2>"$err") || {
    echo "FAIL: chunkingtable: $(cat "$err")"
    rm -f "$err"
    exit 1
}
rm -f "$err"
echo "$out"
# name chunks size cold_s bytes chunks (series) cold_s bytes chunks (map)
field() { echo "$out" | awk -F'\t' -v n="$1" -v f="$2" '$1 == n { print $f }'; }
[ "$(echo "$out" | grep -c .)" = 5 ] || fail "not five layouts"
[ "$(field contig3 2)" = - ] || fail "contig3 is chunked"
[ "$(field contig4 2)" = - ] || fail "contig4 is chunked"
[ "$(field maps 2)" = 1x30x40 ] || fail "maps chunks: $(field maps 2)"
[ "$(field series 2)" = 100x1x1 ] || fail "series chunks: $(field series 2)"
case $(field balanced 2) in *x*x*) ;; *) fail "balanced chunks: $(field balanced 2)" ;; esac
for n in contig3 contig4 maps; do
    [ "$(field $n 5)" -gt "$(field $n 8)" ] ||
        fail "$n: the series reads $(field $n 5) bytes, the slice $(field $n 8)"
done
[ "$(field series 5)" -lt "$(field series 8)" ] ||
    fail "one series per chunk: the series reads $(field series 5), the slice $(field series 8)"
[ "$(field series 6)" = 1 ] || fail "one series per chunk: the series touches $(field series 6) chunks"
[ "$(field maps 9)" = 1 ] || fail "one map per chunk: the slice touches $(field maps 9) chunks"
[ "$(field balanced 5)" -lt "$(field contig3 5)" ] ||
    fail "balanced series reads $(field balanced 5), contiguous $(field contig3 5)"
[ "$(field balanced 8)" -lt "$(field series 8)" ] ||
    fail "balanced slice reads $(field balanced 8), one series per chunk $(field series 8)"
exit $status
