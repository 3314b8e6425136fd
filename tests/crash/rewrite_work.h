/*
 * rewrite_work.h -- the writer check_crash_rewrite and check_powerloss
 * share, and the check of what it leaves: C(y=NY, x=NXR) int in chunks of
 * CY rows, written with round 0's values; round r rewrites rows with
 * values that encode (r, y, x); the state of commit k has the first
 * chunk's rows at round k and the others at the last odd round <= k (the
 * writers rewrite every row in odd rounds, the first chunk's in even ones).
 */
#ifndef NCSLAB_REWRITE_WORK_H
#define NCSLAB_REWRITE_WORK_H

#include <stddef.h>

#define NY      320
#define NXR     4096
#define CY      16
#define ROUNDS  5

/* The value of row y, column x written in round r. */
int rw_value(int r, size_t y, size_t x);
/* The round whose values row y holds in the state of commit k. */
int rw_row_round(int k, size_t y);
/* Writes the first nrows rows of variable 0 with round r's values. */
int rw_put_rows(int nc, int r, size_t nrows);
/* Creates path with variable C holding round 0 (Check assertions). */
void rw_make_file(const char *path);
/* "" when the file holds exactly the state of one commit k >= synced
 * (*kp), else what is wrong, in msg. */
const char *rw_check_state(const char *path, int synced, int *kp, char *msg, size_t msz);

#endif
