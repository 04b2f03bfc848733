/* Quantiles and Sobol' indices from a Saltelli design's outputs (uq.h). */
#include "uq.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double uq_quantile(const double *x, int n, double q)
{
  double *s = malloc((size_t)(n ? n : 1) * sizeof *s);
  int m = 0;
  for (int i = 0; i < n; i++)
    if (isfinite(x[i]))
      s[m++] = x[i];
  double v = NAN;
  if (m > 0) {
    qsort(s, (size_t)m, sizeof *s, cmp_double);
    double h = (m - 1) * q; /* type 7: the sample's own min and max at q = 0 and 1 */
    int lo = (int)floor(h);
    v = lo + 1 < m ? s[lo] + (h - lo) * (s[lo + 1] - s[lo]) : s[m - 1];
  }
  free(s);
  return v;
}

void uq_sobol_indices(const double *y, int n, int m, double *s1, double *st)
{
  const double *fa = y, *fb = y + n;
  double sum = 0, sum2 = 0;
  int cnt = 0;
  for (int j = 0; j < 2 * n; j++)
    if (isfinite(y[j])) {
      sum += y[j];
      sum2 += y[j] * y[j];
      cnt++;
    }
  double mean = cnt ? sum / cnt : 0, var = cnt > 1 ? (sum2 - cnt * mean * mean) / (cnt - 1) : 0;
  for (int i = 0; i < m; i++) {
    const double *fab = y + (size_t)(2 + i) * n;
    double vi = 0, vt = 0;
    int used = 0;
    for (int j = 0; j < n; j++) {
      if (!isfinite(fa[j]) || !isfinite(fb[j]) || !isfinite(fab[j]))
        continue;
      /* Saltelli et al. 2010, with f(B) centred: the uncentred product adds the output's mean
       * times the small difference between the column means of A and B, noise far larger than
       * the effect when the mean is large against the spread */
      vi += (fb[j] - mean) * (fab[j] - fa[j]);
      vt += (fa[j] - fab[j]) * (fa[j] - fab[j]); /* Jansen 1999 */
      used++;
    }
    int ok = used > 0 && var > 0;
    s1[i] = ok ? vi / used / var : NAN;
    st[i] = ok ? vt / (2.0 * used) / var : NAN;
  }
}
