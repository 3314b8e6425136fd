/*
 * par_cdf.h -- the classic header walker of the tests of tests/par
 * (par_cdf.c).
 */
#ifndef PAR_CDF_H
#define PAR_CDF_H

#include <stddef.h>

/* What holds a byte of a classic file. */
enum { PAR_CDF_HEADER, PAR_CDF_DATA, PAR_CDF_PADDING };

/* The whole file at path in a malloc'ed buffer, its length in *lenp;
 * NULL when it cannot be read. */
unsigned char *par_cdf_slurp(const char *path, size_t *lenp);

/* Classifies byte off of the classic file b[0..n-1] of format fmt (1, 2
 * or 5): a header field or the header's padding (PAR_CDF_HEADER), an
 * element of a variable (PAR_CDF_DATA: its id in *varp, its linear index
 * in *linp, records counted), or padding no data call writes
 * (PAR_CDF_PADDING); out (outlen bytes) names it. */
int par_cdf_locate(const unsigned char *b, size_t n, size_t off, int fmt, int *varp,
                   size_t *linp, char *out, size_t outlen);

#endif
