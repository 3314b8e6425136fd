/*
 * terrain.c -- the values of the scan grids (terrain.h).  A value costs a
 * few multiplies and a rounding, so generating a row to check it is cheap
 * beside reading it.
 */
#include "terrain.h"

#include <math.h>
#include <stdlib.h>

int ti_terrain_init(ti_terrain *t, long rows, long cols)
{
    t->rows = rows;
    t->cols = cols;
    t->a1 = malloc(sizeof(double) * (size_t)(3 * rows + 3 * cols));
    if (t->a1 == NULL)
        return -1;
    t->a2 = t->a1 + rows, t->a3 = t->a2 + rows;
    t->b1 = t->a3 + rows, t->b2 = t->b1 + cols, t->b3 = t->b2 + cols;
    for (long r = 0; r < rows; r++) {
        double lat = M_PI * ((double)r + 0.5) / (double)rows;
        t->a1[r] = 3000 * sin(lat);
        t->a2[r] = 1500 * sin(3 * lat + 1);
        t->a3[r] = 400 * cos(7 * lat);
    }
    for (long c = 0; c < cols; c++) {
        double lon = 2 * M_PI * (double)c / (double)cols;
        t->b1[c] = cos(lon);
        t->b2[c] = sin(2 * lon + 0.5);
        t->b3[c] = cos(11 * lon + 2);
    }
    return 0;
}

void ti_terrain_row(const ti_terrain *t, long r, short *out)
{
    for (long c = 0; c < t->cols; c++)
        out[c] = (short)lrint(t->a1[r] * t->b1[c] + t->a2[r] * t->b2[c] + t->a3[r] * t->b3[c]);
}

int ti_terrain_sum(const ti_terrain *t, int64_t *sump)
{
    int64_t sum = 0;
    short *row = malloc(sizeof(short) * (size_t)(t->cols > 0 ? t->cols : 1));
    if (row == NULL)
        return -1;
    for (long r = 0; r < t->rows; r++) {
        ti_terrain_row(t, r, row);
        for (long c = 0; c < t->cols; c++)
            sum += row[c];
    }
    free(row);
    *sump = sum;
    return 0;
}

void ti_terrain_free(ti_terrain *t)
{
    free(t->a1);
    t->a1 = NULL;
}
