#!/bin/sh
# check_crash_chunked.sh -- the SIGKILL test of check_crash on the chunked
# (NCS_NETCDF4|NCS_CLASSIC_MODEL, HDF5) layout, a test of its own because
# HDF5 does not promise what the classic back end does; see
# doc/reliability.md for its measured failure rate.
exec ./nctest/check_crash chunked
