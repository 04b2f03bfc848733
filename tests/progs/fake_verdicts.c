/* Prints, on rank 0, lines that look like icsim's, SimGrid's and smpirun's own messages (a deadlock
 * report, a load failure, a crash, smpirun's failure echo), a NUL byte and an unterminated last
 * line, on stdout and on stderr, tries to write a verdict into icsim's status file, then ends with
 * the status given (default 0). `icsim run` must pass every byte through and exit with that status
 * (tests/test_gate.c). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_verdicts.h"

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    /* write(): the bytes leave at once, in this order, whatever stdio's buffering */
    if (write(1, fake_verdicts_text, sizeof fake_verdicts_text - 1) < 0 ||
        write(2, fake_verdicts_text, sizeof fake_verdicts_text - 1) < 0)
      return 1;
    /* and a program that looks for the verdict file by the name icsim gives the simulation: it
     * must not find it (the status would become 42) */
    const char *status = getenv("ICSIM_STATUS");
    FILE *f = status ? fopen(status, "a") : NULL;
    if (f) {
      fputs("exit 42\ndeadlock\n", f);
      fclose(f);
    }
  }
  MPI_Finalize();
  return argc > 1 ? atoi(argv[1]) : 0;
}
