/* A program that names no MPI: its MPI comes through libicsimabi_outer.so (as ScaLAPACK's testers'
 * comes through libscalapack), and it redefines a function of libicsimabi_inner.so (as the testers
 * redefine PJLAENV). Argument: rounds of the ring (default 3). */
#include <stdlib.h>

#include "libcalls.h"

/* The library defines it too: the program's definition wins, as in any process (the tree's first). */
int libcalls_tuning(void) { return 7; }

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  return outer_run(&argc, &argv, rounds);
}
