/* NPB EP: embarrassingly parallel. 2^(M+1) uniform numbers in pairs; pairs inside the unit
 * circle become Gaussian deviates by the Marsaglia polar method; the sums and the counts per
 * annulus are the result (NPB 3 problem definition, RNR-94-007 section 2.3). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "npb.h"

#define MK 16 /* log2 of the pairs per batch */
#define NK (1 << MK)
#define NQ 10
#define A_MULT 1220703125.0
#define EP_SEED 271828183.0

/* Work per pair, counted from the compiled loops (mpicc.mpich -O2, x86-64; glibc's log and fmax
 * stepped in gdb: 51 and 5 instructions), two phases:
 * - the generator (vranlc, npb.c): 9 instructions per number (multiply, mask, convert, scale,
 *   store, a register clear, address, loop control), 18 per pair; each number waits for the
 *   previous one's multiply and mask (imul r64, then and r64: the chain runs through the integer
 *   unit, not the FP one): per pair 2 integer multiplies (nodes/int-multiply-latency) and 2 ALU
 *   operations (a clock each) on the chain. One chain through the whole batch.
 * - the pairs: the circle test, 12 instructions, and the loop step, 3: 15 for every pair; for the
 *   pi/4 of pairs accepted, 30 more in the loop (spills around the calls, multiply, divide, sqrt and
 *   its negative test, the products, absolute values, conversion, q[l] += 1, the sums) and the
 *   calls: log 51 + its PLT jump, fmax 5 + its PLT jump: 88 more. The predictor guesses "inside"
 *   and misses on the 1 - pi/4 of pairs outside, found only after the branch's operand path: the
 *   two loads, 2x - 1 (two adds in the compiled loop), the square, the sum and the compare: 5
 *   operations (priced at the add latency). An accepted pair's dependency path runs through
 *   every step: x (2), r2 (2), the log's polynomial (7), the multiply, the product g, max and
 *   conversion (2), the q[l] update: 14 adds or multiplies and 2 divide/sqrt; of the 14,
 *   multiplies: 2x, x * x, -2 * log, the product g and half the polynomial's 7 steps (Horner pairs
 *   a multiply with an add), 7.5; adds: 6.5. The next pair's path does not wait for it (only the
 *   sums and q[l] carry over, one add each): NK independent paths, which an out-of-order core
 *   overlaps as far as its window holds them.
 * Of these, the register copies and zeroing idioms (.moves, which a core with move elimination
 * completes at renaming): the generator's register clear before each conversion, 2 per pair; in the
 * pairs, 3 copies in the circle test and, for an accepted pair, 2 copies and a clear in the loop and
 * 4 in log (its wrapper's clear, two integer copies, a clear; glibc 2.36 __ieee754_log_fma stepped in
 * gdb), none in fmax. */
#define GEN_OPS_PER_PAIR 18.0
#define GEN_CHAIN_INT_MUL_PER_PAIR 2.0
#define GEN_CHAIN_INT_PER_PAIR 2.0
#define GEN_MOVES_PER_PAIR 2.0
#define MOVES_PER_PAIR (3.0 + M_PI / 4 * 7.0)
#define OPS_PER_PAIR (15.0 + M_PI / 4 * 88.0)
#define CHAIN_PER_PAIR (M_PI / 4 * 6.5)
#define CHAIN_MUL_PER_PAIR (M_PI / 4 * 7.5)
#define CHAIN_DIVIDE_PER_PAIR (M_PI / 4 * 2.0)
#define MISPREDICTS_PER_PAIR (1.0 - M_PI / 4)
#define BRANCH_CHAIN 5.0

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  struct npb_run run;
  int rc = npb_start(&run, "EP", argc, argv, "SWAB");
  if (rc) {
    MPI_Finalize();
    return rc & 0xff;
  }
  int m = run.cls == 'S' ? 24 : run.cls == 'W' ? 25 : run.cls == 'A' ? 28 : 30;
  double sx_ref = 0, sy_ref = 0;
  switch (run.cls) {
  case 'S': sx_ref = -3.247834652034740e+3; sy_ref = -6.958407078382297e+3; break;
  case 'W': sx_ref = -2.863319731645753e+3; sy_ref = -6.320053679109499e+3; break;
  case 'A': sx_ref = -4.295875165629892e+3; sy_ref = -1.580732573678431e+4; break;
  case 'B': sx_ref = 4.033815542441498e+4; sy_ref = -2.660669192809235e+4; break;
  }
  long long nn = 1LL << (m - MK); /* batches */
  if ((rc = npb_check_procs(&run, (int)(nn < (1 << 20) ? nn : (1 << 20)), "one batch of 2^16 pairs per process at least")))
    goto done;

  static double x[2 * NK];
  double q[NQ], sx = 0, sy = 0;
  memset(q, 0, sizeof q);
  /* an = A^(2 NK): the generator jump from one batch to the next */
  double an = npb_pow46(A_MULT, 2LL * NK);

  npb_timer_start(&run);
  long long per = nn / run.nprocs, first = per * run.rank;
  for (long long k = first; k < first + per; k++) {
    ICSIM_PHASE_BEGIN();
    if (!run.skeleton) {
      /* seed of batch k: EP_SEED * an^k */
      double t1 = EP_SEED, t2 = an;
      for (long long kk = k; kk; kk >>= 1) {
        if (kk & 1)
          randlc(&t1, t2);
        randlc(&t2, t2);
      }
      vranlc(2 * NK, &t1, A_MULT, x);
    }
    /* the batch buffer (1 MiB) written */
    ICSIM_PHASE_END_WORK(.ops = GEN_OPS_PER_PAIR * NK, .bytes = 2.0 * NK * sizeof(double),
                         .working_set = 2.0 * NK * sizeof(double), .chain_int_mul = GEN_CHAIN_INT_MUL_PER_PAIR * NK,
                         .chain_int = GEN_CHAIN_INT_PER_PAIR * NK, .moves = GEN_MOVES_PER_PAIR * NK);
    ICSIM_PHASE_BEGIN();
    if (!run.skeleton) {
      for (int i = 0; i < NK; i++) {
        double x1 = 2.0 * x[2 * i] - 1.0, x2 = 2.0 * x[2 * i + 1] - 1.0;
        double r2 = x1 * x1 + x2 * x2;
        if (r2 <= 1.0) {
          double f = sqrt(-2.0 * log(r2) / r2);
          double g1 = x1 * f, g2 = x2 * f;
          int l = (int)fmax(fabs(g1), fabs(g2));
          q[l] += 1.0;
          sx += g1;
          sy += g2;
        }
      }
    }
    /* the batch buffer read once; one path per pair */
    ICSIM_PHASE_END_WORK(.ops = OPS_PER_PAIR * NK, .bytes = 2.0 * NK * sizeof(double),
                         .working_set = 2.0 * NK * sizeof(double), .chain = CHAIN_PER_PAIR * NK,
                         .chain_mul = CHAIN_MUL_PER_PAIR * NK, .chain_divide = CHAIN_DIVIDE_PER_PAIR * NK,
                         .mispredicts = MISPREDICTS_PER_PAIR * NK, .branch_chain = BRANCH_CHAIN, .paths = NK,
                         .moves = MOVES_PER_PAIR * NK);
  }
  double local[NQ + 2], global[NQ + 2];
  memcpy(local, q, sizeof q);
  local[NQ] = sx;
  local[NQ + 1] = sy;
  MPI_Allreduce(local, global, NQ + 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  npb_timer_stop(&run);

  sx = global[NQ];
  sy = global[NQ + 1];
  double gc = 0;
  for (int i = 0; i < NQ; i++)
    gc += global[i];
  int verified = -1;
  if (!run.skeleton)
    verified = fabs((sx - sx_ref) / sx_ref) <= 1e-8 && fabs((sy - sy_ref) / sy_ref) <= 1e-8;
  if (run.rank == 0) {
    printf("\n NAS Parallel Benchmarks (icsim implementation) - EP Benchmark\n");
    printf(" Number of random numbers generated: %.0f\n", pow(2.0, m + 1));
    printf(" Number of active processes:         %d\n", run.nprocs);
    if (!run.skeleton) {
      printf(" EP Benchmark Results:\n CPU Time = %10.4f\n N = 2^%d\n No. Gaussian Pairs = %15.0f\n", run.time_s, m,
             gc);
      printf(" Sums = %25.15e %25.15e\n Counts:\n", sx, sy);
      for (int i = 0; i < NQ; i++)
        printf(" %3d %15.0f\n", i, global[i]);
    }
  }
  char size[32];
  snprintf(size, sizeof size, "%.0f", pow(2.0, m + 1));
  npb_report(&run, size, 0, pow(2.0, m + 1) / run.time_s / 1e6, "Random numbers generated", verified);
done:
  MPI_Finalize();
  return rc;
}
