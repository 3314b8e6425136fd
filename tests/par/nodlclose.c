/* tests/par/nodlclose.c -- a dlclose that keeps every library loaded,
 * preloaded into the MPI test programs of a sanitizer build
 * (tests/par/par_common.sh).  OpenMPI loads its components with dlopen
 * and never frees what they allocate at MPI_Init; it unloads them at
 * MPI_Finalize, before LeakSanitizer walks the leaks, whose stacks then
 * name no module and match no suppression.  Kept loaded, the components
 * are named (mca_*.so) and tests/par/lsan_mpi.supp can suppress them,
 * while a leak of ncslab's own stays reported. */
int dlclose(void *handle);

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
