/*
 * terrain.h -- the synthetic terrain of the row-major scans: a rows x
 * cols grid of shorts, a sum of separable waves (smooth like a digital
 * elevation model, within +-4900), so that every program that writes or
 * checks the grid makes the same values from the same few numbers.
 *
 * Shared by timeit's --scan (scan.c) and by the scan benchmark's engines
 * (tests/bench/scan_*.c, including the one built against GVRS C), which
 * is why it depends on nothing but libm.
 */
#ifndef TI_TERRAIN_H
#define TI_TERRAIN_H

#include <stdint.h>

typedef struct {
    long rows, cols;
    double *a1, *a2, *a3, *b1, *b2, *b3; /* per-row and per-column factors */
} ti_terrain;

/* Computes the factors of a rows x cols grid; 0, or -1 when out of memory. */
int ti_terrain_init(ti_terrain *t, long rows, long cols);
/* Writes the cols values of row r into out. */
void ti_terrain_row(const ti_terrain *t, long r, short *out);
/* The sum of every value of the grid into *sump; 0, or -1 when out of
 * memory. */
int ti_terrain_sum(const ti_terrain *t, int64_t *sump);
void ti_terrain_free(ti_terrain *t);

#endif
