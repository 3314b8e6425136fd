/*
 * scan_engine.h -- what each engine of the row-major scan benchmark
 * (scanbench.c) provides to the shared main of scan_main.c.
 *
 * An engine is one library reading one kind of file: GVRS C (scan_gvrs.c,
 * built by scripts/scanbench from a GridfourC tree), ncslab's native API
 * (scan_ncs.c), its v2 API (scan_v2.c), or a resident array
 * (scan_memory.c).  Each is a program of its own that links only its
 * library, so the peak memory it reports is what that library costs a
 * program.  The loop of scan_loop is the program's own row-major loop,
 * one read call per cell, summing: it lives in the engine's file so that
 * nothing of the harness sits between the loop and the library.
 *
 * Every function returns 0 or the library's own status (scan_strerror
 * names it).  layout is the engine's layout name ("classic", "chunked",
 * ...), already checked by scan_layout_ok.
 */
#ifndef SCAN_ENGINE_H
#define SCAN_ENGINE_H

#include <stdint.h>

#include "terrain.h"

typedef struct scan_handle scan_handle;

/* 1 when the engine knows the layout. */
int scan_layout_ok(const char *layout);
/* Writes the grid t to path (the memory engine writes nothing). */
int scan_write(const char *layout, const char *path, const ti_terrain *t);
/* Opens path, a rows x cols grid, for reading; the memory engine builds
 * its array here. */
int scan_open(const char *layout, const char *path, long rows, long cols, scan_handle **hp);
/* Reads every cell in row-major order, one call per cell, into *sump. */
int scan_loop(scan_handle *h, long rows, long cols, int64_t *sump);
/* Row r into out by one call per cell (for checking each value). */
int scan_row(scan_handle *h, long r, long cols, short *out);
int scan_close(scan_handle *h);
const char *scan_strerror(int status);

#endif
