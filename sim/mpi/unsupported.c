/* MPI calls icsim cannot run, refused with a message that says why, instead of SMPI's generic
 * abort, a crash, or (worse) a wrong answer:
 * - MPI-IO: SMPI 3.32 opens files only on platform disks, and then simulates the time of reads and
 *   writes without moving any data (a read leaves the buffer as it was), so a program would run on
 *   made-up data; icsim's platforms describe no storage either.
 * The run stops with status 3 (icsim_stop: every rank, nothing half-written). And one SMPI stub that
 * should not stop a program at all: MPI_Pcontrol. */
#include <stdio.h>
#include <string.h>

#include "layer.h"

static int unsupported(const char *call)
{
  fprintf(stderr,
          "icsim: %s: MPI-IO is not supported (SimGrid's SMPI 3.32 simulates the time of file reads and "
          "writes on platform disks but moves no data, and icsim's platforms describe no storage), so this "
          "program cannot run under icsim\n",
          call);
  icsim_stop(3);
  return MPI_ERR_OTHER;
}

/* Every MPI-IO program starts with one of these two: no file handle exists without MPI_File_open. */
int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
  (void)comm, (void)filename, (void)amode, (void)info, (void)fh;
  return unsupported("MPI_File_open");
}

int MPI_File_delete(const char *filename, MPI_Info info)
{
  (void)filename, (void)info;
  return unsupported("MPI_File_delete");
}

/* Not refused: MPI_Pcontrol has no effect when no profiling library is there to read it (MPI 3.1,
 * 14.2.4), and icsim is not one; SMPI 3.32's stub aborted the program. */
int MPI_Pcontrol(const int level, ...)
{
  (void)level;
  return MPI_SUCCESS;
}
