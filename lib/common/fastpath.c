/*
 * fastpath.c -- the switch of the fast paths (common.h).
 */
#include "common.h"

#include <pthread.h>
#include <stdlib.h>

/* Fast paths: on in release builds, off in debug builds (so the tests run
 * the general code); NCSLAB_FASTPATH=0 or 1 in the environment decides. */
#ifdef NCS_DEBUG
int ncsi_fastpath = 0;
#else
int ncsi_fastpath = 1;
#endif
static pthread_once_t fastpath_once = PTHREAD_ONCE_INIT;

static void fastpath_from_env(void)
{
    const char *e = getenv("NCSLAB_FASTPATH");
    if (e != NULL && (e[0] == '0' || e[0] == '1'))
        ncsi_fastpath = e[0] == '1';
}

void ncsi_fastpath_init(void)
{
    pthread_once(&fastpath_once, fastpath_from_env);
}
