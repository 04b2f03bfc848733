/* A program's own computation between MPI calls (no declared phase): N dependent additions,
 * timed by SMPI on this machine and charged at the simulated CPU's clock. Prints the simulated
 * seconds the loop took, the operations it ran and the CPU seconds it took on this machine. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* This thread's CPU time, asked of the kernel directly: under SMPI the program's clock calls
 * read the simulated clock. */
static double thread_cpu_s(void)
{
  struct timespec ts;
  syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  long n = argc > 1 ? atol(argv[1]) : 300000000L;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double t0 = MPI_Wtime(), c0 = thread_cpu_s();
  unsigned long x = 1;
  for (long i = 0; i < n; i++)
    __asm__ volatile("add $1, %0" : "+r"(x));
  double c = thread_cpu_s() - c0;
  double t = MPI_Wtime() - t0;
  if (rank == 0)
    printf("Operations = %ld\nLoop seconds = %.6f\nLoop CPU seconds here = %.6f\n", n + (long)(x == 0), t, c);
  MPI_Finalize();
  return 0;
}
