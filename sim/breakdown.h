/* Where each rank's simulated time went (breakdown.c). */
#ifndef ICSIM_BREAKDOWN_H
#define ICSIM_BREAKDOWN_H

#include <stdio.h>

#include "runtime.h"

/* The table of --breakdown, on F: per rank and in total, up to END_S for ranks still running. */
void icsim_breakdown_print(const struct icsim_runtime *rt, double end_s, FILE *f);

#endif
