/* validate --uncertainty: each case's uncertainty study (sim/uq.h) and the intervals it gives the
 * case's rows. The point predictions are the plain runs' (the study's nominal run repeats them);
 * an interval only adds how far each could move within the ranges of the platform's parameters.
 *
 * A calibration point is different: the calibrated parameters were fitted on it, so their prior
 * ranges say nothing of it. Its interval is the fit's residual instead: the root mean square of
 * the relative errors of the metric's calibration points, as a normal spread (90%: +-1.645 of it)
 * around the simulated value. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "uq.h"
#include "validate.h"

int validate_uncertainty;

/* 1 if X is one of the calibration points of the first entry of METRIC in Y. */
static int calibration_point(const struct icsim_yfile *y, const char *metric, const char *x, int *entry)
{
  for (int mi = 0; case_get(y, "metrics/%d/name", mi); mi++) {
    if (strcmp(case_get(y, "metrics/%d/name", mi), metric))
      continue;
    *entry = mi;
    const char *p;
    for (int k = 0; (p = case_item(y, "metrics/%d/calibrates/points/%d", mi, k)); k++)
      if (!strcmp(p, x))
        return 1;
    return 0;
  }
  return 0;
}

int validate_case_uncertainty(const struct icsim_yfile *y, const char *root, const char *outdir,
                              const struct uq_opts *o, struct rows *rs, char *err, size_t errlen)
{
  const char *name = case_get(y, "case", 0);
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s/uncertainty", outdir);
  if ((mkdir(outdir, 0755) && errno != EEXIST) || (mkdir(dir, 0755) && errno != EEXIST)) {
    snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
    return -1;
  }
  snprintf(dir, sizeof dir, "%s/uncertainty/%s", outdir, name);
  struct uq_opts co = *o;
  co.dir = dir;
  struct uq_study st = {0};
  st.ne = uq_entries_from_case(y, root, NULL, 0, &st.e, err, errlen);
  fprintf(stderr, "icsim validate: %s: uncertainty study (budget %ld points, %d program run%s each) in %s\n", name,
          o->budget, st.ne, st.ne > 1 ? "s" : "", dir);
  int rc = uq_study_run(&st, &co, err, errlen);
  if (rc >= 0 && uq_report_write(&st, &co, err, errlen))
    rc = -1;
  if (rc == -2 || rc == -3) { /* no ranges yet, or --dry-run: no intervals, said, not a failure */
    fprintf(stderr, "icsim validate: %s: no intervals: %s\n", name, err);
    rc = 0;
  } else if (rc < 0) {
    char why[2048];
    snprintf(why, sizeof why, "%s", err);
    snprintf(err, errlen, "%s: uncertainty: %s", name, why);
  }
  for (size_t i = 0; rc >= 0 && i < rs->n; i++) {
    struct row *r = &rs->r[i];
    if (strcmp(r->case_name, name) || !r->has_simulated)
      continue;
    int entry = -1, calibration = calibration_point(y, r->metric, r->x, &entry);
    if (entry < 0 || case_get(y, "metrics/%d/derive", entry))
      continue; /* an aggregate or a claim, or a derived metric (its figures are not the runs' rows) */
    if (calibration) {
      /* the fit's residual over this metric's calibration points */
      double ss = 0;
      int n = 0;
      for (size_t j = 0; j < rs->n; j++) {
        const struct row *c = &rs->r[j];
        int e2;
        if (!strcmp(c->case_name, name) && !strcmp(c->metric, r->metric) && c->has_published && c->has_simulated &&
            calibration_point(y, c->metric, c->x, &e2))
          ss += c->rel_error * c->rel_error, n++;
      }
      double rms = n ? sqrt(ss / n) : 0;
      r->has_interval = 1;
      r->median = r->simulated;
      r->p05 = r->simulated * (1 - 1.645 * rms);
      r->p95 = r->simulated * (1 + 1.645 * rms);
      snprintf(r->top, sizeof r->top, "fit residual (%.3g%% rms over %d calibration points)", 100 * rms, n);
    } else {
      for (int f = 0; f < st.nf; f++) {
        const struct uq_figure *g = &st.f[f];
        if (strcmp(g->metric, r->metric) || strcmp(g->x, r->x))
          continue;
        r->has_interval = 1;
        r->p05 = g->p05;
        r->median = g->median;
        r->p95 = g->p95;
        r->top[0] = '\0';
        for (int t = 0; t < 3 && g->top[t] >= 0; t++)
          snprintf(r->top + strlen(r->top), sizeof r->top - strlen(r->top), "%s%s", t ? ";" : "", st.pname[g->top[t]]);
        char slug[160];
        uq_figure_slug(g, slug, sizeof slug);
        snprintf(r->tornado, sizeof r->tornado, "uncertainty/%s/tornado/%s.png", name, slug);
        if (fabs(g->point - r->simulated) > 1e-9 * fabs(r->simulated) + 1e-12)
          fprintf(stderr, "icsim validate: %s %s at %s: the study's nominal run gave %.10g, the plain run %.10g "
                          "(the interval is around the study's)\n", name, r->metric, r->x, g->point, r->simulated);
      }
    }
    /* a calibration point outside its residual band is the fit's worst, not a missing mechanism */
    r->outside = !calibration && r->has_interval && r->has_published && strcmp(r->status, "excluded") &&
                 (r->published < r->p05 || r->published > r->p95);
  }
  uq_entries_free(st.e, st.ne);
  st.e = NULL;
  uq_study_free(&st);
  return rc;
}
