/*
 * par.h -- what the parallel API (par.c, the functions of ncslab_par.h)
 * builds on: the API layer's table of open files and its openers with a
 * chosen store, and the parallel classic back end.  Only this folder and
 * lib/store/mpi see <mpi.h>.
 */
#ifndef NCSI_PAR_H
#define NCSI_PAR_H

#include "api.h"
#include "mpi_store.h"

#include <ncslab_par.h>

#endif /* NCSI_PAR_H */
