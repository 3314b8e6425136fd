#!/bin/sh
# tests/bench/copybench_check.sh -- scripts/copybench in its short mode, as
# a correctness smoke test: small inputs, one run of each conversion by
# ncslab-copy, nccopy and (for the rechunking) h5repack, every output's
# values compared with the input's through netCDF-C, and the rechunking
# within the memory budget run too.  A wrong value or a failed conversion
# fails the test; the times are printed, not judged.  Skips without
# nccopy, /usr/bin/time or bc.
# Run by `make check` from the top build directory.
top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
for tool in nccopy /usr/bin/time bc; do
    command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool not found"; exit 77; }
done
NCSLAB_BUILD_DIR=$(cd "$top_builddir" && pwd) exec "$srcdir/scripts/copybench" --short --no-make
