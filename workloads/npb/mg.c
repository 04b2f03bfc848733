/* NPB MG: V-cycle multigrid for the 3-D Poisson equation with periodic boundaries, the right
 * hand side +1/-1 at the 20 extreme points of a random field (NPB 3 problem definition,
 * RNR-94-007 section 2.5: operators A, P, Q and the smoother S with the published
 * coefficients). Parallel form: each grid level is cut into slabs along the third axis while
 * every process keeps at least two planes; coarser levels are kept whole on every process
 * (agglomeration), computed redundantly. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npb.h"

#define MAXLEVEL 12

struct level {
  int n;       /* global points per axis */
  int p3;      /* processes sharing the level along axis 3 (1 = whole on every process) */
  int m3, off; /* my planes (interior) and the global index of my first plane, 0-based */
  size_t plane; /* (n+2)^2 */
  double *u, *r;
};

static struct level L[MAXLEVEL + 1];
static int lt, nit;
static double *v;
static double acoef[4] = {-8.0 / 3.0, 0.0, 1.0 / 6.0, 1.0 / 12.0}, ccoef[4];
static struct npb_run run;
static double *buf1, *buf2, *buf3, *buf4;

#define AT(a, lv, i3, i2, i1) ((a)[((size_t)(i3) * (L[lv].n + 2) + (size_t)(i2)) * (L[lv].n + 2) + (size_t)(i1)])

static double interior(int k) { return (double)L[k].m3 * L[k].n * L[k].n; }

/* Bytes of level K's arrays on this process (u and r, and v on the finest level): what a sweep
 * over the level cycles through, so which cache (or memory) holds it. */
static double level_bytes(int k) { return (2.0 + (k == lt)) * (L[k].m3 + 2) * (double)L[k].plane * 8.0; }

/* Periodic boundary: axes 1 and 2 inside each plane, axis 3 between neighbours (or inside the
 * process when the level is whole). */
static void comm3(double *a, int k)
{
  int n = L[k].n, m3 = L[k].m3, w = n + 2;
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton)
    for (int i3 = 1; i3 <= m3; i3++) {
      for (int i2 = 1; i2 <= n; i2++) {
        AT(a, k, i3, i2, 0) = AT(a, k, i3, i2, n);
        AT(a, k, i3, i2, n + 1) = AT(a, k, i3, i2, 1);
      }
      for (int i1 = 0; i1 < w; i1++) {
        AT(a, k, i3, 0, i1) = AT(a, k, i3, n, i1);
        AT(a, k, i3, n + 1, i1) = AT(a, k, i3, 1, i1);
      }
    }
  /* per element pair, as compiled: 2 loads, 2 stores and loop control 3 (the index, compare and
   * branch) along axis 1, one more address step along axis 2: 8 and 7 */
  ICSIM_PHASE_END_WORK(.ops = m3 * (8.0 * n + 7.0 * w), .bytes = 32.0 * m3 * w, .working_set = level_bytes(k));
  size_t pl = L[k].plane;
  if (L[k].p3 == 1) {
    if (!run.skeleton) {
      memcpy(&a[0], &a[(size_t)m3 * pl], pl * sizeof *a);
      memcpy(&a[(size_t)(m3 + 1) * pl], &a[pl], pl * sizeof *a);
    }
    return;
  }
  int up = (run.rank + 1) % run.nprocs, down = (run.rank + run.nprocs - 1) % run.nprocs;
  MPI_Sendrecv(&a[(size_t)m3 * pl], (int)pl, MPI_DOUBLE, up, 10 + k, &a[0], (int)pl, MPI_DOUBLE, down, 10 + k,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&a[pl], (int)pl, MPI_DOUBLE, down, 40 + k, &a[(size_t)(m3 + 1) * pl], (int)pl, MPI_DOUBLE, up, 40 + k,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* r = v - A u */
static void resid(double *u, const double *vv, double *r, int k)
{
  int n = L[k].n;
  double *u1 = buf1, *u2 = buf2;
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton)
    for (int i3 = 1; i3 <= L[k].m3; i3++)
      for (int i2 = 1; i2 <= n; i2++) {
        for (int i1 = 0; i1 < n + 2; i1++) {
          u1[i1] = AT(u, k, i3, i2 - 1, i1) + AT(u, k, i3, i2 + 1, i1) + AT(u, k, i3 - 1, i2, i1) +
                   AT(u, k, i3 + 1, i2, i1);
          u2[i1] = AT(u, k, i3 - 1, i2 - 1, i1) + AT(u, k, i3 - 1, i2 + 1, i1) + AT(u, k, i3 + 1, i2 - 1, i1) +
                   AT(u, k, i3 + 1, i2 + 1, i1);
        }
        for (int i1 = 1; i1 <= n; i1++)
          AT(r, k, i3, i2, i1) = AT(vv, k, i3, i2, i1) - acoef[0] * AT(u, k, i3, i2, i1) -
                                 acoef[2] * (u2[i1] + u1[i1 - 1] + u1[i1 + 1]) - acoef[3] * (u2[i1 - 1] + u2[i1 + 1]);
      }
  /* Per point, instructions as the core dispatches them (gcc -O2, x86-64; a load folded into an
   * add is one instruction, one macro-op): the first loop 13 (2 loads, 6 adds with their loads, 2
   * stores, loop control 3), the second 18 (7 loads, 2 of them folded, 9 flops, 1 store, loop
   * control 3); u, v read and r written once (24 B). The sums are independent from point to point:
   * no chain. */
  ICSIM_PHASE_END_WORK(.ops = 31.0 * interior(k), .bytes = 24.0 * interior(k), .working_set = level_bytes(k));
  comm3(r, k);
}

/* u = u + S r (the smoother) */
static void psinv(const double *r, double *u, int k)
{
  int n = L[k].n;
  double *r1 = buf1, *r2 = buf2;
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton)
    for (int i3 = 1; i3 <= L[k].m3; i3++)
      for (int i2 = 1; i2 <= n; i2++) {
        for (int i1 = 0; i1 < n + 2; i1++) {
          r1[i1] = AT(r, k, i3, i2 - 1, i1) + AT(r, k, i3, i2 + 1, i1) + AT(r, k, i3 - 1, i2, i1) +
                   AT(r, k, i3 + 1, i2, i1);
          r2[i1] = AT(r, k, i3 - 1, i2 - 1, i1) + AT(r, k, i3 - 1, i2 + 1, i1) + AT(r, k, i3 + 1, i2 - 1, i1) +
                   AT(r, k, i3 + 1, i2 + 1, i1);
        }
        for (int i1 = 1; i1 <= n; i1++)
          AT(u, k, i3, i2, i1) += ccoef[0] * AT(r, k, i3, i2, i1) +
                                  ccoef[1] * (AT(r, k, i3, i2, i1 - 1) + AT(r, k, i3, i2, i1 + 1) + r1[i1]) +
                                  ccoef[2] * (r2[i1] + r1[i1 - 1] + r1[i1 + 1]);
      }
  /* per point, as compiled: first loop 13 as in resid, second 19 (8 loads, 4 of them folded, 10
   * flops, 1 store, loop control 4); r read, u read and written (24 B) */
  ICSIM_PHASE_END_WORK(.ops = 32.0 * interior(k), .bytes = 24.0 * interior(k), .working_set = level_bytes(k));
  comm3(u, k);
}

/* coarse level k-1 = P (fine level k). When the coarse level is whole on every process and
 * the fine one is not, each process restricts its part and the parts are exchanged. */
static void rprj3(int k)
{
  int j = k - 1, nc = L[j].n;
  const double *r = L[k].r;
  double *s = L[j].r;
  int gather = L[k].p3 > 1 && L[j].p3 == 1;
  int jfirst = gather ? L[k].off / 2 : 0, jcount = L[k].m3 / 2;
  double *x1 = buf1, *y1 = buf2;
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton)
    for (int j3 = 1; j3 <= jcount; j3++) {
      int i3 = 2 * j3 - 1;
      for (int j2 = 1; j2 <= nc; j2++) {
        int i2 = 2 * j2 - 1;
        for (int j1 = 1; j1 <= nc + 1; j1++) {
          int i1 = 2 * j1 - 1;
          x1[i1] = AT(r, k, i3 + 1, i2, i1) + AT(r, k, i3 + 1, i2 + 2, i1) + AT(r, k, i3, i2 + 1, i1) +
                   AT(r, k, i3 + 2, i2 + 1, i1);
          y1[i1] = AT(r, k, i3, i2, i1) + AT(r, k, i3 + 2, i2, i1) + AT(r, k, i3, i2 + 2, i1) +
                   AT(r, k, i3 + 2, i2 + 2, i1);
        }
        for (int j1 = 1; j1 <= nc; j1++) {
          int i1 = 2 * j1 - 1;
          double y2 = AT(r, k, i3, i2, i1 + 1) + AT(r, k, i3 + 2, i2, i1 + 1) + AT(r, k, i3, i2 + 2, i1 + 1) +
                      AT(r, k, i3 + 2, i2 + 2, i1 + 1);
          double x2 = AT(r, k, i3 + 1, i2, i1 + 1) + AT(r, k, i3 + 1, i2 + 2, i1 + 1) + AT(r, k, i3, i2 + 1, i1 + 1) +
                      AT(r, k, i3 + 2, i2 + 1, i1 + 1);
          AT(s, j, jfirst + j3, j2, j1) =
              0.5 * AT(r, k, i3 + 1, i2 + 1, i1 + 1) +
              0.25 * (AT(r, k, i3 + 1, i2 + 1, i1) + AT(r, k, i3 + 1, i2 + 1, i1 + 2) + x2) +
              0.125 * (x1[i1] + x1[i1 + 2] + y2) + 0.0625 * (y1[i1] + y1[i1 + 2]);
        }
      }
    }
  double coarse = (double)jcount * nc * nc;
  /* per coarse point, as compiled (loads folded into adds counted once): first loop 13 (8 loads,
   * 6 of them folded, 2 stores, loop control 3), second 30 (15 loads, 9 of them folded, 18 flops,
   * 1 store, the index steps and loop control); 8 fine points read, 1 coarse written */
  ICSIM_PHASE_END_WORK(.ops = 43.0 * coarse, .bytes = 72.0 * coarse, .working_set = level_bytes(k) + level_bytes(j));
  if (gather) {
    size_t pl = L[j].plane, part = (size_t)jcount * pl;
    MPI_Allgather(&s[(size_t)(jfirst + 1) * pl], (int)part, MPI_DOUBLE, buf3, (int)part, MPI_DOUBLE,
                  MPI_COMM_WORLD);
    if (!run.skeleton)
      memcpy(&s[pl], buf3, (size_t)nc * pl * sizeof *s);
  }
  comm3(s, j);
}

/* fine level k u += Q (coarse level k-1 u) */
static void interp(int k)
{
  int j = k - 1, nc = L[j].n;
  const double *z = L[j].u;
  double *u = L[k].u;
  int base = (L[k].p3 > 1 && L[j].p3 == 1) ? L[k].off / 2 : 0;
  int mm3 = L[k].m3 / 2; /* coarse planes under my fine planes */
  double *z1 = buf1, *z2 = buf2, *z3 = buf4;
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton)
    for (int c3 = 0; c3 <= mm3; c3++) {
      int i3 = base + c3;
      for (int i2 = 0; i2 <= nc; i2++) {
        for (int i1 = 0; i1 < nc + 2; i1++) {
          z1[i1] = AT(z, j, i3, i2 + 1, i1) + AT(z, j, i3, i2, i1);
          z2[i1] = AT(z, j, i3 + 1, i2, i1) + AT(z, j, i3, i2, i1);
          z3[i1] = AT(z, j, i3 + 1, i2 + 1, i1) + AT(z, j, i3 + 1, i2, i1) + z1[i1];
        }
        for (int i1 = 0; i1 <= nc; i1++) {
          AT(u, k, 2 * c3, 2 * i2, 2 * i1) += AT(z, j, i3, i2, i1);
          AT(u, k, 2 * c3, 2 * i2, 2 * i1 + 1) += 0.5 * (AT(z, j, i3, i2, i1 + 1) + AT(z, j, i3, i2, i1));
        }
        for (int i1 = 0; i1 <= nc; i1++) {
          AT(u, k, 2 * c3, 2 * i2 + 1, 2 * i1) += 0.5 * z1[i1];
          AT(u, k, 2 * c3, 2 * i2 + 1, 2 * i1 + 1) += 0.25 * (z1[i1] + z1[i1 + 1]);
        }
        for (int i1 = 0; i1 <= nc; i1++) {
          AT(u, k, 2 * c3 + 1, 2 * i2, 2 * i1) += 0.5 * z2[i1];
          AT(u, k, 2 * c3 + 1, 2 * i2, 2 * i1 + 1) += 0.25 * (z2[i1] + z2[i1 + 1]);
        }
        for (int i1 = 0; i1 <= nc; i1++) {
          AT(u, k, 2 * c3 + 1, 2 * i2 + 1, 2 * i1) += 0.25 * z3[i1];
          AT(u, k, 2 * c3 + 1, 2 * i2 + 1, 2 * i1 + 1) += 0.125 * (z3[i1] + z3[i1 + 1]);
        }
      }
    }
  double coarse = (double)(mm3 + 1) * (nc + 1) * (nc + 1);
  /* per coarse point, as compiled (loads folded into adds counted once): the z1/z2/z3 loop 13 (its
   * loads, 4 adds, 3 stores), the four update loops 12, 13, 13, 13 (two read-modify-writes of u
   * each), loop control included; 8 fine points read and written, the coarse point read */
  ICSIM_PHASE_END_WORK(.ops = 64.0 * coarse, .bytes = 136.0 * coarse, .working_set = level_bytes(k) + level_bytes(j));
}

static void zero3(double *a, int k)
{
  size_t cells = (size_t)(L[k].m3 + 2) * L[k].plane;
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton)
    memset(a, 0, cells * sizeof *a);
  ICSIM_PHASE_END_WORK(.bytes = 8.0 * cells, .working_set = 8.0 * cells);
}

static void mg3p(void)
{
  for (int k = lt; k >= 2; k--)
    rprj3(k);
  zero3(L[1].u, 1);
  psinv(L[1].r, L[1].u, 1);
  for (int k = 2; k <= lt - 1; k++) {
    zero3(L[k].u, k);
    interp(k);
    resid(L[k].u, L[k].r, L[k].r, k);
    psinv(L[k].r, L[k].u, k);
  }
  interp(lt);
  resid(L[lt].u, v, L[lt].r, lt);
  psinv(L[lt].r, L[lt].u, lt);
}

/* L2 norm (root mean square) and max norm of the finest level's interior */
static void norm2u3(const double *r, double *rnm2, double *rnmu)
{
  int k = lt, n = L[k].n;
  double s = 0, mx = 0;
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton)
    for (int i3 = 1; i3 <= L[k].m3; i3++)
      for (int i2 = 1; i2 <= n; i2++)
        for (int i1 = 1; i1 <= n; i1++) {
          double x = AT(r, k, i3, i2, i1);
          s += x * x;
          if (fabs(x) > mx)
            mx = fabs(x);
        }
  /* per point, as compiled: load, 2 register copies, multiply, add, absolute value, compare, max and
   * conditional move (the max without a branch), loop control 3: 12; the sum is a chain of adds */
  ICSIM_PHASE_END_WORK(.ops = 12.0 * interior(k), .bytes = 8.0 * interior(k), .working_set = level_bytes(k),
                       .chain = interior(k));
  double gs, gm;
  MPI_Allreduce(&s, &gs, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&mx, &gm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  *rnm2 = sqrt(gs / ((double)n * n * n));
  *rnmu = gm;
}

struct cand {
  double val;
  int g1, g2, g3;
};

/* keep the 10 best of SET (largest if SIGN > 0, else smallest), sorted best first */
static void keep10(struct cand *set, double val, int g1, int g2, int g3, int sign)
{
  if (sign * val <= sign * set[9].val)
    return;
  int i = 9;
  while (i > 0 && sign * val > sign * set[i - 1].val) {
    set[i] = set[i - 1];
    i--;
  }
  set[i] = (struct cand){val, g1, g2, g3};
}

/* v: +1 at the ten largest, -1 at the ten smallest values of the random field over the grid's
 * interior (NPB zran3). The field is the generator stream in axis-1-fastest order. */
static void zran3(void)
{
  int k = lt, n = L[k].n;
  const double a = 1220703125.0;
  double x0 = 314159265.0;
  zero3(v, k);
  double a1 = npb_pow46(a, n), a2 = npb_pow46(a, (long long)n * n);
  randlc(&x0, npb_pow46(a, (long long)n * n * L[k].off));
  struct cand big[10], small[10];
  for (int i = 0; i < 10; i++) {
    big[i] = (struct cand){0.0, -1, -1, -1};
    small[i] = (struct cand){1.0, -1, -1, -1};
  }
  ICSIM_PHASE_BEGIN();
  if (!run.skeleton)
    for (int i3 = 1; i3 <= L[k].m3; i3++) {
      double x1 = x0;
      for (int i2 = 1; i2 <= n; i2++) {
        double xx = x1;
        vranlc(n, &xx, a, &AT(v, k, i3, i2, 1));
        randlc(&x1, a1);
        for (int i1 = 1; i1 <= n; i1++) {
          double z = AT(v, k, i3, i2, i1);
          keep10(big, z, i1, i2, L[k].off + i3, +1);
          keep10(small, z, i1, i2, L[k].off + i3, -1);
        }
      }
      randlc(&x0, a2);
    }
  ICSIM_PHASE_END(12.0 * interior(k), 8.0 * interior(k));
  /* the global ten of each kind among every process' ten */
  struct cand *all = malloc((size_t)run.nprocs * 20 * sizeof *all);
  struct cand mine[20];
  memcpy(mine, big, sizeof big);
  memcpy(mine + 10, small, sizeof small);
  MPI_Allgather(mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
  for (int i = 0; i < 10; i++) {
    big[i] = (struct cand){0.0, -1, -1, -1};
    small[i] = (struct cand){1.0, -1, -1, -1};
  }
  for (int p = 0; p < run.nprocs; p++)
    for (int i = 0; i < 10; i++) {
      struct cand b = all[p * 20 + i], s = all[p * 20 + 10 + i];
      if (b.g1 >= 0)
        keep10(big, b.val, b.g1, b.g2, b.g3, +1);
      if (s.g1 >= 0)
        keep10(small, s.val, s.g1, s.g2, s.g3, -1);
    }
  free(all);
  zero3(v, k);
  if (!run.skeleton)
    for (int i = 0; i < 10; i++) {
      int l3 = small[i].g3 - L[k].off;
      if (small[i].g1 >= 0 && l3 >= 1 && l3 <= L[k].m3)
        AT(v, k, l3, small[i].g2, small[i].g1) = -1.0;
      l3 = big[i].g3 - L[k].off;
      if (big[i].g1 >= 0 && l3 >= 1 && l3 <= L[k].m3)
        AT(v, k, l3, big[i].g2, big[i].g1) = +1.0;
    }
  comm3(v, k);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rc = npb_start(&run, "MG", argc, argv, "SWAB");
  if (rc) {
    MPI_Finalize();
    return rc & 0xff;
  }
  int nx;
  double verify_value;
  switch (run.cls) {
  case 'S': nx = 32; nit = 4; verify_value = 0.5307707005734e-04; break;
  case 'W': nx = 128; nit = 4; verify_value = 0.6467329375339e-05; break;
  case 'A': nx = 256; nit = 4; verify_value = 0.2433365309069e-05; break;
  default: nx = 256; nit = 20; verify_value = 0.1800564401355e-05; break;
  }
  if (run.cls == 'B') {
    ccoef[0] = -3.0 / 17.0; ccoef[1] = 1.0 / 33.0; ccoef[2] = -1.0 / 61.0;
  } else {
    ccoef[0] = -3.0 / 8.0; ccoef[1] = 1.0 / 32.0; ccoef[2] = -1.0 / 64.0;
  }
  if ((rc = npb_check_procs(&run, nx / 2, "each process needs two planes of the finest grid")))
    goto done;
  lt = 0;
  while ((1 << lt) < nx)
    lt++;
  for (int k = 1; k <= lt; k++) {
    L[k].n = 1 << k;
    L[k].p3 = (L[k].n / run.nprocs >= 2) ? run.nprocs : 1;
    L[k].m3 = L[k].n / L[k].p3;
    L[k].off = L[k].p3 > 1 ? run.rank * L[k].m3 : 0;
    L[k].plane = (size_t)(L[k].n + 2) * (L[k].n + 2);
    size_t cells = (size_t)(L[k].m3 + 2) * L[k].plane;
    L[k].u = npb_alloc(&run, cells * sizeof(double), "u");
    L[k].r = npb_alloc(&run, cells * sizeof(double), "r");
  }
  v = npb_alloc(&run, (size_t)(L[lt].m3 + 2) * L[lt].plane * sizeof(double), "v");
  buf1 = malloc((nx + 2) * sizeof *buf1);
  buf2 = malloc((nx + 2) * sizeof *buf2);
  buf4 = malloc((nx + 2) * sizeof *buf4);
  buf3 = npb_alloc(&run, (size_t)L[lt].plane * (nx / 2 + 2) * sizeof *buf3, "gather buffer");
  if (run.rank == 0)
    printf("\n NAS Parallel Benchmarks (icsim implementation) - MG Benchmark\n Size: %3dx%3dx%3d  (class %c)\n"
           " Iterations: %3d\n Number of processes: %5d\n",
           nx, nx, nx, run.cls, nit, run.nprocs);

  double rnm2, rnmu;
  zero3(L[lt].u, lt);
  zran3();
  resid(L[lt].u, v, L[lt].r, lt);
  norm2u3(L[lt].r, &rnm2, &rnmu);
  /* one untimed cycle, then start over */
  mg3p();
  resid(L[lt].u, v, L[lt].r, lt);
  zero3(L[lt].u, lt);
  zran3();

  npb_timer_start(&run);
  resid(L[lt].u, v, L[lt].r, lt);
  norm2u3(L[lt].r, &rnm2, &rnmu);
  for (int it = 1; it <= nit; it++) {
    if (run.rank == 0 && !run.skeleton)
      printf("  iter %3d\n", it);
    mg3p();
    resid(L[lt].u, v, L[lt].r, lt);
  }
  norm2u3(L[lt].r, &rnm2, &rnmu);
  npb_timer_stop(&run);

  int verified = -1;
  if (!run.skeleton) {
    double err = fabs(rnm2 - verify_value) / verify_value;
    verified = err <= 1e-8;
    if (run.rank == 0)
      printf(" L2 Norm is  %20.13e\n Reference   %20.13e\n Error is    %20.13e\n", rnm2, verify_value, err);
  }
  char size[32];
  snprintf(size, sizeof size, "%dx%dx%d", nx, nx, nx);
  npb_report(&run, size, nit, 58.0 * nit * (double)nx * nx * nx / run.time_s / 1e6, "floating point", verified);
done:
  MPI_Finalize();
  return rc;
}
