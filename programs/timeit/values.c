/*
 * values.c -- the data the harness writes, and the checks of what it reads.
 *
 * An element's value is a function of its row-major linear index in its
 * variable (see timeit.h), so a buffer can be generated or checked for any
 * slab without keeping the whole variable, and a misplaced element names
 * the coordinates it came from.
 */
#include "timeit.h"

#include <stdlib.h>
#include <string.h>

/* netCDF type codes (identical in both libraries) */
enum { T_BYTE = 1, T_CHAR, T_SHORT, T_LONG, T_FLOAT, T_DOUBLE };

static const ti_type types[] = {
    { T_BYTE, "byte", 1 },   { T_CHAR, "char", 1 },   { T_SHORT, "short", 2 },
    { T_LONG, "long", 4 },   { T_FLOAT, "float", 4 }, { T_DOUBLE, "double", 8 },
};

const ti_type *ti_type_by_name(const char *name)
{
    if (strcmp(name, "int") == 0)
        name = "long";
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(types[i].name, name) == 0)
            return &types[i];
    return NULL;
}

const ti_type *ti_type_by_code(int type)
{
    return type >= T_BYTE && type <= T_DOUBLE ? &types[type - T_BYTE] : NULL;
}

size_t ti_nelems(int ndims, const long *count)
{
    size_t n = 1;
    for (int d = 0; d < ndims; d++)
        n *= (size_t)count[d];
    return n;
}

/* 32 well-mixed bits of the linear index, for the narrow types. */
static inline uint32_t mix32(uint64_t code)
{
    return (uint32_t)((code * 0x9E3779B97F4A7C15ull) >> 32);
}

void ti_value(int type, uint64_t code, void *out)
{
    switch (type) {
    case T_BYTE: { signed char v = (signed char)(mix32(code) >> 24); memcpy(out, &v, 1); break; }
    case T_CHAR: { char v = (char)(mix32(code) >> 16); memcpy(out, &v, 1); break; }
    case T_SHORT: { short v = (short)(mix32(code) >> 16); memcpy(out, &v, 2); break; }
    case T_LONG: { int v = (int)(code & 0x7fffffff); memcpy(out, &v, 4); break; }
    case T_FLOAT: { float v = (float)(code & 0xffffff); memcpy(out, &v, 4); break; }
    default: { double v = (double)code; memcpy(out, &v, 8); break; }
    }
}

/* Calls fn for each row (run along the last dimension) of the slab, with
 * the linear index of the row's first element and the row's position in
 * the buffer. */
#define FOR_EACH_ROW(ndims, dims, start, count, CODE, POS, BODY)               \
    do {                                                                       \
        long idx_[TI_MAX_DIMS] = { 0 };                                        \
        size_t rows_ = (ndims) > 0 ? ti_nelems((ndims) - 1, (count)) : 1;      \
        size_t rowlen_ = (ndims) > 0 ? (size_t)(count)[(ndims) - 1] : 1;       \
        if (ti_nelems((ndims), (count)) == 0)                                  \
            break;                                                             \
        for (size_t r_ = 0; r_ < rows_; r_++) {                                \
            uint64_t CODE = 0;                                                 \
            size_t POS = r_ * rowlen_;                                         \
            for (int d_ = 0; d_ < (ndims); d_++)                               \
                CODE = CODE * (uint64_t)(dims)[d_] +                           \
                       (uint64_t)((start)[d_] + (d_ < (ndims) - 1 ? idx_[d_] : 0)); \
            BODY;                                                              \
            for (int d_ = (ndims) - 2; d_ >= 0; d_--) {                        \
                if (++idx_[d_] < (count)[d_])                                  \
                    break;                                                     \
                idx_[d_] = 0;                                                  \
            }                                                                  \
        }                                                                      \
    } while (0)

void ti_fill_slab(int type, int ndims, const long *dims, const long *start,
                  const long *count, void *buf)
{
    size_t sz = ti_type_by_code(type)->size;
    unsigned char *out = buf;
    size_t rowlen = ndims > 0 ? (size_t)count[ndims - 1] : 1;
    FOR_EACH_ROW(ndims, dims, start, count, code, pos, {
        for (size_t i = 0; i < rowlen; i++)
            ti_value(type, code + i, out + (pos + i) * sz);
    });
}

int ti_check_slab(int type, int ndims, const long *dims, const long *start,
                  const long *count, const void *buf, char *msg, size_t msglen)
{
    size_t sz = ti_type_by_code(type)->size, n = ti_nelems(ndims, count);
    unsigned char *want = malloc(n * sz + 1);
    const unsigned char *got = buf;
    size_t bad = n;
    if (want == NULL)
        ti_die("out of memory checking %zu values", n);
    ti_fill_slab(type, ndims, dims, start, count, want);
    if (memcmp(want, got, n * sz) != 0)
        for (bad = 0; bad < n && memcmp(want + bad * sz, got + bad * sz, sz) == 0; bad++)
            ;
    if (bad < n) {
        /* name the element by its coordinates in the variable */
        long where[TI_MAX_DIMS];
        size_t rest = bad;
        char coords[128] = "", *p = coords;
        for (int d = ndims - 1; d >= 0; d--) {
            where[d] = start[d] + (long)(rest % (size_t)count[d]);
            rest /= (size_t)count[d];
        }
        for (int d = 0; d < ndims; d++)
            p += snprintf(p, sizeof coords - (size_t)(p - coords), "%s%ld", d ? "," : "", where[d]);
        snprintf(msg, msglen, "element %zu of the slab, at (%s): %zu bytes differ "
                 "(first byte read 0x%02x, expected 0x%02x)", bad, coords, sz,
                 got[bad * sz], want[bad * sz]);
    }
    free(want);
    return bad < n;
}

void ti_shape_str(int n, const long *v, char *out, size_t outlen)
{
    size_t used = 0;
    out[0] = '\0';
    for (int d = 0; d < n && used < outlen; d++)
        used += (size_t)snprintf(out + used, outlen - used, "%s%ld", d ? "x" : "", v[d]);
}

void ti_chunk_str(int n, const size_t *v, char *out, size_t outlen)
{
    long l[TI_MAX_DIMS];
    for (int d = 0; d < n; d++)
        l[d] = (long)v[d];
    ti_shape_str(n, l, out, outlen);
}
