/*
 * v3scen.h -- the scenarios of tests/v3/diff_v3_api.c, written once against
 * netCDF's v3 API and compiled twice: against netCDF-C (v3side_netcdf.c)
 * and against ncslab's v3 layer with its names renamed (v3side_ncslab.c).
 * Each scenario logs every call's status and outputs as lines of text;
 * the test compares the two logs line by line, and the files the two
 * sides wrote.
 */
#ifndef V3SCEN_H
#define V3SCEN_H

#include <stddef.h>

typedef struct v3log {
    char *text;
    size_t len, cap;
    const char *dir;   /* where this side writes its files */
} v3log;

typedef struct v3side {
    const char *name;
    void (*const *scenarios)(v3log *);
    const char *const *names;
    int count;
} v3side;

void v3log_printf(v3log *log, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

extern const v3side v3side_netcdf, v3side_ncslab;

#endif
