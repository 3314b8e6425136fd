/*
 * h5_load.h -- the folder calls HDF5 through a table of pointers that
 * h5_load.c fills from HDF5's shared libraries (dlopen) on the first
 * netCDF-4 open or create, so that a program that only ever uses classic
 * files never maps HDF5, nor the libraries HDF5 itself needs (libcurl,
 * OpenSSL, libsz, ...).  hdf5_store.h includes this after <hdf5.h> and
 * <hdf5_hl.h>; every HDF5 name the folder uses is a macro below that reads
 * the table, so call sites keep HDF5's own spelling.
 *
 * Adding an HDF5 call: its name in the list of the library that defines it
 * and its line in the redirections.  A redirection without an entry does
 * not compile; a call with no redirection (listed or not) leaves its HDF5
 * symbol undefined in libncslab.so, so that linking a program with it
 * fails, and tests/tools/lazyh5_check.sh rejects the library.
 * h5_load.c includes this with NCSI_H5_NO_REDIRECT: it names HDF5's
 * symbols as strings, and C stringifies a macro argument unexpanded but
 * some analysers (cppcheck) expand it first.
 *
 * HDF5 macros such as H5T_NATIVE_INT and H5P_FILE_ACCESS read data symbols
 * (H5T_NATIVE_INT_g, H5P_CLS_FILE_ACCESS_ID_g) after calling H5open(): the
 * data symbols are in the table too, as pointers to HDF5's variables.
 *
 * Invariant: the table is filled, and HDF5 initialised, before any HDF5
 * call: every path into HDF5 starts at ncsi_nc4_create or ncsi_nc4_open,
 * which call ncsi_nc4_init (h5_load.c) first, and a file of this store
 * exists only after one of them succeeded.
 */
#ifndef NCS_H5_LOAD_H
#define NCS_H5_LOAD_H

#if H5_VERS_MAJOR != 1 || H5_VERS_MINOR < 10 || (H5_VERS_MINOR == 10 && H5_VERS_RELEASE < 3)
#error "HDF5 1.10.3 or later is required"
#endif

/* The chunk-index inquiries came with HDF5 1.10.5; with older headers
 * ncs_inq_var_chunks is NCS_ENOTBUILT (a library loaded is never older
 * than the headers, h5_load.c). */
#if H5_VERSION_GE(1, 10, 5)
#define NCSI_H5_CHUNK_INFO 1
#define NCSI_H5_CHUNK_INFO_FUNCS(X) \
    X(H5Dget_chunk_info) \
    X(H5Dget_chunk_info_by_coord) \
    X(H5Dget_num_chunks)
#else
#define NCSI_H5_CHUNK_INFO 0
#define NCSI_H5_CHUNK_INFO_FUNCS(X)
#endif

/* HDF5's library: functions, then data. */
#define NCSI_H5_FUNCS(X) \
    NCSI_H5_CHUNK_INFO_FUNCS(X) \
    X(H5open) \
    X(H5get_libversion) \
    X(H5Eset_auto2) \
    X(H5Aclose) \
    X(H5Acreate2) \
    X(H5Adelete) \
    X(H5Aexists) \
    X(H5Aget_space) \
    X(H5Aget_type) \
    X(H5Aiterate2) \
    X(H5Aopen) \
    X(H5Aread) \
    X(H5Awrite) \
    X(H5Dclose) \
    X(H5Dcreate2) \
    X(H5Dget_chunk_storage_size) \
    X(H5Dget_create_plist) \
    X(H5Dget_space) \
    X(H5Dget_space_status) \
    X(H5Dget_type) \
    X(H5Dopen2) \
    X(H5Dread) \
    X(H5Dread_chunk) \
    X(H5Dset_extent) \
    X(H5Dwrite) \
    X(H5Dwrite_chunk) \
    X(H5FDregister) \
    X(H5Fclose) \
    X(H5Fcreate) \
    X(H5Fflush) \
    X(H5Fget_create_plist) \
    X(H5Fget_info2) \
    X(H5Fget_vfd_handle) \
    X(H5Fopen) \
    X(H5Ldelete) \
    X(H5Lexists) \
    X(H5Literate) \
    X(H5Lmove) \
    X(H5Oget_info2) \
    X(H5Oget_info_by_name2) \
    X(H5Pclose) \
    X(H5Pcreate) \
    X(H5Pget_chunk) \
    X(H5Pget_filter2) \
    X(H5Pfill_value_defined) \
    X(H5Pget_fill_time) \
    X(H5Pget_layout) \
    X(H5Pget_mdc_config) \
    X(H5Pget_nfilters) \
    X(H5Pget_sizes) \
    X(H5Pget_userblock) \
    X(H5Pset_attr_creation_order) \
    X(H5Pset_chunk) \
    X(H5Pset_chunk_cache) \
    X(H5Pset_deflate) \
    X(H5Pset_driver) \
    X(H5Pset_fclose_degree) \
    X(H5Pset_fill_time) \
    X(H5Pset_fill_value) \
    X(H5Pset_filter) \
    X(H5Pset_fletcher32) \
    X(H5Pset_libver_bounds) \
    X(H5Pset_link_creation_order) \
    X(H5Pset_mdc_config) \
    X(H5Pset_shuffle) \
    X(H5Sclose) \
    X(H5Screate) \
    X(H5Screate_simple) \
    X(H5Sget_select_npoints) \
    X(H5Sget_simple_extent_dims) \
    X(H5Sget_simple_extent_ndims) \
    X(H5Sget_simple_extent_npoints) \
    X(H5Sget_simple_extent_type) \
    X(H5Sselect_hyperslab) \
    X(H5Tclose) \
    X(H5Tcopy) \
    X(H5Tget_class) \
    X(H5Tget_order) \
    X(H5Tget_sign) \
    X(H5Tget_size) \
    X(H5Tis_variable_str) \
    X(H5Tset_order) \
    X(H5Tset_cset) \
    X(H5Tset_size) \
    X(H5Tset_strpad)

#define NCSI_H5_DATA(X) \
    X(H5P_CLS_DATASET_ACCESS_ID_g) \
    X(H5P_CLS_DATASET_CREATE_ID_g) \
    X(H5P_CLS_FILE_ACCESS_ID_g) \
    X(H5P_CLS_FILE_CREATE_ID_g) \
    X(H5T_C_S1_g) \
    X(H5T_IEEE_F32BE_g) \
    X(H5T_NATIVE_DOUBLE_g) \
    X(H5T_NATIVE_FLOAT_g) \
    X(H5T_NATIVE_INT_g) \
    X(H5T_NATIVE_LLONG_g) \
    X(H5T_NATIVE_SCHAR_g) \
    X(H5T_NATIVE_SHORT_g) \
    X(H5T_NATIVE_UCHAR_g) \
    X(H5T_NATIVE_UINT_g) \
    X(H5T_NATIVE_ULLONG_g) \
    X(H5T_NATIVE_USHORT_g)

/* HDF5's high-level library (dimension scales). */
#define NCSI_H5_HL_FUNCS(X) \
    X(H5DSattach_scale) \
    X(H5DSdetach_scale) \
    X(H5DSis_attached) \
    X(H5DSiterate_scales) \
    X(H5DSset_scale)

#define NCSI_H5_FIELD(name) __typeof__(name) *p_##name;
struct ncsi_h5_table {
    NCSI_H5_FUNCS(NCSI_H5_FIELD)
    NCSI_H5_DATA(NCSI_H5_FIELD)
    NCSI_H5_HL_FUNCS(NCSI_H5_FIELD)
};
#undef NCSI_H5_FIELD
extern struct ncsi_h5_table ncsi_h5;

/* Loads and initialises HDF5, once per process (later calls return the
 * first one's result): NCS_NOERR; NCS_ENOTBUILT when HDF5's libraries
 * cannot be loaded, are not the release series ncslab was built with, or
 * lack a symbol ncslab calls; NCS_EHDFERR when HDF5 fails to initialise. */
int ncsi_nc4_init(void);

/* HDF5's file-access macros call H5check(), which aborts the process when
 * the library loaded is not exactly the release of the headers.
 * ncsi_nc4_init makes its own check instead, and fails with an error. */
#undef H5CHECK
#define H5CHECK

#ifndef NCSI_H5_NO_REDIRECT
#define NCSI_H5_USE(name) (*ncsi_h5.p_##name)
#define H5open NCSI_H5_USE(H5open)
#define H5get_libversion NCSI_H5_USE(H5get_libversion)
#define H5Eset_auto2 NCSI_H5_USE(H5Eset_auto2)
#define H5Aclose NCSI_H5_USE(H5Aclose)
#define H5Acreate2 NCSI_H5_USE(H5Acreate2)
#define H5Adelete NCSI_H5_USE(H5Adelete)
#define H5Aexists NCSI_H5_USE(H5Aexists)
#define H5Aget_space NCSI_H5_USE(H5Aget_space)
#define H5Aget_type NCSI_H5_USE(H5Aget_type)
#define H5Aiterate2 NCSI_H5_USE(H5Aiterate2)
#define H5Aopen NCSI_H5_USE(H5Aopen)
#define H5Aread NCSI_H5_USE(H5Aread)
#define H5Awrite NCSI_H5_USE(H5Awrite)
#define H5Dclose NCSI_H5_USE(H5Dclose)
#define H5Dcreate2 NCSI_H5_USE(H5Dcreate2)
#if NCSI_H5_CHUNK_INFO
#define H5Dget_chunk_info NCSI_H5_USE(H5Dget_chunk_info)
#define H5Dget_chunk_info_by_coord NCSI_H5_USE(H5Dget_chunk_info_by_coord)
#define H5Dget_num_chunks NCSI_H5_USE(H5Dget_num_chunks)
#endif
#define H5Dget_chunk_storage_size NCSI_H5_USE(H5Dget_chunk_storage_size)
#define H5Dget_create_plist NCSI_H5_USE(H5Dget_create_plist)
#define H5Dget_space NCSI_H5_USE(H5Dget_space)
#define H5Dget_space_status NCSI_H5_USE(H5Dget_space_status)
#define H5Dget_type NCSI_H5_USE(H5Dget_type)
#define H5Dopen2 NCSI_H5_USE(H5Dopen2)
#define H5Dread NCSI_H5_USE(H5Dread)
#define H5Dread_chunk NCSI_H5_USE(H5Dread_chunk)
#define H5Dset_extent NCSI_H5_USE(H5Dset_extent)
#define H5Dwrite NCSI_H5_USE(H5Dwrite)
#define H5Dwrite_chunk NCSI_H5_USE(H5Dwrite_chunk)
#define H5FDregister NCSI_H5_USE(H5FDregister)
#define H5Fclose NCSI_H5_USE(H5Fclose)
#define H5Fcreate NCSI_H5_USE(H5Fcreate)
#define H5Fflush NCSI_H5_USE(H5Fflush)
#define H5Fget_create_plist NCSI_H5_USE(H5Fget_create_plist)
#define H5Fget_info2 NCSI_H5_USE(H5Fget_info2)
#define H5Fget_vfd_handle NCSI_H5_USE(H5Fget_vfd_handle)
#define H5Fopen NCSI_H5_USE(H5Fopen)
#define H5Ldelete NCSI_H5_USE(H5Ldelete)
#define H5Lexists NCSI_H5_USE(H5Lexists)
#define H5Literate NCSI_H5_USE(H5Literate)
#define H5Lmove NCSI_H5_USE(H5Lmove)
#define H5Oget_info2 NCSI_H5_USE(H5Oget_info2)
#define H5Oget_info_by_name2 NCSI_H5_USE(H5Oget_info_by_name2)
#define H5Pclose NCSI_H5_USE(H5Pclose)
#define H5Pcreate NCSI_H5_USE(H5Pcreate)
#define H5Pget_chunk NCSI_H5_USE(H5Pget_chunk)
#define H5Pget_filter2 NCSI_H5_USE(H5Pget_filter2)
#define H5Pfill_value_defined NCSI_H5_USE(H5Pfill_value_defined)
#define H5Pget_fill_time NCSI_H5_USE(H5Pget_fill_time)
#define H5Pget_layout NCSI_H5_USE(H5Pget_layout)
#define H5Pget_mdc_config NCSI_H5_USE(H5Pget_mdc_config)
#define H5Pget_nfilters NCSI_H5_USE(H5Pget_nfilters)
#define H5Pget_sizes NCSI_H5_USE(H5Pget_sizes)
#define H5Pget_userblock NCSI_H5_USE(H5Pget_userblock)
#define H5Pset_attr_creation_order NCSI_H5_USE(H5Pset_attr_creation_order)
#define H5Pset_chunk NCSI_H5_USE(H5Pset_chunk)
#define H5Pset_chunk_cache NCSI_H5_USE(H5Pset_chunk_cache)
#define H5Pset_deflate NCSI_H5_USE(H5Pset_deflate)
#define H5Pset_driver NCSI_H5_USE(H5Pset_driver)
#define H5Pset_fclose_degree NCSI_H5_USE(H5Pset_fclose_degree)
#define H5Pset_fill_time NCSI_H5_USE(H5Pset_fill_time)
#define H5Pset_fill_value NCSI_H5_USE(H5Pset_fill_value)
#define H5Pset_filter NCSI_H5_USE(H5Pset_filter)
#define H5Pset_fletcher32 NCSI_H5_USE(H5Pset_fletcher32)
#define H5Pset_libver_bounds NCSI_H5_USE(H5Pset_libver_bounds)
#define H5Pset_link_creation_order NCSI_H5_USE(H5Pset_link_creation_order)
#define H5Pset_mdc_config NCSI_H5_USE(H5Pset_mdc_config)
#define H5Pset_shuffle NCSI_H5_USE(H5Pset_shuffle)
#define H5Sclose NCSI_H5_USE(H5Sclose)
#define H5Screate NCSI_H5_USE(H5Screate)
#define H5Screate_simple NCSI_H5_USE(H5Screate_simple)
#define H5Sget_select_npoints NCSI_H5_USE(H5Sget_select_npoints)
#define H5Sget_simple_extent_dims NCSI_H5_USE(H5Sget_simple_extent_dims)
#define H5Sget_simple_extent_ndims NCSI_H5_USE(H5Sget_simple_extent_ndims)
#define H5Sget_simple_extent_npoints NCSI_H5_USE(H5Sget_simple_extent_npoints)
#define H5Sget_simple_extent_type NCSI_H5_USE(H5Sget_simple_extent_type)
#define H5Sselect_hyperslab NCSI_H5_USE(H5Sselect_hyperslab)
#define H5Tclose NCSI_H5_USE(H5Tclose)
#define H5Tcopy NCSI_H5_USE(H5Tcopy)
#define H5Tget_class NCSI_H5_USE(H5Tget_class)
#define H5Tget_order NCSI_H5_USE(H5Tget_order)
#define H5Tget_sign NCSI_H5_USE(H5Tget_sign)
#define H5Tget_size NCSI_H5_USE(H5Tget_size)
#define H5Tset_order NCSI_H5_USE(H5Tset_order)
#define H5Tis_variable_str NCSI_H5_USE(H5Tis_variable_str)
#define H5Tset_cset NCSI_H5_USE(H5Tset_cset)
#define H5Tset_size NCSI_H5_USE(H5Tset_size)
#define H5Tset_strpad NCSI_H5_USE(H5Tset_strpad)
#define H5P_CLS_DATASET_ACCESS_ID_g NCSI_H5_USE(H5P_CLS_DATASET_ACCESS_ID_g)
#define H5P_CLS_DATASET_CREATE_ID_g NCSI_H5_USE(H5P_CLS_DATASET_CREATE_ID_g)
#define H5P_CLS_FILE_ACCESS_ID_g NCSI_H5_USE(H5P_CLS_FILE_ACCESS_ID_g)
#define H5P_CLS_FILE_CREATE_ID_g NCSI_H5_USE(H5P_CLS_FILE_CREATE_ID_g)
#define H5T_C_S1_g NCSI_H5_USE(H5T_C_S1_g)
#define H5T_IEEE_F32BE_g NCSI_H5_USE(H5T_IEEE_F32BE_g)
#define H5T_NATIVE_DOUBLE_g NCSI_H5_USE(H5T_NATIVE_DOUBLE_g)
#define H5T_NATIVE_FLOAT_g NCSI_H5_USE(H5T_NATIVE_FLOAT_g)
#define H5T_NATIVE_INT_g NCSI_H5_USE(H5T_NATIVE_INT_g)
#define H5T_NATIVE_LLONG_g NCSI_H5_USE(H5T_NATIVE_LLONG_g)
#define H5T_NATIVE_SCHAR_g NCSI_H5_USE(H5T_NATIVE_SCHAR_g)
#define H5T_NATIVE_SHORT_g NCSI_H5_USE(H5T_NATIVE_SHORT_g)
#define H5T_NATIVE_UCHAR_g NCSI_H5_USE(H5T_NATIVE_UCHAR_g)
#define H5T_NATIVE_UINT_g NCSI_H5_USE(H5T_NATIVE_UINT_g)
#define H5T_NATIVE_ULLONG_g NCSI_H5_USE(H5T_NATIVE_ULLONG_g)
#define H5T_NATIVE_USHORT_g NCSI_H5_USE(H5T_NATIVE_USHORT_g)
#define H5DSattach_scale NCSI_H5_USE(H5DSattach_scale)
#define H5DSdetach_scale NCSI_H5_USE(H5DSdetach_scale)
#define H5DSis_attached NCSI_H5_USE(H5DSis_attached)
#define H5DSiterate_scales NCSI_H5_USE(H5DSiterate_scales)
#define H5DSset_scale NCSI_H5_USE(H5DSset_scale)
#endif /* NCSI_H5_NO_REDIRECT */

#endif /* NCS_H5_LOAD_H */
