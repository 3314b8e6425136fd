/*
 * repro_nc4_meta.c -- minimal reproductions of the nc4_meta.c findings of
 * the fuzz_nc4 campaign (see README.md in this directory).
 *
 *   repro_nc4_meta class-array   stack-buffer-overflow in text_att_value()
 *   repro_nc4_meta dim-leak      dimension names leak when ncs_open fails
 *   repro_nc4_meta fletcher      a filter after Fletcher-32: HDF5's own read
 *                                (ncslab's fallback path) crashes
 *   repro_nc4_meta uninit        ncs_get returns uninitialised heap memory
 *                                (fallback path, fill time "never")
 *
 * Build against a built tree (ASan shows both; valgrind the second):
 *   clang -g -fsanitize=address -I include -I/usr/include/hdf5/serial \
 *     tests/fuzz/pending/repro_nc4_meta.c _build/lib/.libs/libncslab.so \
 *     -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5_hl -lhdf5
 */
#include "ncslab.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <stdio.h>
#include <string.h>

static hid_t dataset(hid_t fid, const char *name, hsize_t len, hsize_t max)
{
    hid_t space = H5Screate_simple(1, &len, &max), dcpl = H5Pcreate(H5P_DATASET_CREATE), ds;
    hsize_t ch = 1;
    if (max == H5S_UNLIMITED)
        H5Pset_chunk(dcpl, 1, &ch);
    ds = H5Dcreate2(fid, name, H5T_NATIVE_FLOAT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    return ds;
}

int main(int argc, char **argv)
{
    const char *path = "repro_nc4_meta.nc", *what = argc > 1 ? argv[1] : "class-array";
    hid_t fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), ds;
    int ncid, st;
    if (strcmp(what, "class-array") == 0) {
        /* CLASS = 40 strings of 16 bytes: H5Aread writes 640 bytes into
         * text_att_value's 128-byte stack buffer (only the size of ONE
         * string is checked against it) */
        hsize_t n = 40;
        char buf[40][16];
        hid_t t = H5Tcopy(H5T_C_S1), space = H5Screate_simple(1, &n, NULL), a;
        H5Tset_size(t, 16);
        for (int i = 0; i < 40; i++)
            strncpy(buf[i], "DIMENSION_SCALE", 16);
        ds = dataset(fid, "x", 4, 4);
        a = H5Acreate2(ds, "CLASS", t, space, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, t, buf);
        H5Aclose(a);
        H5Sclose(space);
        H5Tclose(t);
        H5Dclose(ds);
    } else if (strcmp(what, "uninit") == 0) {
        /* contiguous layout (ncslab's fallback path) with fill time "never",
         * nothing written: H5Dread leaves fallback()'s malloc'd buffer as
         * it was, and ncs_get copies it out */
        hsize_t n = 64;
        hid_t space = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_layout(dcpl, H5D_CONTIGUOUS);
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
        ds = H5Dcreate2(fid, "v", H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5DSset_scale(ds, "v");
        H5Dclose(ds);
        H5Pclose(dcpl);
        H5Sclose(space);
    } else if (strcmp(what, "fletcher") == 0) {
        /* Fletcher-32 then N-bit and scale-offset: the pipeline ncslab does not run itself
         * (N-bit is unknown to it), so ncs_get goes to H5Dread, which
         * crashes in H5_checksum_fletcher32 (HDF5 1.10.8; h5dump too) */
        hsize_t n = 1, ch = 1;
        int v[4] = { 1, 2, 3, 4 };
        hid_t space = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 1, &ch);
        H5Pset_fletcher32(dcpl);
        H5Pset_nbit(dcpl);
        H5Pset_scaleoffset(dcpl, H5Z_SO_INT, H5Z_SO_INT_MINBITS_DEFAULT);
        ds = H5Dcreate2(fid, "v", H5T_STD_I16BE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
        H5DSset_scale(ds, "v");            /* a coordinate variable */
        H5Dclose(ds);
        H5Pclose(dcpl);
        H5Sclose(space);
    } else {
        /* two unlimited dimension scales: ncsi_nc4_read fails with
         * NCS_ENOTNC after strdup-ing the first's name into m->dims[], but
         * m->ndims is still 0, so ncsi_model_free does not free it */
        hid_t a = dataset(fid, "t1", 0, H5S_UNLIMITED), b = dataset(fid, "t2", 0, H5S_UNLIMITED);
        H5DSset_scale(a, "t1");
        H5DSset_scale(b, "t2");
        H5Dclose(a);
        H5Dclose(b);
    }
    H5Fclose(fid);
    st = ncs_open(path, NCS_NOWRITE, &ncid);
    printf("%s: ncs_open -> %d (%s)\n", what, st, ncs_strerror(st));
    if (st == NCS_NOERR) {
        int v[64];
        if (strcmp(what, "fletcher") == 0 || strcmp(what, "uninit") == 0) {
            st = ncs_get(ncid, 0, NULL, NULL, NULL, NULL, NCS_INT, v);
            printf("%s: ncs_get -> %d, v[0] = %d (run under valgrind)\n", what, st, v[0]);
        }
        ncs_close(ncid);
    }
    remove(path);
    return 0;
}
