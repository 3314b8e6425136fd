/*
 * place.c -- placement and transpose kernels of the hyperslab engine, and
 * the mapped get built on them.
 *
 * A mapped get (a memory map that is not the natural order) reads its slab
 * in pieces, each in natural order into a dense buffer or seen in place
 * through a store's view, and places every piece into memory with the map
 * here.  When the map makes some dimension a contiguous in memory and the
 * last (dense-contiguous) dimension b is not, each a x b plane is a matrix
 * transpose, done in tiles of 16- or 32-byte rows with vector interleaves;
 * everything else is copied element by element, or row by row where both
 * sides are contiguous.  ncsi_slab_place_ref is the plain scalar kernel the
 * tests compare these with.
 *
 * The engine knows no store: the caller of ncsi_get_mapped supplies the
 * reads and views of pieces (ncsi_mapped_src).  Invariants: a piece is a
 * sub-slab of the request with the same strides; a source step or map
 * given to the kernels is in elements; nothing is placed outside the
 * span the map gives the slab (the API layer checked it is addressable).
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

/* An element as it is (NOSWAP) or byte-reversed. */
#define NOSWAP(x) (x)
#define BSWAP2(x) __builtin_bswap16(x)
#define BSWAP4(x) __builtin_bswap32(x)
#define BSWAP8(x) __builtin_bswap64(x)

/* dst[j*dstride + i] = src[i*sstride + j], i < rows, j < cols, elements of
 * one size (strides in elements), one element at a time; swap: each
 * element byte-reversed on the way.  Either side may be unaligned (a view
 * of a file's bytes). */
#define TRANSPOSE_SCALAR(T, SW)                                                \
    do {                                                                       \
        for (size_t i = 0; i < rows; i++)                                      \
            for (size_t j = 0; j < cols; j++) {                                \
                T v_;                                                          \
                memcpy(&v_, src + ((ptrdiff_t)i * sstride + (ptrdiff_t)j) * (ptrdiff_t)sizeof v_, \
                       sizeof v_);                                             \
                v_ = SW(v_);                                                   \
                memcpy(dst + ((ptrdiff_t)j * dstride + (ptrdiff_t)i) * (ptrdiff_t)sizeof v_, \
                       &v_, sizeof v_);                                        \
            }                                                                  \
    } while (0)
#define SWAPPED_OR_NOT(MACRO, T, N)                                            \
    do {                                                                       \
        if (swap)                                                              \
            MACRO(T, BSWAP##N);                                                \
        else                                                                   \
            MACRO(T, NOSWAP);                                                  \
    } while (0)

static void transpose_scalar(const unsigned char *src, ptrdiff_t sstride, unsigned char *dst,
                             ptrdiff_t dstride, size_t rows, size_t cols, size_t esz, int swap)
{
    switch (esz) {
    case 1: TRANSPOSE_SCALAR(uint8_t, NOSWAP); break;
    case 2: SWAPPED_OR_NOT(TRANSPOSE_SCALAR, uint16_t, 2); break;
    case 4: SWAPPED_OR_NOT(TRANSPOSE_SCALAR, uint32_t, 4); break;
    case 8: SWAPPED_OR_NOT(TRANSPOSE_SCALAR, uint64_t, 8); break;
    default:
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++)
                memcpy(dst + ((ptrdiff_t)j * dstride + (ptrdiff_t)i) * (ptrdiff_t)esz,
                       src + ((ptrdiff_t)i * sstride + (ptrdiff_t)j) * (ptrdiff_t)esz, esz);
    }
}

#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define HAVE_TILES 1
#endif
#endif

#ifdef HAVE_TILES
/* A tile is B rows of 16 bytes, B = 16 / element size.  log2(B) rounds of
 * interleaving row i with row i + B/2 (low halves into row 2i, high halves
 * into row 2i+1) transpose it.  With swap, each row's elements are
 * byte-reversed as it is loaded (one byte shuffle). */
typedef uint8_t v16u8 __attribute__((vector_size(16)));
typedef uint16_t v8u16 __attribute__((vector_size(16)));
typedef uint32_t v4u32 __attribute__((vector_size(16)));
typedef uint64_t v2u64 __attribute__((vector_size(16)));
typedef uint8_t v32u8 __attribute__((vector_size(32)));
#define UNPAREN(...) __VA_ARGS__

/* A vector's elements of 2, 4 or 8 bytes byte-reversed. */
#define REV2(i) i + 1, i
#define REV4(i) i + 3, i + 2, i + 1, i
#define REV8(i) REV4(i + 4), REV4(i)
#define REV2_16(v) __builtin_shufflevector(v, v, REV2(0), REV2(2), REV2(4), REV2(6), \
                                           REV2(8), REV2(10), REV2(12), REV2(14))
#define REV4_32(v) __builtin_shufflevector(v, v, REV4(0), REV4(4), REV4(8), REV4(12), \
                                           REV4(16), REV4(20), REV4(24), REV4(28))
#define REV8_32(v) __builtin_shufflevector(v, v, REV8(0), REV8(8), REV8(16), REV8(24))
#define NO_REV(v) (v)
#define REV2_V8U16(v) ((v8u16)REV2_16((v16u8)(v)))

/* The log2(B) rounds of interleaves on the B rows r (t the scratch). */
#define INTERLEAVE_ROUNDS(B, LO, HI)                                           \
    do {                                                                       \
        _Pragma("GCC unroll 4")                                                \
        for (int k = 1; k < (B); k *= 2) {                                     \
            _Pragma("GCC unroll 8")                                            \
            for (int i = 0; i < (B) / 2; i++) {                                \
                t[2 * i] = __builtin_shufflevector(r[i], r[i + (B) / 2], UNPAREN LO); \
                t[2 * i + 1] = __builtin_shufflevector(r[i], r[i + (B) / 2], UNPAREN HI); \
            }                                                                  \
            memcpy(r, t, sizeof r);                                            \
        }                                                                      \
    } while (0)

#define DEF_TILE(NAME, VT, B, LO, HI, REV)                                     \
    static inline __attribute__((always_inline)) void                          \
    NAME(const unsigned char *src, ptrdiff_t sbytes, unsigned char *dst,       \
         ptrdiff_t dbytes, int swap)                                           \
    {                                                                          \
        VT r[B], t[B];                                                         \
        _Pragma("GCC unroll 16")                                               \
        for (int i = 0; i < (B); i++) {                                        \
            memcpy(&r[i], src + i * sbytes, 16);                               \
            if (swap)                                                          \
                r[i] = REV(r[i]);                                              \
        }                                                                      \
        INTERLEAVE_ROUNDS(B, LO, HI);                                          \
        _Pragma("GCC unroll 16")                                               \
        for (int i = 0; i < (B); i++)                                          \
            memcpy(dst + i * dbytes, &r[i], 16);                               \
    }
DEF_TILE(tile1, v16u8, 16,
         (0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23),
         (8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31), NO_REV)
DEF_TILE(tile2, v8u16, 8, (0, 8, 1, 9, 2, 10, 3, 11), (4, 12, 5, 13, 6, 14, 7, 15),
         REV2_V8U16)

/* 1- and 2-byte elements, where a plane has more than B = 16 / size rows:
 * two B x B tiles, in the two 16-byte halves of 32-byte rows, so that each
 * shuffle moves 32 bytes.  A band is n rows (B < n <= 2B) of the plane and
 * B columns; it becomes B rows of n elements.  Where n = 2B, rows B.. of
 * the band go in the high halves and each row is stored whole (32 bytes).
 * Where n < 2B:
 *  - with spill (memory dense: each row is followed by the next one, which
 *    is stored after it), the same, with the low half's row again in the
 *    high halves past the band's end; each row is stored whole, its last
 *    2B - n elements into the next row, but for the plane's last row
 *    (last), stored exactly;
 *  - otherwise rows n-B..n-1 go in the high halves (the rows both hold
 *    twice), and each half is stored at its place.
 * Two 16-byte stores where one 32-byte store would do cost 20 planes of
 * 30x40 bytes 0.09 us; spill is for bytes only, as shorts measured slower
 * with it (planes of 15x20, 0.28 -> 0.29 us, whose bands are short, and
 * of 30x40, 0.73 -> 0.78 us, whose bands are not). */
/* Keeps the compiler from turning a pointer stepped row by row back into
 * one address computation (and a register, often spilled) per row. */
#define NCSI_OPAQUE(p) __asm__("" : "+r"(p))
typedef uint16_t v16u16 __attribute__((vector_size(32)));
#define DEF_VTILE(NAME, VT, B, LO, HI, REV)                                    \
    static inline __attribute__((always_inline)) void                          \
    NAME(const unsigned char *src, ptrdiff_t sbytes, unsigned char *dst,       \
         ptrdiff_t dbytes, size_t n, int spill, int last, int swap)            \
    {                                                                          \
        VT r[B], t[B];                                                         \
        size_t esz = 16 / (B), m = n - (B); /* the band's rows in high halves */ \
        size_t hb = spill || m == (B) ? 16 : m * esz; /* their place */        \
        ptrdiff_t hoff = (ptrdiff_t)(spill ? (B) : m) * sbytes;                \
        const unsigned char *q = src;                                          \
        unsigned char *d_ = dst;                                               \
        _Pragma("GCC unroll 16")                                               \
        for (int i = 0; i < (B); i++) {                                        \
            v16u8 lo, hi;                                                      \
            v32u8 both;                                                        \
            /* past the band's end, the low half's row (any would do) */      \
            ptrdiff_t h = !spill || (size_t)i < m ? hoff : 0;                  \
            memcpy(&lo, q, 16);                                                \
            memcpy(&hi, q + h, 16);                                            \
            both = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, \
                                           12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, \
                                           24, 25, 26, 27, 28, 29, 30, 31);    \
            q += sbytes;                                                       \
            NCSI_OPAQUE(q);                                                    \
            if (swap)                                                          \
                both = REV(both);                                              \
            r[i] = (VT)both;                                                   \
        }                                                                      \
        INTERLEAVE_ROUNDS(B, LO, HI);                                          \
        if (hb == 16) {                                                        \
            _Pragma("GCC unroll 16")                                           \
            for (int i = 0; i < (B); i++) {                                    \
                if (i < (B) - 1 || !spill || !last) {                          \
                    memcpy(d_, &r[i], 32);                                     \
                } else {                                                       \
                    unsigned char w[32];                                       \
                    memcpy(w, &r[i], 32);                                      \
                    memcpy(d_, w, 16);                                         \
                    memcpy(d_ + n * esz - 16, w + n * esz - 16, 16);           \
                }                                                              \
                d_ += dbytes;                                                  \
                NCSI_OPAQUE(d_);                                               \
            }                                                                  \
        } else {                                                               \
            _Pragma("GCC unroll 16")                                           \
            for (int i = 0; i < (B); i++) {                                    \
                memcpy(d_, &r[i], 16);                                         \
                memcpy(d_ + hb, (unsigned char *)&r[i] + 16, 16);              \
                d_ += dbytes;                                                  \
                NCSI_OPAQUE(d_);                                               \
            }                                                                  \
        }                                                                      \
    }
#define NO_REV32(v) (v)
#define REV2_32(v) __builtin_shufflevector(v, v, REV2(0), REV2(2), REV2(4), REV2(6), \
                                           REV2(8), REV2(10), REV2(12), REV2(14), REV2(16), \
                                           REV2(18), REV2(20), REV2(22), REV2(24), REV2(26), \
                                           REV2(28), REV2(30))
DEF_VTILE(vtile1, v32u8, 16,
          (0, 32, 1, 33, 2, 34, 3, 35, 4, 36, 5, 37, 6, 38, 7, 39,
           16, 48, 17, 49, 18, 50, 19, 51, 20, 52, 21, 53, 22, 54, 23, 55),
          (8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47,
           24, 56, 25, 57, 26, 58, 27, 59, 28, 60, 29, 61, 30, 62, 31, 63), NO_REV32)
DEF_VTILE(vtile2, v16u16, 8,
          (0, 16, 1, 17, 2, 18, 3, 19, 8, 24, 9, 25, 10, 26, 11, 27),
          (4, 20, 5, 21, 6, 22, 7, 23, 12, 28, 13, 29, 14, 30, 15, 31), REV2_32)

/* 4- and 8-byte elements: tiles of 32-byte rows, 8 x 8 and 4 x 4.  The
 * shuffles keep to the two 16-byte halves except the last round, which
 * swaps halves between rows: with AVX2 each is one instruction, and a tile
 * moves in half as many loads and stores as in 16-byte rows. */
typedef uint32_t v8u32 __attribute__((vector_size(32)));
typedef uint64_t v4u64 __attribute__((vector_size(32)));
static inline __attribute__((always_inline)) void
tile4(const unsigned char *src, ptrdiff_t sbytes, unsigned char *dst, ptrdiff_t dbytes,
      int swap)
{
    v8u32 r[8], t[8];
    _Pragma("GCC unroll 8")
    for (int i = 0; i < 8; i++) {
        memcpy(&r[i], src + i * sbytes, 32);
        if (swap)
            r[i] = (v8u32)REV4_32((v32u8)r[i]);
    }
    /* interleave pairs of rows by elements, then by element pairs:
     * t[2c] and t[2c + 1] hold columns c and c + 4 of rows 0-3 and 4-7 */
    _Pragma("GCC unroll 4")
    for (int i = 0; i < 8; i += 2) {
        v8u32 lo = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
        v8u32 hi = __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
        r[i] = lo;
        r[i + 1] = hi;
    }
    _Pragma("GCC unroll 2")
    for (int h = 0; h < 8; h += 4) {
        t[h / 4] = __builtin_shufflevector(r[h], r[h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
        t[h / 4 + 2] = __builtin_shufflevector(r[h], r[h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        t[h / 4 + 4] = __builtin_shufflevector(r[h + 1], r[h + 3], 0, 1, 8, 9, 4, 5, 12, 13);
        t[h / 4 + 6] = __builtin_shufflevector(r[h + 1], r[h + 3], 2, 3, 10, 11, 6, 7, 14, 15);
    }
    _Pragma("GCC unroll 4")
    for (int c = 0; c < 4; c++) {
        v8u32 lo = __builtin_shufflevector(t[2 * c], t[2 * c + 1], 0, 1, 2, 3, 8, 9, 10, 11);
        v8u32 hi = __builtin_shufflevector(t[2 * c], t[2 * c + 1], 4, 5, 6, 7, 12, 13, 14, 15);
        memcpy(dst + c * dbytes, &lo, 32);
        memcpy(dst + (c + 4) * dbytes, &hi, 32);
    }
}

static inline __attribute__((always_inline)) void
tile8(const unsigned char *src, ptrdiff_t sbytes, unsigned char *dst, ptrdiff_t dbytes,
      int swap)
{
    v4u64 r[4], t[4];
    _Pragma("GCC unroll 4")
    for (int i = 0; i < 4; i++) {
        memcpy(&r[i], src + i * sbytes, 32);
        if (swap)
            r[i] = (v4u64)REV8_32((v32u8)r[i]);
    }
    /* t[2k] and t[2k + 1]: columns k and k + 2 of rows 0-1 and 2-3 */
    _Pragma("GCC unroll 2")
    for (int i = 0; i < 4; i += 2) {
        t[i / 2] = __builtin_shufflevector(r[i], r[i + 1], 0, 4, 2, 6);
        t[i / 2 + 2] = __builtin_shufflevector(r[i], r[i + 1], 1, 5, 3, 7);
    }
    _Pragma("GCC unroll 2")
    for (int k = 0; k < 2; k++) {
        v4u64 lo = __builtin_shufflevector(t[2 * k], t[2 * k + 1], 0, 1, 4, 5);
        v4u64 hi = __builtin_shufflevector(t[2 * k], t[2 * k + 1], 2, 3, 6, 7);
        memcpy(dst + k * dbytes, &lo, 32);
        memcpy(dst + (k + 2) * dbytes, &hi, 32);
    }
}
#endif

/* The planes of one transpose: n of them, plane p from srcs[p] + off when
 * srcs is not NULL, else from src + p * sstep; to dst + p * dstep (steps
 * and off in bytes).  Walking them in one call keeps the setup of each
 * out of the loop: a transposed get of 10 planes of 30x40 bytes, 9,870 ->
 * 9,240 instructions. */
typedef struct {
    const unsigned char *src;
    const unsigned char *const *srcs;
    ptrdiff_t off, sstep, dstep;
    size_t n;
} plane_set;
#define PLANE_SRC(ps, p)                                                       \
    ((ps)->srcs != NULL ? (ps)->srcs[p] + (ps)->off : (ps)->src + (ptrdiff_t)(p) * (ps)->sstep)

/* Tiles of BR rows and BC columns cover each plane, if it holds one, and
 * transpose() returns; where rows or cols is not a multiple of them, the
 * last tile of a row or column overlaps the one before (its elements are
 * written twice, with the same values). */
#define TILES(TILE, BR, BC, SWAP)                                              \
    if (rows >= (BR) && cols >= (BC)) {                                        \
        for (size_t p_ = 0; p_ < ps->n; p_++) {                                \
            const unsigned char *src = PLANE_SRC(ps, p_);                      \
            unsigned char *dst = dst0 + (ptrdiff_t)p_ * ps->dstep;             \
            for (size_t i_ = 0;; i_ += (BR)) {                                 \
                if (i_ + (BR) > rows)                                          \
                    i_ = rows - (BR);                                          \
                for (size_t j_ = 0;; j_ += (BC)) {                             \
                    if (j_ + (BC) > cols)                                      \
                        j_ = cols - (BC);                                      \
                    TILE(src + ((ptrdiff_t)i_ * sstride + (ptrdiff_t)j_) * e, sstride * e, \
                         dst + ((ptrdiff_t)j_ * dstride + (ptrdiff_t)i_) * e, dstride * e, \
                         SWAP);                                                \
                    if (j_ + (BC) == cols)                                     \
                        break;                                                 \
                }                                                              \
                if (i_ + (BR) == rows)                                         \
                    break;                                                     \
            }                                                                  \
        }                                                                      \
        return;                                                                \
    }
/* Vertical tiles (B columns, bands of 2B rows) over each plane of more
 * than B rows: the last band moved up to overlap the one before, or, where
 * the plane has fewer than 2B rows, the only band short (spilling into
 * the next row where memory is dense). */
#define VTILES(TILE, B, SPILL, SWAP)                                           \
    if (rows > (B) && cols >= (B)) {                                           \
        if ((SPILL) && dstride == (ptrdiff_t)rows && rows < 2 * (B)) {         \
            VTILE_PLANES(TILE, B, 1, SWAP)                                     \
        } else {                                                               \
            VTILE_PLANES(TILE, B, 0, SWAP)                                     \
        }                                                                      \
        return;                                                                \
    }
#define VTILE_PLANES(TILE, B, SPILL, SWAP)                                     \
    for (size_t p_ = 0; p_ < ps->n; p_++) {                                    \
        const unsigned char *src = PLANE_SRC(ps, p_);                          \
        unsigned char *dst = dst0 + (ptrdiff_t)p_ * ps->dstep;                 \
        for (size_t i_ = 0;; i_ += 2 * (B)) {                                  \
            size_t n_ = 2 * (B);                                               \
            if (i_ + n_ > rows) {                                              \
                if (rows >= n_)                                                \
                    i_ = rows - n_;                                            \
                else                                                           \
                    n_ = rows;                                                 \
            }                                                                  \
            for (size_t j_ = 0;; j_ += (B)) {                                  \
                if (j_ + (B) > cols)                                           \
                    j_ = cols - (B);                                           \
                TILE(src + ((ptrdiff_t)i_ * sstride + (ptrdiff_t)j_) * e, sstride * e, \
                     dst + ((ptrdiff_t)j_ * dstride + (ptrdiff_t)i_) * e, dstride * e, \
                     n_, SPILL, (SPILL) && j_ + (B) == cols, SWAP);            \
                if (j_ + (B) == cols)                                          \
                    break;                                                     \
            }                                                                  \
            if (i_ + n_ == rows)                                               \
                break;                                                         \
        }                                                                      \
    }

/* The tiles of one size, specialised for swap on and off. */
#define TILES_SWAP(TILES, ...)                                                 \
    do {                                                                       \
        if (swap) {                                                            \
            TILES(__VA_ARGS__, 1)                                              \
        } else {                                                               \
            TILES(__VA_ARGS__, 0)                                              \
        }                                                                      \
    } while (0)

/* The planes of ps, each of rows x cols elements of esz bytes (strides in
 * elements), transposed into dst0 at dstride. */
NCSI_VEC_CLONES
static void transpose(const plane_set *ps, ptrdiff_t sstride, unsigned char *dst0,
                      ptrdiff_t dstride, size_t rows, size_t cols, size_t esz, int swap)
{
#ifdef HAVE_TILES
    ptrdiff_t e = (ptrdiff_t)esz;
    switch (esz) {
    case 1:
        VTILES(vtile1, 16, 1, 0)
        TILES(tile1, 16, 16, 0)
        break;
    case 2:
        TILES_SWAP(VTILES, vtile2, 8, 0);
        TILES_SWAP(TILES, tile2, 8, 8);
        break;
    case 4: TILES_SWAP(TILES, tile4, 8, 8); break;
    case 8: TILES_SWAP(TILES, tile8, 4, 4); break;
    default: break;
    }
#endif
    for (size_t p = 0; p < ps->n; p++)
        transpose_scalar(PLANE_SRC(ps, p), sstride, dst0 + (ptrdiff_t)p * ps->dstep, dstride,
                         rows, cols, esz, swap);
}

#define COPY_STEPS(T, SW)                                                      \
    do {                                                                       \
        for (uint64_t i = 0; i < n; i++) {                                     \
            T v_;                                                              \
            memcpy(&v_, src + (ptrdiff_t)i * sstep * (ptrdiff_t)sizeof v_, sizeof v_); \
            v_ = SW(v_);                                                       \
            memcpy(dst + (ptrdiff_t)i * dstep * (ptrdiff_t)sizeof v_, &v_, sizeof v_); \
        }                                                                      \
    } while (0)

/* n elements sstep elements apart to memory dstep elements apart,
 * byte-reversed with swap. */
static void copy_steps(const unsigned char *src, ptrdiff_t sstep, unsigned char *dst,
                       ptrdiff_t dstep, uint64_t n, size_t esz, int swap)
{
    if (sstep == 1 && dstep == 1 && !(swap && esz > 1)) {
        memcpy(dst, src, (size_t)n * esz);
        return;
    }
    switch (esz) {
    case 1: COPY_STEPS(uint8_t, NOSWAP); break;
    case 2: SWAPPED_OR_NOT(COPY_STEPS, uint16_t, 2); break;
    case 4: SWAPPED_OR_NOT(COPY_STEPS, uint32_t, 4); break;
    case 8: SWAPPED_OR_NOT(COPY_STEPS, uint64_t, 8); break;
    default:
        for (uint64_t i = 0; i < n; i++)
            memcpy(dst + (ptrdiff_t)i * dstep * (ptrdiff_t)esz,
                   src + (ptrdiff_t)i * sstep * (ptrdiff_t)esz, esz);
    }
}

int ncsi_slab_natural_map(const ncs_slab *s)
{
    ptrdiff_t step = 1;
    for (int d = s->ndims - 1; d >= 0; d--) {
        if (s->count[d] > 1 && s->imap[d] != step)
            return 0;
        step *= (ptrdiff_t)s->count[d];
    }
    return 1;
}

int ncsi_slab_pieces_dim(const ncs_slab *s)
{
    int inner = 0;
    for (int d = s->ndims - 1; d >= 0; d--)
        if (s->count[d] > 1 && ++inner == 3)
            return d;
    return -1;
}

/* ncsi_slab_place and ncsi_slab_place_pieces: froms NULL, or the source of
 * each index of dimension pd. */
static int place(const ncs_slab *s, const unsigned char *from, int pd,
                 const unsigned char *const *froms, const ptrdiff_t *fstep, int swap,
                 void *buf, size_t esz)
{
    /* the dimensions of count > 1: count, source step, memory step */
    uint64_t cnt_inl[NCSI_SLAB_INLINE], *cnt = cnt_inl, *idx, tstep = 1;
    ptrdiff_t stp_inl[2 * NCSI_SLAB_INLINE], *tst = stp_inl, *mst;
    uint64_t idx_inl[NCSI_SLAB_INLINE];
    const unsigned char *src = from;
    unsigned char *dst = buf;
    ptrdiff_t e = (ptrdiff_t)esz;
    int nd = 0, a = -1, b, c, status = NCS_NOERR, top = -1;

    if (s->nelems == 0)
        return NCS_NOERR;
    idx = idx_inl;
    if (s->ndims > NCSI_SLAB_INLINE) {
        cnt = ncsi_malloc(2 * (size_t)s->ndims * sizeof *cnt);
        tst = ncsi_malloc(2 * (size_t)s->ndims * sizeof *tst);
        if (cnt == NULL || tst == NULL) {
            free(cnt);
            free(tst);
            return NCS_ERR(NCS_ENOMEM);
        }
        idx = cnt + s->ndims;
    }
    mst = tst + (s->ndims > NCSI_SLAB_INLINE ? s->ndims : NCSI_SLAB_INLINE);
    /* innermost first */
    for (int d = s->ndims - 1; d >= 0; d--) {
        if (s->count[d] > 1) {
            if (d == pd && froms != NULL)
                top = nd;                   /* the pieces' dimension in the list */
            cnt[nd] = s->count[d];
            tst[nd] = top == nd      ? 0
                      : fstep != NULL ? fstep[d]
                                      : (ptrdiff_t)tstep;
            mst[nd] = s->imap[d];
            nd++;
        }
        tstep *= s->count[d];
    }
    if (froms != NULL)
        src = froms[0];
    if (nd == 0) {
        copy_steps(src, 1, dst, 1, 1, esz, swap);
        goto done;
    }
    /* b = 0 is the innermost dimension, a, if any, the one the map makes
     * contiguous: a transpose where b is contiguous in the source and not
     * in memory */
    b = 0;
    if (mst[b] != 1 && tst[b] == 1)
        for (int k = 1; k < nd; k++)
            if (mst[k] == 1)
                a = k;
    if (top >= 0 && (top == b || top == a)) {
        status = NCSI_DECLINED;
        goto done;
    }
    for (int k = 0; k < nd; k++)
        idx[k] = 0;
    /* with a transpose, the planes of dimension c (the innermost other
     * than a and b, if any) go in one call */
    c = -1;
    if (a > 0)
        for (int k = 1; k < nd && c < 0; k++)
            if (k != a)
                c = k;
    /* so and mo: the offsets of the current plane or row (or set of
     * planes), stepped with the indices of the other dimensions */
    for (ptrdiff_t so = 0, mo = 0;;) {
        int k;
        if (top > 0 && top != c)
            src = froms[idx[top]];
        if (a > 0) {
            plane_set ps = { src + so * e, NULL, so * e, c > 0 ? tst[c] * e : 0,
                             c > 0 ? mst[c] * e : 0, c > 0 ? (size_t)cnt[c] : 1 };
            if (c > 0 && c == top)
                ps.srcs = froms;
            transpose(&ps, tst[a], dst + mo * e, mst[b], (size_t)cnt[a], (size_t)cnt[b], esz,
                      swap);
        } else {
            copy_steps(src + so * e, tst[b], dst + mo * e, mst[b], cnt[b], esz, swap);
        }
        for (k = 1; k < nd; k++) {
            if (k == a || k == c)
                continue;
            if (++idx[k] < cnt[k]) {
                so += tst[k];
                mo += mst[k];
                break;
            }
            so -= (ptrdiff_t)(cnt[k] - 1) * tst[k];
            mo -= (ptrdiff_t)(cnt[k] - 1) * mst[k];
            idx[k] = 0;
        }
        if (k == nd)
            break;
    }
done:
    if (cnt != cnt_inl) {
        free(cnt);
        free(tst);
    }
    return status;
}

int ncsi_slab_place(const ncs_slab *s, const void *from, const ptrdiff_t *fstep, int swap,
                    void *buf, size_t esz)
{
    return place(s, from, -1, NULL, fstep, swap, buf, esz);
}

int ncsi_slab_place_pieces(const ncs_slab *s, int pd, const unsigned char *const *froms,
                           const ptrdiff_t *fstep, int swap, void *buf, size_t esz)
{
    return place(s, NULL, pd, froms, fstep, swap, buf, esz);
}

/* The reference: every element on its own, by its coordinates, with
 * nothing merged, tiled or skipped. */
int ncsi_slab_place_ref(const ncs_slab *s, const void *from, const ptrdiff_t *fstep, int swap,
                        void *buf, size_t esz)
{
    uint64_t idx_inl[NCSI_SLAB_INLINE], *idx = idx_inl;
    const unsigned char *src = from;
    unsigned char *dst = buf, tmp[64];
    int nd = s->ndims;

    NCSI_ASSERT(esz > 0 && esz <= sizeof tmp);
    if (s->nelems == 0)
        return NCS_NOERR;
    if (nd > NCSI_SLAB_INLINE) {
        idx = ncsi_calloc((size_t)nd, sizeof *idx);
        if (idx == NULL)
            return NCS_ERR(NCS_ENOMEM);
    }
    for (int d = 0; d < nd; d++)
        idx[d] = 0;
    for (;;) {
        ptrdiff_t so = 0, mo = 0, natural = 1;
        int d;
        for (d = nd - 1; d >= 0; d--) {
            so += (ptrdiff_t)idx[d] * (fstep != NULL ? fstep[d] : natural);
            mo += (ptrdiff_t)idx[d] * s->imap[d];
            natural *= (ptrdiff_t)s->count[d];
        }
        memcpy(tmp, src + so * (ptrdiff_t)esz, esz);
        for (size_t i = 0; swap && i < esz; i++)
            dst[mo * (ptrdiff_t)esz + (ptrdiff_t)i] = tmp[esz - 1 - i];
        if (!swap)
            memcpy(dst + mo * (ptrdiff_t)esz, tmp, esz);
        for (d = nd - 1; d >= 0; d--) {
            if (++idx[d] < s->count[d])
                break;
            idx[d] = 0;
        }
        if (d < 0)
            break;
    }
    if (idx != idx_inl)
        free(idx);
    return NCS_NOERR;
}

/* ---- mapped gets -----------------------------------------------------------
 * A get with a map that is not the natural order goes through pieces of
 * the slab of at most MAPPED_PIECE bytes.  Where the store has a view of a
 * piece (its elements in one piece of its cache; the request in the
 * variable's own type), the kernels above put them straight from there
 * into memory with the map, byte-reversing where the file's order is not
 * the host's; the pieces are then at most NCSI_MAPPED_SMALL bytes, so that
 * most lie in one page, as long as each still holds whole planes to
 * transpose.  Otherwise a piece is read in natural order, by the store's
 * plain path, into a dense buffer, and placed from there (transposing 2-D
 * planes in tiles). */
#define MAPPED_PIECE (256 * 1024)

int ncsi_place_viewed(const ncs_slab *p, int pd, ncsi_view *v, void *buf, size_t msz)
{
    NCSI_ASSERT(p->ndims <= NCSI_MAPPED_DIMS);
    for (int d = 0; d < p->ndims; d++) {
        if (p->count[d] == 1)
            v->bstep[d] = 0;
        else if (v->bstep[d] % (ptrdiff_t)msz != 0)
            return NCSI_DECLINED;            /* records need not be whole elements */
        else
            v->bstep[d] /= (ptrdiff_t)msz;
    }
    if (v->apart && pd >= 0)
        return place(p, NULL, pd, v->from, v->bstep, v->swap, buf, msz);
    return place(p, v->from[0], -1, NULL, v->bstep, v->swap, buf, msz);
}

/* Whether a mapped get of s may take the view: a source with views, and
 * the dimensions from the one the map makes contiguous (if any) inward at
 * most NCSI_MAPPED_SMALL bytes. */
static int viewable(const ncsi_mapped_src *src, const ncs_slab *s, size_t msz)
{
    uint64_t whole = msz;
    int d1 = s->ndims;
    if (src->place_view == NULL)
        return 0;
    for (int d = s->ndims - 1; d >= 0; d--)
        if (s->count[d] > 1 && s->imap[d] == 1)
            d1 = d;
    for (int d = d1; d < s->ndims; d++)
        whole *= s->count[d];
    return whole <= NCSI_MAPPED_SMALL;
}

int ncsi_get_mapped(const ncs_slab *s, size_t msz, const ncsi_mapped_src *src, void *buf)
{
    int nd = s->ndims, k = nd - 1, erange = 0, status;
    uint64_t inner = msz, per, limit = MAPPED_PIECE, idx_inl[NCSI_SLAB_INLINE], *idx = idx_inl;
    union { unsigned char b[NCSI_MAPPED_SMALL]; uint64_t align; } small;
    unsigned char *tmp = NULL;
    ncs_slab p;
    /* with unit strides each piece is a plain request, which the store's
     * fast path or view may take */
    size_t pst[NCSI_MAPPED_DIMS], pct[NCSI_MAPPED_DIMS];
    int plain = src->plain && nd <= NCSI_MAPPED_DIMS, view;

    NCSI_ASSERT(nd > 0 && s->nelems > 0);
    for (int d = 0; d < nd && plain; d++)
        plain = s->stride[d] == 1;
    view = plain && viewable(src, s, msz);
    per = 0;
    if (view) {
        /* pieces of up to NCSI_VIEW_MAX planes (the dimension outside
         * them), where a plane fits the scratch (NCSI_MAPPED_SMALL); else
         * of at most NCSI_MAPPED_SMALL bytes, so that most lie in one
         * page.  The planes of a piece across page boundaries must fit the
         * scratch: n dense planes cross at most n * plane / page + 1.
         * (Sized without this, 20 planes of 30x40 doubles crossed three,
         * and the dense path took them: 4.2 -> 5.1 us.) */
        int pd = ncsi_slab_pieces_dim(s);
        uint64_t plane = msz, fit;
        limit = NCSI_MAPPED_SMALL;
        for (int d = pd + 1; pd >= 0 && d < nd; d++)
            plane *= s->count[d];
        if (pd >= 0 && plane <= NCSI_MAPPED_SMALL) {
            k = pd;
            inner = plane;
            fit = NCSI_MAPPED_SMALL / plane;     /* planes the scratch holds */
            per = (fit * src->page - 1) / plane;
            if (per > NCSI_VIEW_MAX)
                per = NCSI_VIEW_MAX;
            if (per > s->count[k])
                per = s->count[k];
        }
    }
    /* pieces: single indices of dimensions 0..k-1, per indices of k, the
     * dimensions after k whole */
    if (per == 0) {
        while (k > 0 && inner * s->count[k] <= limit) {
            inner *= s->count[k];
            k--;
        }
        per = limit / inner;
        if (per > s->count[k])
            per = s->count[k];
    }
    status = ncsi_slab_copy(&p, s);
    if (status != NCS_NOERR)
        return status;
    if (k > NCSI_SLAB_INLINE)
        idx = ncsi_malloc((size_t)k * sizeof *idx);
    if (idx == NULL) {
        status = NCS_ERR(NCS_ENOMEM);
        goto done;
    }
    for (int d = 0; d < k; d++)
        idx[d] = 0;
    for (;;) {
        for (uint64_t j = 0; j < s->count[k]; j += per) {
            ptrdiff_t moff = 0, step = 1;
            unsigned char *out;
            for (int d = 0; d < k; d++) {
                p.start[d] = s->start[d] + idx[d] * s->stride[d];
                p.count[d] = 1;
                moff += (ptrdiff_t)idx[d] * s->imap[d];
            }
            p.start[k] = s->start[k] + j * s->stride[k];
            p.count[k] = s->count[k] - j < per ? s->count[k] - j : per;
            moff += (ptrdiff_t)j * s->imap[k];
            p.nelems = p.count[k] * (inner / msz);
            out = (unsigned char *)buf + moff * (ptrdiff_t)msz;
            if (plain) {
                for (int d = 0; d < nd; d++) {
                    pst[d] = (size_t)p.start[d];
                    pct[d] = (size_t)p.count[d];
                }
                if (view) {
                    status = src->place_view(src->ctx, &p, pst, pct, out, small.b,
                                             sizeof small.b);
                    if (status == NCS_NOERR)
                        continue;
                    if (status != NCSI_DECLINED)
                        goto done;
                }
            }
            if (tmp == NULL) {
                /* the dense buffer, when first needed */
                tmp = per * inner <= NCSI_MAPPED_SMALL ? small.b
                                                       : ncsi_malloc((size_t)(per * inner));
                if (tmp == NULL) {
                    status = NCS_ERR(NCS_ENOMEM);
                    goto done;
                }
            }
            for (int d = nd - 1; d >= 0; d--) {
                p.imap[d] = step;
                step *= (ptrdiff_t)p.count[d];
            }
            status = src->read(src->ctx, &p, plain ? pst : NULL, plain ? pct : NULL, tmp);
            if (status == NCS_ERANGE)
                erange = 1;
            else if (status != NCS_NOERR)
                goto done;
            for (int d = 0; d < nd; d++)
                p.imap[d] = s->imap[d];
            status = place(&p, tmp, -1, NULL, NULL, 0, out, msz);
            if (status != NCS_NOERR)
                goto done;
        }
        int d;
        for (d = k - 1; d >= 0; d--) {
            if (++idx[d] < s->count[d])
                break;
            idx[d] = 0;
        }
        if (d < 0)
            break;
    }
    if (erange)
        status = NCS_ERANGE;
done:
    if (tmp != small.b)
        free(tmp);
    if (idx != idx_inl)
        free(idx);
    ncsi_slab_release(&p);
    return status;
}
