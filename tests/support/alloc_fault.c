/*
 * alloc_fault.c -- the library's allocation wrappers with a countdown, for
 * the fault-injection tests, linked in place of lib/common/alloc.c.
 */
#include "alloc_fault.h"

#include <stdlib.h>
#include <string.h>

static long alloc_countdown;

void ncsi_fault_alloc(long countdown)
{
    alloc_countdown = countdown;
}

static int alloc_fails(void)
{
    return alloc_countdown > 0 && --alloc_countdown == 0;
}

void *ncsi_malloc(size_t n)
{
    return alloc_fails() ? NULL : malloc(n);
}

void *ncsi_calloc(size_t n, size_t size)
{
    return alloc_fails() ? NULL : calloc(n, size);
}

void *ncsi_realloc(void *p, size_t n)
{
    return alloc_fails() ? NULL : realloc(p, n);
}

char *ncsi_strdup(const char *s)
{
    return alloc_fails() ? NULL : strdup(s);
}
