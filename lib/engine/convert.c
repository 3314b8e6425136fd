/*
 * convert.c -- conversion between external and memory element types.
 *
 * External data are big-endian (the classic format's XDR byte order); memory
 * data are native.  One generic inline loop does every (external, memory)
 * pair; the pairs are thin instantiations of it collected in two tables, so
 * each loop has constant types and the compiler can vectorise the byte swap
 * and the range test.
 *
 * Range rules are netCDF's: a value that does not fit the target type gives
 * NCS_ERANGE, and is still stored as C's cast of it (so files written with
 * out-of-range values hold the same bytes netCDF-C would write).  Integer to
 * floating-point and float to double never fail; double to float fails
 * outside +-FLT_MAX; floating to integer fails outside the integer range.
 * In CDF-1 and CDF-2 files NCS_BYTE and unsigned char memory are the same
 * 8 bits: no range test between them, as in netCDF-C.
 */
#include "engine.h"

#include <float.h>
#include <string.h>

/* The generic range test is instantiated for every pair of types; for many
 * pairs some comparisons are always false, which is exactly what lets them
 * fold away.  -Wtype-limits would flag each of those. */
#pragma GCC diagnostic ignored "-Wtype-limits"

/* kinds of types */
#define K_SI 0   /* signed integer */
#define K_UI 1   /* unsigned integer */
#define K_FP 2   /* floating point */

/* Loads and stores of one big-endian element, by external size. */
#define LOAD_BE(T, p, out) do {                                  \
        T out_##T##_tmp;                                         \
        if (sizeof(T) == 1) {                                    \
            memcpy(&out_##T##_tmp, (p), 1);                      \
        } else if (sizeof(T) == 2) {                             \
            uint16_t u_; memcpy(&u_, (p), 2); u_ = ncsi_be16(u_); \
            memcpy(&out_##T##_tmp, &u_, 2);                      \
        } else if (sizeof(T) == 4) {                             \
            uint32_t u_; memcpy(&u_, (p), 4); u_ = ncsi_be32(u_); \
            memcpy(&out_##T##_tmp, &u_, 4);                      \
        } else {                                                 \
            uint64_t u_; memcpy(&u_, (p), 8); u_ = ncsi_be64(u_); \
            memcpy(&out_##T##_tmp, &u_, 8);                      \
        }                                                        \
        (out) = out_##T##_tmp;                                   \
    } while (0)

#define STORE_BE(T, p, val) do {                                 \
        T v_ = (val);                                            \
        if (sizeof(T) == 1) {                                    \
            memcpy((p), &v_, 1);                                 \
        } else if (sizeof(T) == 2) {                             \
            uint16_t u_; memcpy(&u_, &v_, 2); u_ = ncsi_be16(u_); \
            memcpy((p), &u_, 2);                                 \
        } else if (sizeof(T) == 4) {                             \
            uint32_t u_; memcpy(&u_, &v_, 4); u_ = ncsi_be32(u_); \
            memcpy((p), &u_, 4);                                 \
        } else {                                                 \
            uint64_t u_; memcpy(&u_, &v_, 8); u_ = ncsi_be64(u_); \
            memcpy((p), &u_, 8);                                 \
        }                                                        \
    } while (0)

/* 1 when value v of kind SK does not fit a target of kind DK with limits
 * [lo, hi] (integers) or of float width dsz (floating point). */
#define OUT_OF_RANGE(SK, SSZ, v, DK, DSZ, lo, hi)                              \
    ((DK) == K_FP                                                              \
       ? ((SK) == K_FP && (SSZ) == 8 && (DSZ) == 4                             \
            ? ((double)(v) > FLT_MAX || (double)(v) < -FLT_MAX) : 0)           \
       : (SK) == K_FP                                                          \
            ? ((double)(v) > (double)(hi) || (double)(v) < (double)(lo))       \
            : (SK) == K_SI                                                     \
                 ? ((int64_t)(v) < (int64_t)(lo) ||                            \
                    ((int64_t)(v) > 0 && (uint64_t)(int64_t)(v) > (uint64_t)(hi))) \
                 : ((uint64_t)(v) > (uint64_t)(hi)))

/* Floating point to integer, for every value.  In range this is C's
 * conversion; out of range (where C leaves it undefined) it is what the
 * scalar x86-64 conversion instructions give, through a 32-bit integer for
 * narrow targets and a 64-bit one for wide targets, as compiled netCDF-C
 * stores them, so out-of-range values written by either library leave the
 * same bytes in a file. */
static inline int32_t fp_i32(double v)
{
    return (v == v && v > -2147483649.0 && v < 2147483648.0) ? (int32_t)v : INT32_MIN;
}
static inline int64_t fp_i64(double v)
{
    return (v == v && v >= -9223372036854775808.0 && v < 9223372036854775808.0)
           ? (int64_t)v : INT64_MIN;
}
static inline uint64_t fp_u64(double v)
{
    if (v >= 9223372036854775808.0)
        return (uint64_t)fp_i64(v - 9223372036854775808.0) ^ (UINT64_C(1) << 63);
    return (uint64_t)fp_i64(v);
}

/* Converts v of kind SK to type T of kind TK. */
#define CAST(T, TK, SK, v)                                                     \
    ((TK) != K_FP && (SK) == K_FP                                              \
       ? ((TK) == K_UI && sizeof(T) == 8 ? (T)fp_u64((double)(v))              \
          : ((TK) == K_UI && sizeof(T) == 4) || sizeof(T) == 8                 \
               ? (T)fp_i64((double)(v)) : (T)fp_i32((double)(v)))              \
       : (T)(v))

/* The type list: code, C type, kind, lower and upper limit. */
#define TYPES_A(X, ...) \
    X(1, int8_t, K_SI, INT8_MIN, INT8_MAX, __VA_ARGS__) \
    X(2, uint8_t, K_UI, 0, UINT8_MAX, __VA_ARGS__) \
    X(3, int16_t, K_SI, INT16_MIN, INT16_MAX, __VA_ARGS__) \
    X(4, int32_t, K_SI, INT32_MIN, INT32_MAX, __VA_ARGS__) \
    X(5, float, K_FP, -FLT_MAX, FLT_MAX, __VA_ARGS__) \
    X(6, double, K_FP, -DBL_MAX, DBL_MAX, __VA_ARGS__) \
    X(7, uint8_t, K_UI, 0, UINT8_MAX, __VA_ARGS__) \
    X(8, uint16_t, K_UI, 0, UINT16_MAX, __VA_ARGS__) \
    X(9, uint32_t, K_UI, 0, UINT32_MAX, __VA_ARGS__) \
    X(10, int64_t, K_SI, INT64_MIN, INT64_MAX, __VA_ARGS__) \
    X(11, uint64_t, K_UI, 0, UINT64_MAX, __VA_ARGS__)
#define TYPES_B(X, ...) \
    X(1, int8_t, K_SI, INT8_MIN, INT8_MAX, __VA_ARGS__) \
    X(2, uint8_t, K_UI, 0, UINT8_MAX, __VA_ARGS__) \
    X(3, int16_t, K_SI, INT16_MIN, INT16_MAX, __VA_ARGS__) \
    X(4, int32_t, K_SI, INT32_MIN, INT32_MAX, __VA_ARGS__) \
    X(5, float, K_FP, -FLT_MAX, FLT_MAX, __VA_ARGS__) \
    X(6, double, K_FP, -DBL_MAX, DBL_MAX, __VA_ARGS__) \
    X(7, uint8_t, K_UI, 0, UINT8_MAX, __VA_ARGS__) \
    X(8, uint16_t, K_UI, 0, UINT16_MAX, __VA_ARGS__) \
    X(9, uint32_t, K_UI, 0, UINT32_MAX, __VA_ARGS__) \
    X(10, int64_t, K_SI, INT64_MIN, INT64_MAX, __VA_ARGS__) \
    X(11, uint64_t, K_UI, 0, UINT64_MAX, __VA_ARGS__)

typedef int (*conv_fn)(const void *src, ptrdiff_t sstep, void *dst,
                       ptrdiff_t dstep, size_t n);

/* The byte swaps need a byte shuffle to vectorise, which x86-64's baseline
 * (SSE2) lacks: each loop is also built for AVX2 (NCSI_VEC_CLONES). */

/* decode: external XT (big-endian), xstep elements apart -> memory MT,
 * dstep apart.  The unit-step loop is kept separate so it vectorises. */
#define DEC_BODY(XT, XK, MT, MK, MLO, MHI, XSTEP, DSTEP)                                                 \
        _Pragma("GCC unroll 4")                                                \
        for (size_t i = 0; i < n; i++) {                                       \
            XT v;                                                              \
            LOAD_BE(XT, s + (ptrdiff_t)i * (XSTEP) * (ptrdiff_t)sizeof(XT), v); \
            bad |= OUT_OF_RANGE(XK, sizeof(XT), v, MK, sizeof(MT), MLO, MHI);  \
            d[(ptrdiff_t)i * (DSTEP)] = CAST(MT, MK, XK, v);                   \
        }
#define DEF_DEC(MC, MT, MK, MLO, MHI, XC, XT, XK, XLO, XHI)                     \
    NCSI_VEC_CLONES static int dec_##XC##_##MC(const void *src, ptrdiff_t xstep, void *dst,    \
                               ptrdiff_t dstep, size_t n)                      \
    {                                                                          \
        const unsigned char *s = src;                                          \
        MT *d = dst;                                                           \
        int bad = 0;                                                           \
        if (xstep == 1 && dstep == 1) {                                        \
            DEC_BODY(XT, XK, MT, MK, MLO, MHI, 1, 1)                                                     \
        } else {                                                               \
            DEC_BODY(XT, XK, MT, MK, MLO, MHI, xstep, dstep)                                             \
        }                                                                      \
        return bad;                                                            \
    }
#define DEF_DEC_ROW(XC, XT, XK, XLO, XHI, ...) TYPES_B(DEF_DEC, XC, XT, XK, XLO, XHI)
TYPES_A(DEF_DEC_ROW, 0)

/* encode: memory MT, sstep apart -> external XT (big-endian), xstep apart. */
#define ENC_BODY(XT, XK, XLO, XHI, MT, MK, SSTEP, XSTEP)                                                 \
        _Pragma("GCC unroll 4")                                                \
        for (size_t i = 0; i < n; i++) {                                       \
            MT v = s[(ptrdiff_t)i * (SSTEP)];                                  \
            bad |= OUT_OF_RANGE(MK, sizeof(MT), v, XK, sizeof(XT), XLO, XHI);  \
            STORE_BE(XT, d + (ptrdiff_t)i * (XSTEP) * (ptrdiff_t)sizeof(XT), CAST(XT, XK, MK, v)); \
        }
#define DEF_ENC(XC, XT, XK, XLO, XHI, MC, MT, MK, MLO, MHI)                     \
    NCSI_VEC_CLONES static int enc_##MC##_##XC(const void *src, ptrdiff_t sstep, void *dst,    \
                               ptrdiff_t xstep, size_t n)                      \
    {                                                                          \
        const MT *s = src;                                                     \
        unsigned char *d = dst;                                                \
        int bad = 0;                                                           \
        if (sstep == 1 && xstep == 1) {                                        \
            ENC_BODY(XT, XK, XLO, XHI, MT, MK, 1, 1)                                                     \
        } else {                                                               \
            ENC_BODY(XT, XK, XLO, XHI, MT, MK, sstep, xstep)                                             \
        }                                                                      \
        return bad;                                                            \
    }
#define DEF_ENC_ROW(MC, MT, MK, MLO, MHI, ...) TYPES_B(DEF_ENC, MC, MT, MK, MLO, MHI)
TYPES_A(DEF_ENC_ROW, 0)

/* convert: native ST, sstep apart -> native DT, dstep apart (chunked files
 * keep decoded chunks in native byte order). */
#define CVT_BODY(ST, SK, DT, DK, DLO, DHI, SSTEP, DSTEP)                       \
        _Pragma("GCC unroll 4")                                                \
        for (size_t i = 0; i < n; i++) {                                       \
            ST v = s[(ptrdiff_t)i * (SSTEP)];                                  \
            bad |= OUT_OF_RANGE(SK, sizeof(ST), v, DK, sizeof(DT), DLO, DHI);  \
            d[(ptrdiff_t)i * (DSTEP)] = CAST(DT, DK, SK, v);                   \
        }
#define DEF_CVT(DC, DT, DK, DLO, DHI, SC, ST, SK, SLO, SHI)                     \
    NCSI_VEC_CLONES static int cvt_##SC##_##DC(const void *src, ptrdiff_t sstep, void *dst,    \
                               ptrdiff_t dstep, size_t n)                      \
    {                                                                          \
        const ST *s = src;                                                     \
        DT *d = dst;                                                           \
        int bad = 0;                                                           \
        if (sstep == 1 && dstep == 1) {                                        \
            CVT_BODY(ST, SK, DT, DK, DLO, DHI, 1, 1)                           \
        } else {                                                               \
            CVT_BODY(ST, SK, DT, DK, DLO, DHI, sstep, dstep)                   \
        }                                                                      \
        return bad;                                                            \
    }
#define DEF_CVT_ROW(SC, ST, SK, SLO, SHI, ...) TYPES_B(DEF_CVT, SC, ST, SK, SLO, SHI)
TYPES_A(DEF_CVT_ROW, 0)

#define CVT_ENTRY(DC, DT, DK, DLO, DHI, SC, ...) [DC] = cvt_##SC##_##DC,
#define CVT_ROW(SC, ST, SK, SLO, SHI, ...) [SC] = { TYPES_B(CVT_ENTRY, SC) },
static const conv_fn cvt_table[NCSI_NTYPES][NCSI_NTYPES] = { TYPES_A(CVT_ROW, 0) };

#define DEC_ENTRY(MC, MT, MK, MLO, MHI, XC, ...) [MC] = dec_##XC##_##MC,
#define DEC_ROW(XC, XT, XK, XLO, XHI, ...) [XC] = { TYPES_B(DEC_ENTRY, XC) },
static const conv_fn dec_table[NCSI_NTYPES][NCSI_NTYPES] = { TYPES_A(DEC_ROW, 0) };

#define ENC_ENTRY(XC, XT, XK, XLO, XHI, MC, ...) [XC] = enc_##MC##_##XC,
#define ENC_ROW(MC, MT, MK, MLO, MHI, ...) [MC] = { TYPES_B(ENC_ENTRY, MC) },
static const conv_fn enc_table[NCSI_NTYPES][NCSI_NTYPES] = { TYPES_A(ENC_ROW, 0) };

int ncsi_type_ok(int type, int version)
{
    if (type >= NCS_BYTE && type <= NCS_DOUBLE)
        return 1;
    return version == 5 && type >= NCS_UBYTE && type <= NCS_UINT64;
}

/* In CDF-1/2, signed bytes read into or written from unsigned chars are
 * taken bit for bit. */
static int same_bits(int xtype, int mtype, int version)
{
    if (xtype == mtype)
        return 1;
    if (version != 5 && ((xtype == NCS_BYTE && mtype == NCS_UBYTE) ||
                         (xtype == NCS_UBYTE && mtype == NCS_BYTE)))
        return 1;
    return 0;
}

int ncsi_decode_strided(int xtype, const void *src, ptrdiff_t xstep, size_t n,
                        int mtype, void *dst, ptrdiff_t dstep, int version)
{
    assert(ncsi_type_size(xtype) && ncsi_type_size(mtype));
    if (same_bits(xtype, mtype, version)) {
        if (ncsi_type_size(xtype) == 1 && xstep == 1 && dstep == 1) {
            memcpy(dst, src, n);    /* bytes have no byte order */
            return NCS_NOERR;
        }
        mtype = xtype;
    }
    return dec_table[xtype][mtype](src, xstep, dst, dstep, n) ? NCS_ERANGE : NCS_NOERR;
}

ncsi_conv_fn ncsi_decoder(int xtype, int mtype, int version)
{
    assert(ncsi_type_size(xtype) && ncsi_type_size(mtype));
    if (same_bits(xtype, mtype, version))
        mtype = xtype;
    return dec_table[xtype][mtype];
}

/* Rows of elements whose decode is a byte swap (the variable's own type,
 * 2, 4 or 8 bytes): one call for all the rows, each swapped by a vector
 * loop, instead of a call of the decoder per row. */
#define DEF_SWAP_ROWS(NAME, T, SWAP)                                           \
    NCSI_VEC_CLONES static void NAME(const unsigned char *src, ptrdiff_t sgap,  \
                                     unsigned char *dst, ptrdiff_t dgap, size_t n, \
                                     size_t rows)                              \
    {                                                                          \
        for (size_t r = 0; r < rows; r++, src += sgap, dst += dgap)            \
            for (size_t i = 0; i < n; i++) {                                   \
                T v;                                                           \
                memcpy(&v, src + i * sizeof v, sizeof v);                      \
                v = SWAP(v);                                                   \
                memcpy(dst + i * sizeof v, &v, sizeof v);                      \
            }                                                                  \
    }
DEF_SWAP_ROWS(swap_rows2, uint16_t, ncsi_be16)
DEF_SWAP_ROWS(swap_rows4, uint32_t, ncsi_be32)
DEF_SWAP_ROWS(swap_rows8, uint64_t, ncsi_be64)

ncsi_rows_fn ncsi_row_decoder(int xtype, int mtype, int version)
{
#ifdef WORDS_BIGENDIAN
    (void)xtype, (void)mtype, (void)version;
    return NULL;
#else
    if (!same_bits(xtype, mtype, version))
        return NULL;
    switch (ncsi_type_size(xtype)) {
    case 2: return swap_rows2;
    case 4: return swap_rows4;
    case 8: return swap_rows8;
    default: return NULL;
    }
#endif
}

int ncsi_encode_strided(int xtype, void *dst, ptrdiff_t xstep, size_t n,
                        int mtype, const void *src, ptrdiff_t sstep, int version)
{
    assert(ncsi_type_size(xtype) && ncsi_type_size(mtype));
    if (same_bits(xtype, mtype, version)) {
        if (ncsi_type_size(xtype) == 1 && xstep == 1 && sstep == 1) {
            memcpy(dst, src, n);
            return NCS_NOERR;
        }
        mtype = xtype;
    }
    return enc_table[mtype][xtype](src, sstep, dst, xstep, n) ? NCS_ERANGE : NCS_NOERR;
}

int ncsi_convert(int stype, const void *src, ptrdiff_t sstep, size_t n,
                 int dtype, void *dst, ptrdiff_t dstep, int version)
{
    assert(ncsi_type_size(stype) && ncsi_type_size(dtype));
    if (same_bits(stype, dtype, version)) {
        if (sstep == 1 && dstep == 1) {
            memcpy(dst, src, n * ncsi_type_size(stype));
            return NCS_NOERR;
        }
        dtype = stype;
    }
    return cvt_table[stype][dtype](src, sstep, dst, dstep, n) ? NCS_ERANGE : NCS_NOERR;
}

int ncsi_decode(int xtype, const void *src, size_t n, int mtype, void *dst,
                ptrdiff_t dstep, int version)
{
    return ncsi_decode_strided(xtype, src, 1, n, mtype, dst, dstep, version);
}

int ncsi_encode(int xtype, void *dst, size_t n, int mtype, const void *src,
                ptrdiff_t sstep, int version)
{
    return ncsi_encode_strided(xtype, dst, 1, n, mtype, src, sstep, version);
}

void ncsi_default_fill(int xtype, void *dst, size_t n)
{
    unsigned char one[8];
    size_t sz = ncsi_type_size(xtype);
    unsigned char *d = dst;
    switch (xtype) {
    case NCS_BYTE:   { int8_t v = NCS_FILL_BYTE; STORE_BE(int8_t, one, v); break; }
    case NCS_CHAR:   { uint8_t v = 0; STORE_BE(uint8_t, one, v); break; }
    case NCS_SHORT:  { int16_t v = NCS_FILL_SHORT; STORE_BE(int16_t, one, v); break; }
    case NCS_INT:    { int32_t v = NCS_FILL_INT; STORE_BE(int32_t, one, v); break; }
    case NCS_FLOAT:  { float v = NCS_FILL_FLOAT; STORE_BE(float, one, v); break; }
    case NCS_DOUBLE: { double v = NCS_FILL_DOUBLE; STORE_BE(double, one, v); break; }
    case NCS_UBYTE:  { uint8_t v = NCS_FILL_UBYTE; STORE_BE(uint8_t, one, v); break; }
    case NCS_USHORT: { uint16_t v = NCS_FILL_USHORT; STORE_BE(uint16_t, one, v); break; }
    case NCS_UINT:   { uint32_t v = NCS_FILL_UINT; STORE_BE(uint32_t, one, v); break; }
    case NCS_INT64:  { int64_t v = NCS_FILL_INT64; STORE_BE(int64_t, one, v); break; }
    case NCS_UINT64: { uint64_t v = NCS_FILL_UINT64; STORE_BE(uint64_t, one, v); break; }
    default: assert(0); return;
    }
    for (size_t i = 0; i < n; i++)
        memcpy(d + i * sz, one, sz);
}
