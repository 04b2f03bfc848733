/* libicsimabi_inner.so: a library that calls MPI and keeps per-process state, as BLACS keeps its
 * contexts: each rank's copy must hold that rank's own values. */
#include <mpi.h>
#include <stdio.h>

#include "libcalls.h"

static int my_rank = -1;           /* this process's rank, set once */
static int calls;                  /* how many times this process called inner_ring */
static MPI_Comm ring = MPI_COMM_NULL; /* the library's own communicator, as libraries dup one */

int inner_setup(void)
{
  MPI_Comm_dup(MPI_COMM_WORLD, &ring);
  MPI_Comm_rank(ring, &my_rank);
  return my_rank;
}

/* Pass VALUE to the next rank and return what the previous one passed. */
long inner_ring(long value)
{
  int size;
  long got = -1;
  calls++;
  MPI_Comm_size(ring, &size);
  MPI_Sendrecv(&value, 1, MPI_LONG, (my_rank + 1) % size, 7, &got, 1, MPI_LONG, (my_rank + size - 1) % size, 7, ring,
               MPI_STATUS_IGNORE);
  return got;
}

int inner_rank(void) { return my_rank; }

/* A tuning function the library defines and a program may define again (ScaLAPACK's PJLAENV, which
 * its testers redefine): as in any process, the program's definition is the one the library calls. */
/* weak: built into one program with main.c (bench/abi-scale's icsimcc build), the program's wins there too */
__attribute__((weak)) int libcalls_tuning(void) { return 1; }
int inner_tuning(void) { return libcalls_tuning(); }
int inner_calls(void) { return calls; }

void inner_done(void) { MPI_Comm_free(&ring); }
