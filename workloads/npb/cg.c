/* NPB CG: estimate the smallest eigenvalue of a large sparse symmetric positive definite
 * matrix by inverse power iteration, each step solving A z = x with 25 conjugate gradient
 * iterations (NPB 3 problem definition, RNR-94-007 section 2.4; matrix generator makea).
 * Parallel form: a block of rows per process; the search direction is gathered from all
 * processes before each matrix-vector product, dot products are summed with allreduce. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npb.h"

#define CGITMAX 25
#define RCOND 0.1

static int na, nonzer, niter;
static double shift, zeta_ref;
static double tran = 314159265.0, amult = 1220703125.0;

/* my rows [row0, row0 + nrows) */
static int row0, nrows;
static int *rowstr, *colidx, *counts, *displs;
static double *a;

/* nz distinct random positions (1..n) with random values: one sparse vector of the generator */
static void sprnvc(int n, int nz, int nn1, double *v, int *iv)
{
  int nzv = 0;
  while (nzv < nz) {
    double vecelt = randlc(&tran, amult);
    double vecloc = randlc(&tran, amult);
    int i = (int)(nn1 * vecloc) + 1;
    if (i > n)
      continue;
    int seen = 0;
    for (int k = 0; k < nzv && !seen; k++)
      seen = iv[k] == i;
    if (seen)
      continue;
    v[nzv] = vecelt;
    iv[nzv] = i;
    nzv++;
  }
}

/* set element I of the sparse vector to VAL, appending it if absent */
static void vecset(double *v, int *iv, int *nzv, int i, double val)
{
  for (int k = 0; k < *nzv; k++)
    if (iv[k] == i) {
      v[k] = val;
      return;
    }
  v[*nzv] = val;
  iv[*nzv] = i;
  (*nzv)++;
}

/* A = sum over i of size_i * v_i v_i^T, size_i = rcond^(i/n), plus (rcond - shift) I; only my
 * rows are kept, but every process draws the whole random sequence. */
static void makea(struct npb_run *run)
{
  int nn1 = 1;
  while (nn1 < na)
    nn1 *= 2;
  int *arow = malloc(na * sizeof *arow);
  int *acol = malloc((size_t)na * (nonzer + 1) * sizeof *acol);
  double *aelt = malloc((size_t)na * (nonzer + 1) * sizeof *aelt);
  double vc[64];
  int ivc[64];
  for (int i = 0; i < na; i++) {
    int nzv = nonzer;
    sprnvc(na, nzv, nn1, vc, ivc);
    vecset(vc, ivc, &nzv, i + 1, 0.5);
    arow[i] = nzv;
    for (int k = 0; k < nzv; k++) {
      acol[(size_t)i * (nonzer + 1) + k] = ivc[k] - 1;
      aelt[(size_t)i * (nonzer + 1) + k] = vc[k];
    }
  }
  /* room per row: the number of contributions (duplicates are merged below) */
  rowstr = calloc(nrows + 1, sizeof *rowstr);
  for (int i = 0; i < na; i++)
    for (int k = 0; k < arow[i]; k++) {
      int j = acol[(size_t)i * (nonzer + 1) + k];
      if (j >= row0 && j < row0 + nrows)
        rowstr[j - row0 + 1] += arow[i];
    }
  for (int j = 1; j <= nrows; j++)
    rowstr[j] += rowstr[j - 1];
  int nz = rowstr[nrows];
  double *v = malloc((nz + 1) * sizeof *v);
  int *iv = malloc((nz + 1) * sizeof *iv), *nzloc = calloc(nrows + 1, sizeof *nzloc);
  for (int k = 0; k < nz; k++) {
    v[k] = 0;
    iv[k] = -1;
  }
  double size = 1.0, ratio = pow(RCOND, 1.0 / na);
  for (int i = 0; i < na; i++) {
    const int *ac = &acol[(size_t)i * (nonzer + 1)];
    const double *ae = &aelt[(size_t)i * (nonzer + 1)];
    for (int nza = 0; nza < arow[i]; nza++) {
      int j = ac[nza];
      if (j < row0 || j >= row0 + nrows)
        continue;
      int jl = j - row0;
      double scale = size * ae[nza];
      for (int nzrow = 0; nzrow < arow[i]; nzrow++) {
        int jcol = ac[nzrow];
        double va = ae[nzrow] * scale;
        if (jcol == j && j == i)
          va += RCOND - shift;
        /* keep the row's columns sorted: insert, or add to an existing entry */
        int k;
        for (k = rowstr[jl]; k < rowstr[jl + 1]; k++) {
          if (iv[k] > jcol) {
            for (int kk = rowstr[jl + 1] - 2; kk >= k; kk--)
              if (iv[kk] > -1) {
                v[kk + 1] = v[kk];
                iv[kk + 1] = iv[kk];
              }
            iv[k] = jcol;
            v[k] = 0;
            break;
          } else if (iv[k] == -1) {
            iv[k] = jcol;
            break;
          } else if (iv[k] == jcol) {
            nzloc[jl]++;
            break;
          }
        }
        if (k == rowstr[jl + 1]) {
          fprintf(stderr, "CG: internal error: row %d overflows its room\n", j);
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
        v[k] += va;
      }
    }
    size *= ratio;
  }
  /* squeeze out the room left by merged duplicates */
  for (int j = 1; j < nrows; j++)
    nzloc[j] += nzloc[j - 1];
  a = npb_alloc(run, (nz + 1) * sizeof *a, "matrix values");
  colidx = npb_alloc(run, (nz + 1) * sizeof *colidx, "matrix columns");
  for (int j = 0; j < nrows; j++) {
    int j1 = j > 0 ? rowstr[j] - nzloc[j - 1] : 0, j2 = rowstr[j + 1] - nzloc[j], src = rowstr[j];
    for (int k = j1; k < j2; k++, src++) {
      a[k] = v[src];
      colidx[k] = iv[src];
    }
  }
  for (int j = nrows; j >= 1; j--)
    rowstr[j] -= nzloc[j - 1];
  free(v);
  free(iv);
  free(nzloc);
  free(arow);
  free(acol);
  free(aelt);
}

/* Bytes an inverse power step touches on this process: its matrix rows (value + column index per
 * nonzero), the gathered vector and the five vectors of its slice. Every phase cycles through all
 * of them, so this decides the cache level (or memory) each phase streams from. */
static double working_set(void) { return 12.0 * rowstr[nrows] + 8.0 * na + 40.0 * nrows; }

static double dot_all(const double *x, const double *y, int n, int skeleton)
{
  double s = 0, g;
  ICSIM_PHASE_BEGIN();
  if (!skeleton)
    for (int i = 0; i < n; i++)
      s += x[i] * y[i];
  /* each add waits for the previous one: a chain of n adds */
  ICSIM_PHASE_END_WORK(.ops = 2.0 * n, .bytes = 16.0 * n, .working_set = working_set(), .chain = n);
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return g;
}

/* y = A_mine * full, after gathering FULL from every process' slice */
static void matvec(struct npb_run *run, const double *slice, double *full, double *y)
{
  MPI_Allgatherv(slice, nrows, MPI_DOUBLE, full, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
  int nnz = rowstr[nrows];
  ICSIM_PHASE_BEGIN();
  if (!run->skeleton)
    for (int j = 0; j < nrows; j++) {
      double s = 0;
      for (int k = rowstr[j]; k < rowstr[j + 1]; k++)
        s += a[k] * full[colidx[k]];
      y[j] = s;
    }
  /* Counted from the compiled loop (gcc -O2, x86-64): 7 instructions per nonzero (the column index
   * and the value loaded, the gathered element loaded and multiplied, the add, the index step,
   * compare-and-branch) and 9 per row (its bounds, the sum cleared, the test, the result stored,
   * loop control). The adds are a chain within a row (s += ...), and the rows' chains do not wait
   * for one another: nrows paths, which the out-of-order window overlaps. Value + column index
   * streamed, the result written; full[colidx[k]] is a random access into the gathered vector. */
  ICSIM_PHASE_END_WORK(.ops = 7.0 * nnz + 9.0 * nrows, .bytes = 12.0 * nnz + 8.0 * nrows, .accesses = nnz,
                       .working_set = working_set(), .access_set = 8.0 * na, .chain = nnz, .paths = nrows);
}

static double conj_grad(struct npb_run *run, double *x, double *z, double *p, double *q, double *r, double *full)
{
  int n = nrows, sk = run->skeleton;
  ICSIM_PHASE_BEGIN();
  if (!sk)
    for (int j = 0; j < n; j++) {
      q[j] = z[j] = 0;
      r[j] = p[j] = x[j];
    }
  ICSIM_PHASE_END_WORK(.bytes = 40.0 * n, .working_set = working_set());
  double rho = dot_all(r, r, n, sk);
  for (int cgit = 1; cgit <= CGITMAX; cgit++) {
    matvec(run, p, full, q);
    double d = dot_all(p, q, n, sk);
    double alpha = sk ? 1 : rho / d, rho0 = rho;
    ICSIM_PHASE_BEGIN();
    if (!sk)
      for (int j = 0; j < n; j++) {
        z[j] += alpha * p[j];
        r[j] -= alpha * q[j];
      }
    ICSIM_PHASE_END_WORK(.ops = 4.0 * n, .bytes = 48.0 * n, .working_set = working_set());
    rho = dot_all(r, r, n, sk);
    double beta = sk ? 1 : rho / rho0;
    ICSIM_PHASE_BEGIN();
    if (!sk)
      for (int j = 0; j < n; j++)
        p[j] = r[j] + beta * p[j];
    ICSIM_PHASE_END_WORK(.ops = 2.0 * n, .bytes = 24.0 * n, .working_set = working_set());
  }
  /* residual ||x - A z|| */
  matvec(run, z, full, r);
  double s = 0, g;
  ICSIM_PHASE_BEGIN();
  if (!sk)
    for (int j = 0; j < n; j++) {
      double d = x[j] - r[j];
      s += d * d;
    }
  ICSIM_PHASE_END_WORK(.ops = 3.0 * n, .bytes = 16.0 * n, .working_set = working_set(), .chain = n);
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sqrt(g);
}

/* x = z / ||z||, zeta = shift + 1 / (x . z) */
static double normalize(struct npb_run *run, double *x, const double *z)
{
  double s[2] = {0, 0}, g[2];
  ICSIM_PHASE_BEGIN();
  if (!run->skeleton)
    for (int j = 0; j < nrows; j++) {
      s[0] += x[j] * z[j];
      s[1] += z[j] * z[j];
    }
  /* two sums, each its own chain of adds, side by side */
  ICSIM_PHASE_END_WORK(.ops = 4.0 * nrows, .bytes = 16.0 * nrows, .working_set = working_set(), .chain = nrows);
  MPI_Allreduce(s, g, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double norm = run->skeleton ? 1 : 1.0 / sqrt(g[1]);
  ICSIM_PHASE_BEGIN();
  if (!run->skeleton)
    for (int j = 0; j < nrows; j++)
      x[j] = norm * z[j];
  ICSIM_PHASE_END_WORK(.ops = 1.0 * nrows, .bytes = 16.0 * nrows, .working_set = working_set());
  return run->skeleton ? 0 : shift + 1.0 / g[0];
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  struct npb_run run;
  int rc = npb_start(&run, "CG", argc, argv, "SWAB");
  if (rc) {
    MPI_Finalize();
    return rc & 0xff;
  }
  switch (run.cls) {
  case 'S': na = 1400; nonzer = 7; niter = 15; shift = 10; zeta_ref = 8.5971775078648; break;
  case 'W': na = 7000; nonzer = 8; niter = 15; shift = 12; zeta_ref = 10.362595087124; break;
  case 'A': na = 14000; nonzer = 11; niter = 15; shift = 20; zeta_ref = 17.130235054029; break;
  default: na = 75000; nonzer = 13; niter = 75; shift = 60; zeta_ref = 22.712745482631; break;
  }
  if ((rc = npb_check_procs(&run, na / 8, "at least 8 matrix rows per process")))
    goto done;
  counts = malloc(run.nprocs * sizeof *counts);
  displs = malloc(run.nprocs * sizeof *displs);
  for (int p = 0, off = 0; p < run.nprocs; p++) {
    counts[p] = na / run.nprocs + (p < na % run.nprocs);
    displs[p] = off;
    off += counts[p];
  }
  row0 = displs[run.rank];
  nrows = counts[run.rank];
  if (run.rank == 0)
    printf("\n NAS Parallel Benchmarks (icsim implementation) - CG Benchmark\n Size: %11d  (class %c)\n"
           " Iterations: %5d\n Number of processes: %5d\n",
           na, run.cls, niter, run.nprocs);

  /* the generator's first number is drawn before the matrix, as in the original */
  randlc(&tran, amult);
  makea(&run);

  double *x = malloc(nrows * sizeof *x), *z = malloc(nrows * sizeof *z), *p = malloc(nrows * sizeof *p);
  double *q = malloc(nrows * sizeof *q), *r = malloc(nrows * sizeof *r);
  double *full = npb_alloc(&run, na * sizeof *full, "gathered vector");
  for (int j = 0; j < nrows; j++)
    x[j] = 1.0;
  /* one untimed inverse power step, then start over */
  conj_grad(&run, x, z, p, q, r, full);
  normalize(&run, x, z);
  for (int j = 0; j < nrows; j++)
    x[j] = 1.0;

  double zeta = 0;
  npb_timer_start(&run);
  for (int it = 1; it <= niter; it++) {
    double rnorm = conj_grad(&run, x, z, p, q, r, full);
    zeta = normalize(&run, x, z);
    if (run.rank == 0 && !run.skeleton) {
      if (it == 1)
        printf("\n   iteration           ||r||                 zeta\n");
      printf("    %5d       %20.14e%20.13e\n", it, rnorm, zeta);
    }
  }
  npb_timer_stop(&run);

  int verified = -1;
  if (!run.skeleton) {
    double err = fabs(zeta - zeta_ref) / zeta_ref;
    verified = err <= 1e-10;
    if (run.rank == 0)
      printf(" Zeta is    %20.13e\n Reference  %20.13e\n Error is   %20.13e\n", zeta, zeta_ref, err);
  }
  double nz1 = (double)nonzer * (nonzer + 1);
  double mops = 2.0 * niter * na * (3.0 + nz1 + 25.0 * (5.0 + nz1) + 3.0) / run.time_s / 1e6;
  char size[32];
  snprintf(size, sizeof size, "%d", na);
  npb_report(&run, size, niter, mops, "floating point", verified);
done:
  MPI_Finalize();
  return rc;
}
