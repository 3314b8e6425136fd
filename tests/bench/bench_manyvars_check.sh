#!/bin/sh
# tests/bench/bench_manyvars_check.sh -- a short run of bench_manyvars on files
# of 2,000 one-dimensional variables: every value both libraries read is
# checked, and in both layouts ncslab's peak memory growth while opening
# and reading must be below netCDF-C's (-t); the times are printed, not
# judged.  The full run is in doc/performance.md.
# Run by `make check` from the top build directory.
top_builddir=${top_builddir:-.}
exec "$top_builddir/tests/bench/bench_manyvars" -t -r 1 2000
