/* Configuration files for `icsim run --place`: which physical module (node) and device each MPI
 * rank gets. Modelled on the file of Vargin et al. (2004) that maps MPI ranks to device names and
 * physical modules; the format is ours:
 *
 *   # rank  device       module
 *   0       /dev/dev0    3
 *   1       /dev/dev1    3
 *   2       /dev/dev0    7.1      <- module 7, socket 1 (optional, as in --place lists)
 *
 * One line per rank, every rank 0..N-1 exactly once, in any order; '#' starts a comment. The
 * device name is kept for the reader and not interpreted. */
#ifndef ICSIM_PLACEMENT_FILE_H
#define ICSIM_PLACEMENT_FILE_H

#include <stddef.h>

struct icsim_platform;

/* 1 when SPEC names a regular file (then --place reads it as a configuration file). */
int icsim_placement_is_file(const char *spec);
/* Read PATH for NRANKS ranks on PF into a --place list ("3,3,7.1"), malloc'ed in *LIST. Returns 0,
 * or -1 with "PATH:LINE:COLUMN: what is wrong; the fix" in ERR. */
int icsim_placement_file_read(const char *path, const struct icsim_platform *pf, int nranks, char **list, char *err,
                              size_t errlen);
/* Such files are written by the layer that places recorded patterns (`icsim place --pattern-file
 * --write-best`, stack.h: place_pattern). */

#endif
