/*
 * quantize.c -- netCDF-4's lossy quantization of float and double values
 * before they are written (netCDF-C 4.9's nc_def_var_quantize): the bits
 * of each significand below those that carry the precision asked for are
 * cleared, set or rounded, so that the compressors that follow find long
 * runs.  Three modes, as netCDF-C defines them:
 *
 *   BitGroom     nsd decimal digits: ceil(nsd * log2(10)) + 1 bits kept;
 *                the values of even index in the request have the others
 *                cleared, those of odd index set (a non-zero value only).
 *   BitRound     nsd bits kept, rounded to nearest (half up) at the first
 *                bit dropped, by adding it and clearing the others.
 *   GranularBR   nsd decimal digits, the bits to keep found value by value
 *                from its decimal exponent (Delaunay, Courtois and Gazzola's
 *                granular BitRound), then rounded as BitRound.
 *
 * A value equal to the variable's fill value is left as it is, as are zeros
 * in GranularBR.  Where netCDF-C's arithmetic leaves C's defined range (a
 * shift by a negative count: BitGroom at 7 digits of a float; GranularBR of
 * infinities, NaNs and negative zero), ncslab keeps the value unchanged
 * (doc/v3.md, "Where netCDF-C is wrong").
 */
#include "engine.h"

#include <math.h>
#include <stdlib.h>

/* log(10) and log(2): log2(10) bits per decimal digit and its inverse,
 * computed as netCDF-C computes them, so that every rounding agrees */
static const double LN10 = 2.30258509299404568402;
static const double LN2 = 0.69314718055994530942;

/* Masks that keep the significand bits above the lowest zero ones of a
 * w-bit element: keep (AND), set (OR), and half (the highest bit dropped,
 * added to round).  zero outside [0, explicit bits]: nothing changes. */
typedef struct { uint64_t keep, set, half; } qmask;

static qmask masks(int zero, int width)
{
    uint64_t all = width == 32 ? 0xffffffffu : ~(uint64_t)0;
    qmask m = { all, 0, 0 };
    if (zero <= 0 || zero >= width)
        return m;
    m.keep = (all << zero) & all;
    m.set = ~m.keep & all;
    m.half = m.set & (m.keep >> 1);
    return m;
}

/* The bits GranularBR keeps of the finite non-zero value val: its decimal
 * exponent from frexp, the power of two of the quantum nsd digits allow,
 * and one bit less, as netCDF-C reduces it (an unsigned short there). */
static int granular_zero(double val, int nsd, int explicit_bits)
{
    const double bits_per_digit = LN10 / LN2, digits_per_bit = LN2 / LN10;
    int e;
    double mnt = frexp(val, &e);
    double mnt_fabs = fabs(mnt), mnt_log10 = log10(mnt_fabs);
    int digits = (int)floor(e * digits_per_bit + mnt_log10) + 1;
    int qpow = (int)floor(bits_per_digit * (digits - nsd));
    int keep = abs((int)floor(e - bits_per_digit * mnt_log10) - qpow);
    keep = (keep - 1) & 0xffff;
    return explicit_bits - keep;
}

#define QUANTIZE_LOOP(T, U, WIDTH, EXPLICIT)                                      \
    do {                                                                          \
        T *val = vals;                                                            \
        U *bits = vals;                                                           \
        T fillv = *(const T *)fill;                                               \
        qmask m;                                                                  \
        int zero;                                                                 \
        switch (mode) {                                                           \
        case NCS_QUANTIZE_BITGROOM:                                               \
            zero = EXPLICIT - ((int)ceil(nsd * (LN10 / LN2)) + 1);                \
            m = masks(zero, WIDTH);                                               \
            for (size_t i = 0; i < n; i++) {                                      \
                if (val[i] == fillv)                                              \
                    continue;                                                     \
                if (i % 2 == 0)                                                   \
                    bits[i] &= (U)m.keep;                                         \
                else if (bits[i] != 0)                                            \
                    bits[i] |= (U)m.set;                                          \
            }                                                                     \
            break;                                                                \
        case NCS_QUANTIZE_BITROUND:                                               \
            m = masks(EXPLICIT - nsd, WIDTH);                                     \
            for (size_t i = 0; i < n; i++)                                        \
                if (val[i] != fillv)                                              \
                    bits[i] = (U)((U)(bits[i] + (U)m.half) & (U)m.keep);          \
            break;                                                                \
        case NCS_QUANTIZE_GRANULARBR:                                             \
            for (size_t i = 0; i < n; i++) {                                      \
                if (val[i] == fillv || bits[i] == 0 || !isfinite(val[i]) ||       \
                    val[i] == 0)                                                  \
                    continue;                                                     \
                m = masks(granular_zero(val[i], nsd, EXPLICIT), WIDTH);           \
                bits[i] = (U)((U)(bits[i] + (U)m.half) & (U)m.keep);              \
            }                                                                     \
            break;                                                                \
        default:                                                                  \
            break;                                                                \
        }                                                                         \
    } while (0)

void ncsi_quantize(int type, void *vals, size_t n, int mode, int nsd, const void *fill)
{
    if (type == NCS_FLOAT)
        QUANTIZE_LOOP(float, uint32_t, 32, 23);
    else if (type == NCS_DOUBLE)
        QUANTIZE_LOOP(double, uint64_t, 64, 52);
}
