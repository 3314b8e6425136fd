/*
 * timing.c -- how the harness times anything: calibrated batches,
 * interleaved across the things compared.
 *
 * Each thing compared (an engine on a test, an engine's strided get, ...)
 * has a batch function making n calls.  Its batch size is calibrated
 * alone: grown until a batch takes a quarter of its share of min-time,
 * then scaled to the share (min-time / TI_BATCHES).  Then TI_BATCHES
 * rounds time one batch of each in turn, A B C C B A A B C ..., so that
 * drift of the machine hits them alike and no one always follows the
 * same other.  The result is the median batch, per call.  A thing whose
 * batch size is given (calls > 0 on entry) keeps it: its batches hold a
 * fixed cost (a sync) that the size amortises, so it must be the same for
 * everything compared.
 */
#include "timeit.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static long calibrate(const ti_timed *t, double target)
{
    long calls = 1;
    for (;;) {
        double secs = t->batch(t->ctx, calls), f;
        if (secs >= target / 4) {
            f = secs < target ? 1.1 * target / secs : 1;
            return (long)((double)calls * f) + 1;
        }
        f = secs > 0 ? target / secs : 10;
        f = f < 2 ? 2 : f > 10 ? 10 : f;
        calls = (long)((double)calls * f);
    }
}

void ti_time_interleaved(ti_timed *t, int n, double min_time)
{
    double target = min_time / TI_BATCHES;
    double *secs = malloc(sizeof(double) * TI_BATCHES * (size_t)(n > 0 ? n : 1));
    if (secs == NULL)
        ti_die("out of memory");
    for (int i = 0; i < n; i++)
        if (t[i].calls <= 0)
            t[i].calls = calibrate(&t[i], target);
    for (int b = 0; b < TI_BATCHES; b++)
        for (int i = 0; i < n; i++) {
            int j = b % 2 ? n - 1 - i : i;
            secs[j * TI_BATCHES + b] = t[j].batch(t[j].ctx, t[j].calls) / (double)t[j].calls;
        }
    for (int i = 0; i < n; i++) {
        qsort(secs + i * TI_BATCHES, TI_BATCHES, sizeof *secs, cmp_double);
        t[i].usec = secs[i * TI_BATCHES + TI_BATCHES / 2] * 1e6;
    }
    free(secs);
}
