/*
 * alloc.c -- the library's allocation wrappers (common.h), as shipped.
 *
 * The fault-injection tests link tests/support/alloc_fault.c in place of
 * this file, whose wrappers make a chosen allocation fail; this one only
 * forwards, so the installed library carries no test hook.
 */
#include "common.h"

#include <stdlib.h>
#include <string.h>

void *ncsi_malloc(size_t n)
{
    return malloc(n);
}

void *ncsi_calloc(size_t n, size_t size)
{
    return calloc(n, size);
}

void *ncsi_realloc(void *p, size_t n)
{
    return realloc(p, n);
}

char *ncsi_strdup(const char *s)
{
    return strdup(s);
}
