#!/bin/sh
# tests/dropin/identity-run.sh -- for developing clients_check.sh only:
# a stand-in for the drop-in wrapper (ncslab-run) that runs the command
# unchanged, so both runs of every comparison use netCDF-C and every
# comparison must pass.  Not a test of ncslab:
#   NCSLAB_RUN=tests/dropin/identity-run.sh tests/dropin/clients_check.sh
exec "$@"
