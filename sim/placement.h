/* Rank placement (placement.c): which SimGrid host (socket) each rank runs on. Included by
 * platform.h. */
#ifndef ICSIM_PLACEMENT_H
#define ICSIM_PLACEMENT_H

#include <stddef.h>

struct icsim_platform;

/* Placement: rank -> host (socket) from "block", "cyclic", "NxC", "n0,n1,..." (node per rank,
 * or node.socket) or a configuration file (placement_file.h). Cores are filled socket by socket
 * within a node. Returns 0, or -1 with the fix in ERR. */
int icsim_place(const struct icsim_platform *pf, int nranks, const char *spec, int *rank_host, char *err,
                size_t errlen);

#endif
