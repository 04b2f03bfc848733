/* Which parameters are sampled, how, and at which points (uq.h). */
#include "uq.h"

#include <gsl/gsl_qrng.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int uq_params_from(const struct icsim_params *ps, struct uq_param **out)
{
  int n = 0;
  *out = calloc(ps->n + 1, sizeof **out);
  for (size_t i = 0; i < ps->n; i++) {
    const struct icsim_pval *pv = &ps->v[i];
    if (!icsim_param_sampled(pv) || pv->lo == pv->hi) /* a range of one value moves nothing */
      continue;
    struct uq_param *p = &(*out)[n++];
    p->key = pv->d->key;
    p->type = pv->d->type;
    p->dim = pv->d->type == ICSIM_P_QUANTITY ? pv->d->dim : ICSIM_DIM_NONE;
    p->nominal = pv->num;
    p->lo = pv->lo;
    p->hi = pv->hi;
    p->log = pv->lo > 0 && pv->hi / pv->lo > UQ_LOG_RATIO;
    p->range_text = pv->range_text;
    p->range_ref = pv->range_ref;
  }
  return n;
}

double uq_value_at(const struct uq_param *p, double u)
{
  if (isnan(u))
    return p->nominal;
  u = u < 0 ? 0 : u > 1 ? 1 : u;
  double v = p->log ? exp(log(p->lo) + u * (log(p->hi) - log(p->lo))) : p->lo + u * (p->hi - p->lo);
  if (p->type == ICSIM_P_INT)
    v = floor(v + 0.5);
  return v < p->lo ? p->lo : v > p->hi ? p->hi : v; /* exp/log may step out by an ulp */
}

void uq_set_text(const struct uq_param *p, double v, char *buf, size_t len)
{
  if (p->type == ICSIM_P_INT)
    snprintf(buf, len, "%s=%.0f", p->key, v);
  else /* 17 digits: the value read back is the value drawn */
    snprintf(buf, len, "%s=%.17g%s", p->key, v, icsim_dim_unit(p->dim));
}

void uq_design_free(struct uq_design *d)
{
  free(d->u);
  memset(d, 0, sizeof *d);
}

static int design_alloc(struct uq_design *d, int nruns, int k)
{
  d->nruns = nruns;
  d->k = k;
  d->u = malloc((size_t)nruns * (size_t)(k ? k : 1) * sizeof *d->u);
  return d->u ? 0 : -1;
}

int uq_morris_design(int k, int r, int levels, unsigned long seed, struct uq_design *d)
{
  if (k < 1 || r < 1 || levels < 2 || levels % 2 || design_alloc(d, r * (k + 1), k))
    return -1;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, seed);
  /* Jumps of levels/(2(levels-1)) grid steps: every level is reached equally often
   * (Morris 1991; Campolongo, Cariboni and Saltelli 2007) */
  double step = 1.0 / (levels - 1), delta = levels / (2.0 * (levels - 1));
  int half = levels / 2, *order = malloc((size_t)k * sizeof *order);
  double *x = malloc((size_t)k * sizeof *x);
  for (int t = 0; t < r; t++) {
    /* a base point from which each move stays inside [0, 1]: the lower half of the levels when
     * the move goes up, the upper half when it goes down */
    int *up = malloc((size_t)k * sizeof *up);
    for (int i = 0; i < k; i++) {
      up[i] = gsl_rng_uniform_int(rng, 2) == 0;
      int lvl = (int)gsl_rng_uniform_int(rng, (unsigned long)half);
      x[i] = (up[i] ? lvl : lvl + half) * step;
      order[i] = i;
    }
    for (int i = k - 1; i > 0; i--) { /* Fisher-Yates: the order parameters move in */
      int j = (int)gsl_rng_uniform_int(rng, (unsigned long)i + 1), tmp = order[i];
      order[i] = order[j];
      order[j] = tmp;
    }
    double *row = &d->u[(size_t)t * (k + 1) * k];
    memcpy(row, x, (size_t)k * sizeof *x);
    for (int s = 0; s < k; s++) {
      int i = order[s];
      x[i] += up[i] ? delta : -delta;
      memcpy(row + (size_t)(s + 1) * k, x, (size_t)k * sizeof *x);
    }
    free(up);
  }
  free(order);
  free(x);
  gsl_rng_free(rng);
  return 0;
}

void uq_morris_effects(const struct uq_design *d, const double *y, double *mu_star, double *sigma)
{
  int k = d->k, r = d->nruns / (k + 1);
  for (int i = 0; i < k; i++) {
    double sum_abs = 0, mean = 0, m2 = 0; /* Welford: no cancellation when the effects are equal */
    int n = 0;
    for (int t = 0; t < r; t++)
      for (int s = 0; s < k; s++) {
        const double *a = &d->u[(size_t)(t * (k + 1) + s) * k], *b = a + k;
        double du = b[i] - a[i];
        if (du == 0) /* not the parameter moved at this step */
          continue;
        double ya = y[t * (k + 1) + s], yb = y[t * (k + 1) + s + 1];
        if (isnan(ya) || isnan(yb))
          break;
        double ee = (yb - ya) / du, delta = ee - mean;
        sum_abs += fabs(ee);
        n++;
        mean += delta / n;
        m2 += delta * (ee - mean);
      }
    mu_star[i] = n ? sum_abs / n : NAN;
    sigma[i] = n > 1 ? sqrt(fmax(0, m2 / (n - 1))) : NAN;
  }
}

int uq_saltelli_design(int k, const int *sel, int m, int n, unsigned long seed, struct uq_design *d)
{
  if (m < 1 || m > UQ_SOBOL_MAX_M || n < 1 || design_alloc(d, n * (m + 2), k))
    return -1;
  gsl_qrng *q = gsl_qrng_alloc(gsl_qrng_sobol, (unsigned)(2 * m));
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  if (!q || !rng) {
    gsl_qrng_free(q);
    gsl_rng_free(rng);
    return -1;
  }
  gsl_rng_set(rng, seed ^ 0x5a17e11UL); /* another stream than the Morris trajectories' */
  double shift[2 * UQ_SOBOL_MAX_M], v[2 * UQ_SOBOL_MAX_M];
  for (int j = 0; j < 2 * m; j++)
    shift[j] = gsl_rng_uniform(rng);
  for (size_t i = 0; i < (size_t)d->nruns * k; i++)
    d->u[i] = NAN;
  gsl_qrng_get(q, v); /* the first point is all zeros: skipped */
  for (int row = 0; row < n; row++) {
    gsl_qrng_get(q, v);
    for (int j = 0; j < 2 * m; j++)
      v[j] = fmod(v[j] + shift[j], 1.0);
    double *a = &d->u[(size_t)row * k], *b = &d->u[(size_t)(n + row) * k];
    for (int j = 0; j < m; j++) {
      a[sel[j]] = v[j];
      b[sel[j]] = v[m + j];
    }
    for (int i = 0; i < m; i++) { /* AB_i: A with column i from B */
      double *ab = &d->u[(size_t)((2 + i) * n + row) * k];
      memcpy(ab, a, (size_t)k * sizeof *ab);
      ab[sel[i]] = b[sel[i]];
    }
  }
  gsl_qrng_free(q);
  gsl_rng_free(rng);
  return 0;
}

int uq_sample_design(int k, int n, unsigned long seed, struct uq_design *d)
{
  if (k < 1 || n < 1 || k > 1229 || design_alloc(d, n, k))
    return -1;
  gsl_qrng *q = gsl_qrng_alloc(k <= 40 ? gsl_qrng_sobol : gsl_qrng_reversehalton, (unsigned)k);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  double *shift = malloc((size_t)k * sizeof *shift), *v = malloc((size_t)k * sizeof *v);
  if (!q || !rng || !shift || !v) {
    gsl_qrng_free(q), gsl_rng_free(rng), free(shift), free(v);
    uq_design_free(d);
    return -1;
  }
  gsl_rng_set(rng, seed ^ 0x3c6ef372UL); /* another stream than the other designs' */
  for (int j = 0; j < k; j++)
    shift[j] = gsl_rng_uniform(rng);
  gsl_qrng_get(q, v); /* the first point is all zeros: skipped */
  for (int r = 0; r < n; r++) {
    gsl_qrng_get(q, v);
    for (int j = 0; j < k; j++)
      d->u[(size_t)r * k + j] = fmod(v[j] + shift[j], 1.0);
  }
  gsl_qrng_free(q);
  gsl_rng_free(rng);
  free(shift);
  free(v);
  return 0;
}
