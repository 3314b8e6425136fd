/*
 * model.h -- the classic data model (model.c): dimensions, variables,
 * attributes and their names (NFC, nfc.c).  Depends on common only.
 */
#ifndef NCSI_MODEL_H
#define NCSI_MODEL_H

#include "common.h"

/* ---- core model ----------------------------------------------------------- */
/* Every name carries namelen, its length in the header when that differs
 * from strlen(name) (else 0).  netCDF-C renames in data mode keep the old
 * length and pad the new name with NUL bytes; files must be identical, and
 * such files must be read, so the length is kept apart from the string. */
typedef struct ncs_att {
    char *name;
    uint32_t namelen;
    int type;
    uint64_t nelems;
    void *xval;          /* external (big-endian) bytes, nelems*size */
    int in_file;         /* chunked back end: in the file under this name since
                            it was written or read (a rewrite of the same name
                            keeps it; a rename or a new attribute clears it) */
} ncs_att;

typedef struct ncs_attlist {
    int n, cap;
    ncs_att *a;
} ncs_attlist;

typedef struct ncs_dim {
    char *name;
    uint32_t namelen;
    uint64_t len;        /* 0: the unlimited dimension */
} ncs_dim;

typedef struct ncs_var {
    char *name;
    uint32_t namelen;
    int type;
    int ndims;
    int *dimids;
    uint64_t *shape;     /* shape[0] == 0 for a record variable */
    uint64_t *dsizes;    /* dsizes[d]: elements in dims d..ndims-1, record dim counted as 1 */
    size_t xsz;          /* external element size */
    uint64_t len;        /* vsize: bytes (per record), rounded up to 4 */
    uint64_t begin;      /* file offset of the data (of record 0) */
    int isrec;
    int nofill;          /* not filled by enddef (netCDF's per-variable
                            fill mode; in no file format) */
    int quantize, nsd;   /* netCDF-4: how puts quantize values (NCS_QUANTIZE_*,
                            set by the back end from its settings) */
    ncs_attlist atts;
} ncs_var;

typedef struct ncs_model {
    int ndims, capdims;
    ncs_dim *dims;
    int nvars, capvars;
    ncs_var *vars;
    ncs_attlist gatts;
    int unlimdim;        /* -1 when none */
    uint64_t numrecs;
} ncs_model;

int  ncsi_check_name(const char *name);
/* NFC copy of the UTF-8 string in, malloc'd into *out (nfc.c).
 * Errors: NCS_EBADNAME (in is not valid UTF-8), NCS_ENOMEM. */
int  ncsi_nfc(const char *in, char **out);
/* The length of a name in the header (see ncs_att). */
size_t ncsi_name_xlen(const char *name, uint32_t namelen);
int  ncsi_model_copy(const ncs_model *src, ncs_model *dst);
void ncsi_model_free(ncs_model *m);
int  ncsi_find_dim(const ncs_model *m, const char *name);
int  ncsi_find_var(const ncs_model *m, const char *name);
int  ncsi_find_att(const ncs_attlist *l, const char *name);
ncs_attlist *ncsi_attlist(ncs_model *m, int varid);  /* NULL: bad varid */
/* Computes shape, dsizes, xsz and len of v from the model's dimensions.
 * Errors: NCS_EBADDIM, NCS_EUNLIMPOS, NCS_EVARSIZE (byte count overflows). */
int  ncsi_var_shape(const ncs_model *m, ncs_var *v);
void ncsi_att_free(ncs_att *a);
void ncsi_attlist_free(ncs_attlist *l);
int  ncsi_attlist_copy(const ncs_attlist *src, ncs_attlist *dst);
/* Replaces or appends; takes ownership of *a on success. */
int  ncsi_attlist_put(ncs_attlist *l, ncs_att *a);
void ncsi_attlist_del(ncs_attlist *l, int idx);

/* ---- mutations --------------------------------------------------------------
 * The model changes only through these: the API layer, which has checked
 * the caller's request in netCDF-C's order first, and the stores, which
 * build a model from a header, call them.  Each either makes its change
 * whole or leaves the model as it was. */

/* The one growth helper of the model's arrays: makes *arrp, an array of
 * *cap elements of esz bytes (arrp points at the array's pointer), hold at
 * least need, exactly need when it grows, the new elements zeroed.
 * Errors: NCS_ENOMEM (the array is left as it was). */
int  ncsi_model_reserve(void *arrp, int *cap, size_t need, size_t esz);
/* Appends dimension name (copied) of length len (0: the unlimited one,
 * which becomes m->unlimdim) and sets *dimidp (if not NULL) to its id.
 * The name is valid and unused, there is no other unlimited dimension, and
 * there is room for one more (the caller's checks).  Errors: NCS_ENOMEM. */
int  ncsi_model_add_dim(ncs_model *m, const char *name, uint64_t len, int *dimidp);
/* Allocates a new variable's arrays for ndims dimensions (dimids, shape,
 * dsizes; one element at least), v zeroed before or holding nothing.
 * Errors: NCS_ENOMEM (what was allocated stays in v for its owner to
 * free). */
int  ncsi_var_alloc(ncs_var *v, int ndims);
/* Appends variable name (copied) of type xtype on the ndims dimensions
 * dimids, its shape computed (ncsi_var_shape), and sets *varidp (if not
 * NULL) to its id.  Type, rank and name were checked by the caller.
 * Errors: NCS_ENOMEM, and those of ncsi_var_shape (NCS_EBADDIM,
 * NCS_EUNLIMPOS, NCS_EVARSIZE); the model is then unchanged. */
int  ncsi_model_add_var(ncs_model *m, const char *name, int xtype, int ndims,
                        const int *dimids, int *varidp);
/* Appends a zeroed variable, counted in m->nvars so that ncsi_model_free
 * frees what its builder puts in it: a store filling it from a header.
 * NULL: no memory. */
ncs_var *ncsi_model_push_var(ncs_model *m);
/* Fills *a with a copy of name, xtype and room for nelems values (at least
 * one byte, uninitialised), namelen 0.  Errors: NCS_ENOMEM (*a then holds
 * nothing). */
int  ncsi_att_new(ncs_att *a, const char *name, int xtype, uint64_t nelems);
/* Renames what *slot names (a dimension, variable or attribute) to a copy
 * of name, its header length becoming namelen (see ncs_att).  Errors:
 * NCS_ENOMEM (the old name stays). */
int  ncsi_model_rename(char **slot, uint32_t *namelenp, const char *name, uint32_t namelen);

#endif /* NCSI_MODEL_H */
