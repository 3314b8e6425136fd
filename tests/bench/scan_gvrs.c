/*
 * scan_gvrs.c -- the scan benchmark's engine for GVRS C (scan_engine.h):
 * GVRS's row-major read loop, one GvrsElementReadInt per cell, summing,
 * with the large tile cache (one row of tiles), as GVRS's own read
 * performance test sets it.
 *
 * Not built by make: scripts/scanbench compiles it with the sources of a
 * GridfourC tree the user names (GVRS is not packaged, and none of it is
 * part of ncslab).  Layouts: "plain" (uncompressed tiles) and
 * "compressed" (GVRS's standard codecs).  Tiles are 120 x 180 cells, or
 * the grid's size where it is smaller; the writer fills one tile at a
 * time, so its cache holds one tile's worth of work.  Statuses are
 * GVRS's GVRSERR_* codes.
 */
#include "scan_engine.h"

#include <Gvrs.h>
#include <GvrsBuilder.h>
#include <GvrsError.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILE_ROWS 120
#define TILE_COLS 180

struct scan_handle {
    Gvrs *gvrs;
    GvrsElement *e;
};

int scan_layout_ok(const char *layout)
{
    return strcmp(layout, "plain") == 0 || strcmp(layout, "compressed") == 0;
}

int scan_write(const char *layout, const char *path, const ti_terrain *t)
{
    GvrsBuilder *b = NULL;
    GvrsElementSpec *spec;
    GvrsElement *e;
    Gvrs *gvrs = NULL;
    int trows = t->rows < TILE_ROWS ? (int)t->rows : TILE_ROWS;
    int tcols = t->cols < TILE_COLS ? (int)t->cols : TILE_COLS;
    int status;
    short *buf = malloc(sizeof(short) * (size_t)trows * (size_t)t->cols);

    if (buf == NULL)
        return GVRSERR_NOMEM;
    status = GvrsBuilderInit(&b, (int)t->rows, (int)t->cols);
    if (status == 0)
        status = GvrsBuilderSetTileSize(b, trows, tcols);
    if (status == 0)
        status = GvrsBuilderAddElementShort(b, "elevation", &spec);
    if (status == 0 && strcmp(layout, "compressed") == 0)
        status = GvrsBuilderRegisterStandardDataCompressionCodecs(b);
    if (status == 0)
        status = GvrsBuilderOpenNewGvrs(b, path, &gvrs);
    if (status == 0 && (e = GvrsGetElementByName(gvrs, "elevation")) == NULL)
        status = GVRSERR_ELEMENT_NOT_FOUND;
    for (int r0 = 0; r0 < t->rows && status == 0; r0 += trows) {
        int r1 = r0 + trows < t->rows ? r0 + trows : (int)t->rows;
        for (int r = r0; r < r1; r++)
            ti_terrain_row(t, r, buf + (size_t)(r - r0) * (size_t)t->cols);
        for (int c0 = 0; c0 < t->cols && status == 0; c0 += tcols) {
            int c1 = c0 + tcols < t->cols ? c0 + tcols : (int)t->cols;
            for (int r = r0; r < r1 && status == 0; r++)
                for (int c = c0; c < c1 && status == 0; c++)
                    status = GvrsElementWriteInt(e, r, c,
                                                 buf[(size_t)(r - r0) * (size_t)t->cols + (size_t)c]);
        }
    }
    if (gvrs != NULL) {
        int cstatus = GvrsClose(gvrs);
        if (status == 0)
            status = cstatus;
    }
    if (b != NULL)
        GvrsBuilderFree(b);
    free(buf);
    return status;
}

int scan_open(const char *layout, const char *path, long rows, long cols, scan_handle **hp)
{
    scan_handle *h = malloc(sizeof *h);
    int status;
    if (h == NULL)
        return GVRSERR_NOMEM;
    h->gvrs = NULL;
    status = GvrsOpen(&h->gvrs, path, "r");
    if (status == 0)
        status = GvrsSetTileCacheSize(h->gvrs, GvrsTileCacheSizeLarge);
    if (status == 0 && (h->e = GvrsGetElementByIndex(h->gvrs, 0)) == NULL)
        status = GVRSERR_ELEMENT_NOT_FOUND;
    if (status != 0) {
        if (h->gvrs != NULL)
            GvrsClose(h->gvrs);
        free(h);
        return status;
    }
    *hp = h;
    return 0;
}

int scan_loop(scan_handle *h, long rows, long cols, int64_t *sump)
{
    int64_t sum = 0;
    int32_t v;
    int status;
    for (int r = 0; r < (int)rows; r++)
        for (int c = 0; c < (int)cols; c++) {
            if ((status = GvrsElementReadInt(h->e, r, c, &v)) != 0)
                return status;
            sum += v;
        }
    *sump = sum;
    return 0;
}

int scan_row(scan_handle *h, long r, long cols, short *out)
{
    int32_t v;
    int status;
    for (int c = 0; c < (int)cols; c++) {
        if ((status = GvrsElementReadInt(h->e, (int)r, c, &v)) != 0)
            return status;
        out[c] = (short)v;
    }
    return 0;
}

int scan_close(scan_handle *h)
{
    int status = GvrsClose(h->gvrs);
    free(h);
    return status;
}

const char *scan_strerror(int status)
{
    static char msg[48];
    snprintf(msg, sizeof msg, "GVRS error %d (GvrsError.h)", status);
    return msg;
}
