/*
 * alloc_fault.h -- an allocation countdown for the fault-injection tests
 * (alloc_fault.c, linked in place of the shipped lib/common/alloc.c).
 */
#ifndef NCSI_ALLOC_FAULT_H
#define NCSI_ALLOC_FAULT_H

#include "common.h"

/* The countdown-th allocation of the library from now fails (0: none). */
void ncsi_fault_alloc(long countdown);

#endif /* NCSI_ALLOC_FAULT_H */
