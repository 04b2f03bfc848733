/* The communication pattern of NPB FT, without its FFTs: the twin of ft_comm_f.f90 (same MPI
 * calls, same arguments, same output), so that C and Fortran entry points of the MPI layer can
 * be compared on a real kernel's traffic.
 *
 * FT keeps its nx x ny x nz grid in slabs of nz/p planes and transposes it with one all-to-all
 * of 2 * (nz/p) * (ny/p) * nx doubles per pair (complex numbers sent as MPI_DOUBLE pairs), once
 * for the initial forward FFT and once per iteration, plus a two-double MPI_Allreduce checksum
 * per iteration (class sizes and iteration counts as in ft.c). Between the calls a cheap
 * stand-in for the FFT (scale and shift) changes the data, so the checksums check that the
 * transposes moved it; they are printed and must agree between the twins.
 *
 * usage: ft_comm [CLASS]   (S, W, A or B; default S). Ordinary MPI: builds with mpicc. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  char cls = argc > 1 ? argv[1][0] : 'S';
  int nx, ny, nz, niter;
  switch (argc > 1 && strlen(argv[1]) != 1 ? '?' : cls) {
  case 'S': nx = 64; ny = 64; nz = 64; niter = 6; break;
  case 'W': nx = 128; ny = 128; nz = 32; niter = 6; break;
  case 'A': nx = 256; ny = 256; nz = 128; niter = 6; break;
  case 'B': nx = 512; ny = 256; nz = 256; niter = 20; break;
  default:
    if (rank == 0)
      fprintf(stderr, "ft_comm: '%s' is not a class (S, W, A, B)\n", argv[1]);
    MPI_Finalize();
    return 2;
  }
  if ((np & (np - 1)) || np > ny || np > nz) {
    if (rank == 0)
      fprintf(stderr, "ft_comm class %c: %d processes; needs a power of two no larger than %d\n", cls, np,
              ny < nz ? ny : nz);
    MPI_Finalize();
    return 2;
  }
  int block = 2 * (nz / np) * (ny / np) * nx; /* doubles per pair */
  size_t m = (size_t)block * np;
  /* Page-aligned, as the Fortran twin's: a stack may cost aligned and unaligned buffers differently. */
  double *sbuf = NULL, *rbuf = NULL;
  if (posix_memalign((void **)&sbuf, PAGE, m * sizeof *sbuf) || posix_memalign((void **)&rbuf, PAGE, m * sizeof *rbuf)) {
    fprintf(stderr, "ft_comm: rank %d cannot allocate 2 x %.1f MB\n", rank, m * 8 / 1e6);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t k = 0; k < m; k++)
    sbuf[k] = (double)(rank * 7 + (int)(k % 13));
  if (rank == 0)
    printf("\n FT communication pattern (icsim ft_comm)\n Class %c, size %dx%dx%d, %d iterations, %d processes\n", cls,
           nx, ny, nz, niter, np);

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPI_Alltoall(sbuf, block, MPI_DOUBLE, rbuf, block, MPI_DOUBLE, MPI_COMM_WORLD); /* forward FFT */
  for (int it = 1; it <= niter; it++) {
    for (size_t k = 0; k < m; k++) /* evolve + FFT stand-in */
      sbuf[k] = rbuf[k] * 0.5 + it;
    MPI_Alltoall(sbuf, block, MPI_DOUBLE, rbuf, block, MPI_DOUBLE, MPI_COMM_WORLD); /* backward FFT */
    /* sampled, as FT's 1024-point checksum; weighted by rank so that misplaced blocks show */
    double local[2] = {0, 0}, sum[2];
    for (size_t k = 0; k < m; k += 2 * 97) {
      local[0] += rbuf[k] * (rank + 1);
      local[1] += rbuf[k + 1];
    }
    MPI_Allreduce(local, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
      printf(" T = %5d     Checksum = %22.12e %22.12e\n", it, sum[0], sum[1]);
  }
  double t = MPI_Wtime() - t0, tmax;
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf(" Time in seconds = %24.9f\n", tmax);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
