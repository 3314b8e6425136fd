#!/bin/sh
# tests/bench/scanbench_check.sh -- a short run of the row-major scan
# benchmark without GVRS: every ncslab engine and the memory floor write a
# 250 x 370 grid (not a multiple of the 120 x 180 chunks, so partial edge
# chunks are read), every cell is compared with the terrain, and the sum
# of each of the 2 passes is checked; a wrong value or a failed call fails
# the test.  The times are printed, not judged.
# Run by `make check` from the top build directory.
top_builddir=${top_builddir:-.}
exec "$top_builddir/tests/bench/scanbench" --size 250x370 --passes 2
