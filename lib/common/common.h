/*
 * common.h -- what every layer of libncslab shares: status codes and the
 * macro that makes an internal error, allocation, checked arithmetic, the
 * external types and their byte order, vector clones.
 *
 * common depends on nothing but the public header; see lib/README.md for
 * who may include whom.  Symbols with external linkage that are not public
 * start with ncsi_.  Below the API layer, facts already checked there are
 * stated with assert; bytes read from a file are never asserted on, they
 * get real checks.
 */
#ifndef NCSI_COMMON_H
#define NCSI_COMMON_H

#include "config.h"
#include "ncslab.h"

#include <assert.h>
#include <stdint.h>
#include <stddef.h>

/* netCDF-C's code for asking the number of an attribute that has none
 * (a virtual one of netCDF-4, api_meta.c); the public header does not
 * name it, since only the v3 layer passes it on. */
#define NCSI_EATTMETA (-107)

/* ---- errors -------------------------------------------------------------
 * NCS_ERR(code) makes an internal error.  In debug builds it records where
 * the error was first made (retrievable with ncsi_last_error_site), which
 * turns "returned -51" into a file and line. */
#ifdef NCS_DEBUG
void ncsi_error_note(const char *file, int line);
/* Inline, so that a reader (the static analysers included) sees that the
 * code made is the code given. */
static inline int ncsi_error_at(int code, const char *file, int line)
{
    ncsi_error_note(file, line);
    return code;
}
#define NCS_ERR(code) ncsi_error_at((code), __FILE__, __LINE__)
#else
#define NCS_ERR(code) (code)
#endif
const char *ncsi_last_error_site(void);



/* ---- the diagnosis of an open (diag.c) ----------------------------------
 * ncs_open brackets its work with ncsi_diag_reset and ncsi_diag_done; in
 * between, the code that rejects a file names the fault and its byte
 * offset (ncsi_diag_fault: the first one counts), and the code that lets
 * an irregularity pass, as netCDF-C does, notes it (ncsi_diag_note).
 * ncsi_diag_get serves ncs_inq_open_diag: index 0 the fault, 1.. the
 * notes.  Messages are phrases naming the part of the file ("variable
 * \"t\": ..."), without a final period. */
#define NCSI_DIAG_NOTES 16
#define NCSI_DIAG_NOWHERE UINT64_MAX  /* a fault with no one byte offset */
#if defined(__GNUC__)
#define NCSI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define NCSI_PRINTF(f, a)
#endif
void ncsi_diag_reset(void);
void ncsi_diag_fault(uint64_t offset, const char *fmt, ...) NCSI_PRINTF(2, 3);
void ncsi_diag_note(uint64_t offset, const char *fmt, ...) NCSI_PRINTF(2, 3);
void ncsi_diag_done(int status);
int ncsi_diag_get(int index, long long *offsetp, char *what, size_t len);

/* Fast paths (single-element reads, same-type copies) can be switched off,
 * so that the tests run the general code too.  Debug builds start with them
 * off; NCSLAB_FASTPATH=0/1 in the environment overrides at first open. */
extern int ncsi_fastpath;
void ncsi_fastpath_init(void);

/* Branch weights for the few paths whose layout matters (a get1 hit):
 * the expected side falls through, the other is a jump away. */
#define NCSI_LIKELY(x)   __builtin_expect(!!(x), 1)
#define NCSI_UNLIKELY(x) __builtin_expect(!!(x), 0)


/* ---- invariants -----------------------------------------------------------
 * Below the validation boundary the code states what it knows, in the
 * manner of SQLite:
 *   NCSI_ASSERT(x)  x holds, because the API layer or the code above made
 *                   it so; checked in --enable-debug builds, free otherwise.
 *   ALWAYS(x)       a defensive test of something that should always hold:
 *   NEVER(x)        release builds keep the test (and its error path),
 *                   debug builds assert that it never decides otherwise.
 * None of them is ever used on caller input or on bytes read from a file:
 * those get real checks, and a file that breaks the format's rules is
 * rejected through NCSI_CORRUPT(code), which makes the error as NCS_ERR
 * does and, in debug builds, also records it as a malformed-file rejection
 * (ncsi_last_corrupt_site), a place to put a breakpoint. */
#ifdef NCS_DEBUG
#define NCSI_ASSERT(x) assert(x)
#define ALWAYS(x) ((x) ? 1 : (assert(0), 0))
#define NEVER(x) ((x) ? (assert(0), 1) : 0)
void ncsi_corrupt_note(const char *file, int line);
static inline int ncsi_corrupt_at(int code, const char *file, int line)
{
    ncsi_corrupt_note(file, line);
    return ncsi_error_at(code, file, line);
}
#define NCSI_CORRUPT(code) ncsi_corrupt_at((code), __FILE__, __LINE__)
#else
#define NCSI_ASSERT(x) ((void)0)
#define ALWAYS(x) (x)
#define NEVER(x) (x)
#define NCSI_CORRUPT(code) (code)
#endif
/* "file:line" of the last NCSI_CORRUPT in this thread ("" in release
 * builds, or when none). */
const char *ncsi_last_corrupt_site(void);

/* ---- memory -----------------------------------------------------------------
 * Every allocation of the library goes through these (alloc.c), so the
 * fault-injection tests can link a version that makes the Nth one fail
 * (tests/support/alloc_fault.c) in place of the shipped one. */
void *ncsi_malloc(size_t n);
void *ncsi_calloc(size_t n, size_t size);
void *ncsi_realloc(void *p, size_t n);
char *ncsi_strdup(const char *s);

/* ---- checked arithmetic ------------------------------------------------- */
static inline int ncsi_mul_u64(uint64_t a, uint64_t b, uint64_t *r)
{
    return __builtin_mul_overflow(a, b, r);
}
static inline int ncsi_add_u64(uint64_t a, uint64_t b, uint64_t *r)
{
    return __builtin_add_overflow(a, b, r);
}
#define NCS_RNDUP(x, a) ((((x) + (a) - 1) / (a)) * (a))

/* ---- types -------------------------------------------------------------- */
#define NCSI_NTYPES 12           /* NCS_NAT .. NCS_UINT64 */
/* A big-endian (file order) unsigned integer of N bits in host order, and
 * back: ncsi_be16, ncsi_be32, ncsi_be64. */
#ifdef WORDS_BIGENDIAN
#define NCSI_DEF_BE(N)                                                         \
    static inline uint##N##_t ncsi_be##N(uint##N##_t v) { return v; }
#else
#define NCSI_DEF_BE(N)                                                         \
    static inline uint##N##_t ncsi_be##N(uint##N##_t v) { return __builtin_bswap##N(v); }
#endif
NCSI_DEF_BE(16)
NCSI_DEF_BE(32)
NCSI_DEF_BE(64)

/* External (and native) size of one element, 0 for an invalid type. */
static inline size_t ncsi_type_size(int type)
{
    static const unsigned char sz[NCSI_NTYPES] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8};
    return (type > 0 && type < NCSI_NTYPES) ? sz[type] : 0;
}
/* 1 for a type valid in the given classic version (1, 2 or 5). */
int ncsi_type_ok(int type, int version);


/* ---- vector clones --------------------------------------------------------
 * x86-64's baseline (SSE2) lacks byte shuffles and three-operand vector
 * instructions: a function marked NCSI_VEC_CLONES is also compiled for AVX2
 * and the loader picks the version the processor runs (an ifunc).
 * Elsewhere, under ThreadSanitizer, or with -DNCSI_NO_CLONES, one version. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NCSI_NO_CLONES 1        /* ThreadSanitizer's instrumented resolvers run
                                   at load time before its runtime is up */
#endif
#endif
#if defined(__SANITIZE_THREAD__) && !defined(NCSI_NO_CLONES)
#define NCSI_NO_CLONES 1
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(NCSI_NO_CLONES) && defined(HAVE_TARGET_CLONES)
#define NCSI_VEC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define NCSI_VEC_CLONES
#endif


/* What a layer's optional fast path returns for "take the general path". */
#define NCSI_DECLINED 1

#endif /* NCSI_COMMON_H */
