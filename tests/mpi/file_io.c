/* MPI-IO: every rank writes its block of a shared file collectively at its own offset, the file is
 * closed, reopened, and each rank reads the block of its right neighbour and checks it; then the
 * file is deleted. Correct MPI that prints No Errors on MPICH.
 *
 * SimGrid 3.32 simulates the time of file I/O on platform disks but moves no data, so under icsim
 * the expectation is a loud refusal (a message naming icsim and MPI-IO, non-zero status), never a
 * run on made-up data. */
#include <unistd.h>

#include "suite.h"

enum { BLOCK = 1000 };

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  int me = suite_rank, n = suite_size;
  char name[512];
  const char *tmp = getenv("TMPDIR");
  snprintf(name, sizeof name, "%s/icsim-file-io-%d.dat", tmp && *tmp ? tmp : "/tmp", (int)getpid());
  MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
  int out[BLOCK], in[BLOCK];
  for (int i = 0; i < BLOCK; i++)
    out[i] = me * BLOCK + i;
  MPI_File fh;
  suite_step("MPI_File_open for writing");
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  suite_step("MPI_File_write_at_all");
  MPI_OK(MPI_File_write_at_all(fh, (MPI_Offset)me * BLOCK * (MPI_Offset)sizeof(int), out, BLOCK, MPI_INT,
                               MPI_STATUS_IGNORE));
  MPI_OK(MPI_File_close(&fh));
  suite_step("MPI_File_open for reading, the neighbour's block");
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  int right = (me + 1) % n;
  MPI_OK(MPI_File_read_at_all(fh, (MPI_Offset)right * BLOCK * (MPI_Offset)sizeof(int), in, BLOCK, MPI_INT,
                              MPI_STATUS_IGNORE));
  MPI_OK(MPI_File_close(&fh));
  for (int i = 0; i < BLOCK; i++)
    CHECK(in[i] == right * BLOCK + i, "element %d of rank %d's block reads %d", i, right, in[i]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0)
    MPI_OK(MPI_File_delete(name, MPI_INFO_NULL));
  return suite_finish();
}
