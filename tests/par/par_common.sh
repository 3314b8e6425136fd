# tests/par/par_common.sh -- sourced by the scripts of tests/par: the
# build's facts (tests/par/parenv.sh, written by make check), the settings
# OpenMPI needs on a shared or containerized machine, and
#   par_run N PROGRAM ARGS...   mpirun with N processes under a timeout
#                               (PAR_TIMEOUT seconds, default 180), so that
#                               a collective call that hangs fails the test
#                               (par_rand --redef's 40 seeds at 2 processes
#                               take 6-13 s on an idle machine of 2 cores
#                               and up to 60 s at a load of 12-14)
#   par_run_romio N PROGRAM ARGS...  par_run under ROMIO: Open MPI's
#                               ROMIO component (OMPI_MCA_io), the run
#                               skipped with a note when it has none;
#                               another MPI with its own MPI-IO as it is
#   par_seeds N                 how many random seeds a test runs: N, or a
#                               fifth of it (at least 4) under AddressSanitizer,
#                               where oversubscribed MPI runs 10-20x slower
# Skips the test (77) when the build found no mpirun.
top_builddir=${top_builddir:-.}
if [ ! -f "$top_builddir/tests/par/parenv.sh" ]; then
    echo "note: this build has no MPI (libncslab_par): skipped"
    exit 77
fi
. "$top_builddir/tests/par/parenv.sh" || exit 99
if [ -z "$MPIRUN" ]; then
    echo "note: no mpirun found by configure: skipped"
    exit 77
fi
PAR_TIMEOUT=${PAR_TIMEOUT:-180}
par_flags=
if "$MPIRUN" --version 2>&1 | grep -q "Open MPI"; then
    # More processes than cores; as root (containers, CI) OpenMPI wants
    # both ALLOW variables; no single-copy (CMA) transfers, which
    # containers often forbid.
    par_flags=--oversubscribe
    OMPI_MCA_rmaps_base_oversubscribe=1
    OMPI_MCA_btl_vader_single_copy_mechanism=none
    export OMPI_MCA_rmaps_base_oversubscribe OMPI_MCA_btl_vader_single_copy_mechanism
    if [ "$(id -u)" = 0 ]; then
        OMPI_ALLOW_RUN_AS_ROOT=1
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    fi
fi

# Under AddressSanitizer (scripts/sanitize asan sets ASAN_OPTIONS):
# OpenMPI's allocations of MPI_Init are never freed.  They are suppressed
# by tests/par/lsan_mpi.supp, which needs their stacks named: OpenMPI's
# components kept loaded (tests/par/nodlclose.c, preloaded into the MPI
# processes).
if [ -n "${ASAN_OPTIONS:-}" ]; then
    LSAN_OPTIONS=suppressions=$abs_top_srcdir/tests/par/lsan_mpi.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}
    export LSAN_OPTIONS
    if [ -n "$par_flags" ]; then
        nodlclose=$abs_top_builddir/tests/par/.libs/libnodlclose.so
        [ -f "$nodlclose" ] || { echo "FAIL: $nodlclose not built"; exit 99; }
        par_flags="$par_flags -x LD_PRELOAD=$nodlclose"
    fi
    PAR_TIMEOUT=$((PAR_TIMEOUT * 3))
    par_asan=1
fi

par_seeds() {
    if [ -n "${par_asan:-}" ]; then
        par_s=$(($1 / 5))
        [ "$par_s" -ge 4 ] || par_s=4
        echo "$par_s"
    else
        echo "$1"
    fi
}

par_run() {
    par_n=$1
    shift
    echo "+ mpirun -n $par_n $*"
    timeout "$PAR_TIMEOUT" "$MPIRUN" $par_flags -n "$par_n" "$@"
}

par_run_romio() {
    if ! "$MPIRUN" --version 2>&1 | grep -q "Open MPI"; then
        par_run "$@"
        return
    fi
    if [ -z "${par_romio_io+set}" ]; then
        par_romio_io=
        if command -v ompi_info >/dev/null 2>&1; then
            par_romio_io=$(ompi_info 2>/dev/null |
                sed -n 's/.*MCA io: \(romio[0-9]*\).*/\1/p' | head -n 1)
        fi
    fi
    if [ -z "$par_romio_io" ]; then
        echo "note: no ROMIO in this Open MPI: the run at $1 processes skipped"
        return 0
    fi
    echo "(OMPI_MCA_io=$par_romio_io)"
    OMPI_MCA_io=$par_romio_io par_run "$@"
}
