#!/bin/sh
# lib/compat/v3/rename.sh NM OBJCOPY IN OUT -- copies archive IN to OUT with
# its netCDF names (nc*, but not ncs_ or ncsi_) renamed ncsv3_*, so that a
# program can link it next to netCDF-C (Makefile.am, V3_RENAME).  Fails,
# leaving no OUT, when a netCDF name is used in IN but defined nowhere in
# it: that call would bind to netCDF-C's.
set -e
nm=$1 objcopy=$2 in=$3 out=$4
$nm -g --defined-only "$in" |
    awk 'NF >= 3 && $NF ~ /^nc/ && $NF !~ /^ncsi?_/ { print $NF, "ncsv3_" $NF }' |
    LC_ALL=C sort -u >"$out.map"
$objcopy --redefine-syms="$out.map" "$in" "$out.tmp"
if $nm -u "$out.tmp" | awk '$NF ~ /^nc/ && $NF !~ /^(ncsi?_|ncsv3_)/ { print; bad = 1 } END { exit !bad }'; then
    echo "$out: netCDF names used but not defined by the v3 layer (above)" >&2
    rm -f "$out.tmp"
    exit 1
fi
mv "$out.tmp" "$out"
