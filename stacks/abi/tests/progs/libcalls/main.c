/* A program that names no MPI: its MPI comes through libicsimabi_outer.so (as ScaLAPACK's testers'
 * comes through libscalapack). Argument: rounds of the ring (default 3). */
#include <stdlib.h>

#include "libcalls.h"

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  return outer_run(&argc, &argv, rounds);
}
