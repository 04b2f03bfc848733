/* Simulated against published: one row per published point with its status (pass/fail against
 * the tolerance, blind when held back, excluded with a reason), aggregates over metrics, the
 * efficiency derivation, and the acceptance rule that turns a case's rows into its verdict. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

static struct row *add_row(struct rows *rs)
{
  if (rs->n == rs->cap) {
    rs->cap = rs->cap ? 2 * rs->cap : 64;
    rs->r = realloc(rs->r, rs->cap * sizeof *rs->r);
  }
  memset(&rs->r[rs->n], 0, sizeof rs->r[0]);
  return &rs->r[rs->n++];
}

static struct row *new_row(struct rows *rs, const char *case_name, const char *metric, const char *x, double tol)
{
  struct row *r = add_row(rs);
  snprintf(r->case_name, sizeof r->case_name, "%s", case_name);
  snprintf(r->metric, sizeof r->metric, "%s", metric);
  snprintf(r->x, sizeof r->x, "%s", x);
  r->tolerance = tol;
  return r;
}

/* Parallel efficiency t(x0) x0 / (x t(x)) of times t(x) against the smallest x run (x =
 * processes or nodes); the time goes into the note. Returns a new array of NSIM points. */
static struct point *efficiency(const struct point *sim, size_t nsim)
{
  struct point *derived = calloc(nsim ? nsim : 1, sizeof *derived);
  memcpy(derived, sim, nsim * sizeof *sim);
  size_t base = 0;
  for (size_t j = 1; j < nsim; j++)
    if (atof(sim[j].x) < atof(sim[base].x))
      base = j;
  for (size_t j = 0; j < nsim; j++) {
    double x = atof(sim[j].x), x0 = atof(sim[base].x);
    derived[j].value = sim[base].value * x0 / (x * sim[j].value);
    size_t used = strlen(derived[j].note);
    snprintf(derived[j].note + used, sizeof derived[j].note - used, "%stime %.4g s", used ? ", " : "", sim[j].value);
  }
  return derived;
}

/* Status of a row that has its published and simulated values (if any) set. */
static void judge(struct row *r, double tol)
{
  if (!r->has_published) {
    r->status = "blind";
    return;
  }
  r->rel_error = r->published != 0 ? (r->simulated - r->published) / r->published : (r->simulated == 0 ? 0 : INFINITY);
  r->status = fabs(r->rel_error) <= tol ? "pass" : "fail";
}

int compare_metric(const struct icsim_yfile *y, int mi, const char *case_name, const char *root,
                   const struct point *sim, size_t nsim, struct rows *rs, char *err, size_t errlen)
{
  const char *metric = case_get(y, "metrics/%d/name", mi);
  double tol = case_num(y, "metrics/%d/tolerance", mi, 0);
  char pubpath[PATH_MAX];
  snprintf(pubpath, sizeof pubpath, "%s/%s", root, case_get(y, "metrics/%d/published", mi));
  struct point *pub;
  size_t npub;
  if (load_published(pubpath, metric, &pub, &npub, err, errlen))
    return -1;
  char cal[512] = ""; /* calibration points of this metric, ",x," each, for the report */
  const char *point;
  for (int k = 0; (point = case_item(y, "metrics/%d/calibrates/points/%d", mi, k)); k++)
    snprintf(cal + strlen(cal), sizeof cal - strlen(cal), ",%s,", point);
  struct point *derived = NULL;
  if (case_get(y, "metrics/%d/derive", mi)) /* the schema knows one: efficiency */
    sim = derived = efficiency(sim, nsim);
  for (size_t i = 0; i < npub; i++) {
    struct row *r = new_row(rs, case_name, metric, pub[i].x, tol);
    r->has_published = pub[i].has_value;
    r->published = pub[i].value;
    for (size_t j = 0; j < nsim; j++)
      if (strcmp(sim[j].x, pub[i].x) == 0) {
        r->has_simulated = 1;
        r->simulated = sim[j].value;
        snprintf(r->note, sizeof r->note, "%s", sim[j].note);
      }
    char probe[80];
    snprintf(probe, sizeof probe, ",%s,", r->x);
    if (strstr(cal, probe))
      snprintf(r->note, sizeof r->note, "calibration point");
    else if (!r->has_published && case_get(y, "metrics/%d/note", mi) && !r->note[0])
      snprintf(r->note, sizeof r->note, "%s", case_get(y, "metrics/%d/note", mi));
    for (int k = 0; case_get(y, "excluded/%d/metric", k); k++)
      if (!strcmp(case_get(y, "excluded/%d/metric", k), metric) && !strcmp(case_get(y, "excluded/%d/x", k), r->x)) {
        r->status = "excluded";
        snprintf(r->note, sizeof r->note, "%s", case_get(y, "excluded/%d/reason", k));
      }
    if (r->status)
      continue;
    if (!r->has_simulated) {
      r->status = "fail";
      snprintf(r->note, sizeof r->note, "the workload printed no row for x = %s", r->x);
    } else {
      judge(r, tol);
    }
  }
  free(pub);
  free(derived);
  return 0;
}

/* The mean of the simulated values of metrics `of` at `x`: a published statement about a
 * whole suite (e.g. "about 80% efficiency for NPB class A"). */
int compare_aggregate(const struct icsim_yfile *y, int a, const char *case_name, const char *root, struct rows *rs,
                      char *err, size_t errlen)
{
  const char *name = case_get(y, "aggregates/%d/name", a), *x = case_get(y, "aggregates/%d/x", a);
  double tol = case_num(y, "aggregates/%d/tolerance", a, 0), sum = 0;
  int n = 0, wanted = 0;
  char parts[192] = "";
  const char *of;
  for (int k = 0; (of = case_item(y, "aggregates/%d/of/%d", a, k)); k++) {
    wanted++;
    for (size_t i = 0; i < rs->n; i++)
      if (!strcmp(rs->r[i].case_name, case_name) && !strcmp(rs->r[i].metric, of) && !strcmp(rs->r[i].x, x) &&
          rs->r[i].has_simulated) {
        sum += rs->r[i].simulated;
        n++;
        size_t used = strlen(parts);
        snprintf(parts + used, sizeof parts - used, "%s%.3g", used ? " " : "mean of ", rs->r[i].simulated);
      }
  }
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", root, case_get(y, "aggregates/%d/published", a));
  struct point *pub;
  size_t npub;
  if (load_published(path, name, &pub, &npub, err, errlen))
    return -1;
  struct row *r = new_row(rs, case_name, name, x, tol);
  for (size_t i = 0; i < npub; i++)
    if (!strcmp(pub[i].x, x)) {
      r->has_published = pub[i].has_value;
      r->published = pub[i].value;
    }
  free(pub);
  snprintf(r->note, sizeof r->note, "%s", parts);
  if (n != wanted || !wanted) {
    r->status = "fail";
    snprintf(r->note, sizeof r->note, "%d of the %d metrics have a value at x = %s", n, wanted, x);
    return 0;
  }
  r->has_simulated = 1;
  r->simulated = sum / n;
  judge(r, tol);
  return 0;
}

/* A qualitative claim of the source ("far above", "the curves meet"): the ratio of two
 * metrics' simulated values at one x must lie within the claim's bounds. It counts in the
 * verdict like a compared point. */
int compare_claim(const struct icsim_yfile *y, int c, const char *case_name, struct rows *rs, char *err,
                  size_t errlen)
{
  (void)err;
  (void)errlen;
  const char *name = case_get(y, "claims/%d/name", c), *x = case_get(y, "claims/%d/x", c);
  const char *of = case_get(y, "claims/%d/of", c), *over = case_get(y, "claims/%d/over", c);
  double lo = case_num(y, "claims/%d/at-least", c, -INFINITY), hi = case_num(y, "claims/%d/at-most", c, INFINITY);
  const struct row *a = NULL, *b = NULL;
  for (size_t i = 0; i < rs->n; i++)
    if (!strcmp(rs->r[i].case_name, case_name) && !strcmp(rs->r[i].x, x) && rs->r[i].has_simulated) {
      if (!strcmp(rs->r[i].metric, of))
        a = &rs->r[i];
      if (!strcmp(rs->r[i].metric, over))
        b = &rs->r[i];
    }
  double va = a ? a->simulated : 0, vb = b ? b->simulated : 0; /* read before add_row may move rs->r */
  struct row *r = new_row(rs, case_name, name, x, 0);
  if (!a || !b || vb == 0) {
    r->status = "fail";
    snprintf(r->note, sizeof r->note, "claim not checkable: %s has no simulated value at x = %s", !a ? of : over, x);
    return 0;
  }
  r->has_simulated = 1;
  r->simulated = va / vb;
  int ok = r->simulated >= lo && r->simulated <= hi;
  r->status = ok ? "pass" : "fail";
  char bounds[64];
  if (isinf(lo))
    snprintf(bounds, sizeof bounds, "<= %g", hi);
  else if (isinf(hi))
    snprintf(bounds, sizeof bounds, ">= %g", lo);
  else
    snprintf(bounds, sizeof bounds, "in [%g, %g]", lo, hi);
  snprintf(r->note, sizeof r->note, "claim: %s (%s / %s = %.3g, needs %s)", case_get(y, "claims/%d/text", c), of,
           over, r->simulated, bounds);
  return 0;
}

/* A case's verdict. By default every compared point must pass. A case may instead accept a
 * share of failures (acceptance/pass-fraction of the points it does not exclude) and bound how
 * many published points it may exclude (acceptance/max-excluded-fraction of all of them). */
int print_verdicts(FILE *f, const struct rows *rs, const struct icsim_yfile *files, int nfiles, int markdown)
{
  int rejected = 0;
  for (int i = 0; i < nfiles; i++) {
    const char *name = case_get(&files[i], "case", 0);
    const char *xf = case_get(&files[i], "acceptance/max-excluded-fraction", 0);
    double need = case_num(&files[i], "acceptance/pass-fraction", 0, 1);
    double max_ex = case_num(&files[i], "acceptance/max-excluded-fraction", 0, 1);
    int pass = 0, fail = 0, excl = 0, blind = 0, outside = 0, intervals = 0;
    for (size_t k = 0; k < rs->n; k++) {
      if (strcmp(rs->r[k].case_name, name))
        continue;
      blind += !strcmp(rs->r[k].status, "blind");
      pass += !strcmp(rs->r[k].status, "pass");
      fail += !strcmp(rs->r[k].status, "fail");
      excl += !strcmp(rs->r[k].status, "excluded");
      outside += rs->r[k].outside;
      intervals += rs->r[k].has_interval && rs->r[k].has_published && strcmp(rs->r[k].status, "excluded") &&
                   !strstr(rs->r[k].top, "fit residual"); /* a calibration point is judged by the fit */
    }
    int compared = pass + fail, published = compared + excl;
    if (published == 0) {
      int blind_iv = 0;
      for (size_t k = 0; k < rs->n; k++)
        blind_iv += !strcmp(rs->r[k].case_name, name) && !strcmp(rs->r[k].status, "blind") && rs->r[k].has_interval;
      if (blind && blind_iv) /* validate --uncertainty */
        fprintf(f, "%s%s: predictions only (%d blind points, %d with a 90%% interval, nothing to accept)\n",
                markdown ? "- " : "", name, blind, blind_iv);
      else if (blind)
        fprintf(f, "%s%s: predictions only (%d blind points, nothing to accept)\n", markdown ? "- " : "", name, blind);
      continue;
    }
    double pass_share = compared ? (double)pass / compared : 1, excl_share = (double)excl / published;
    int ok = pass_share >= need - 1e-12 && excl_share <= max_ex + 1e-12;
    rejected += !ok;
    fprintf(f, "%s%s: %s: %d of %d compared points pass (%.1f%%, needs %.0f%%)", markdown ? "- " : "", name,
            ok ? "ACCEPTED" : "NOT ACCEPTED", pass, compared, 100 * pass_share, 100 * need);
    if (xf) /* the exclusion bound is shown only by the cases that set one */
      fprintf(f, "; %d of %d published points excluded (%.1f%%, at most %.0f%%)", excl, published, 100 * excl_share,
              100 * max_ex);
    int fitted = 0;
    for (size_t k = 0; k < rs->n; k++)
      fitted += !strcmp(rs->r[k].case_name, name) && strstr(rs->r[k].top, "fit residual") != NULL;
    if (intervals) /* validate --uncertainty */
      fprintf(f, "; %d of %d published values outside their 90%% interval%s", outside, intervals,
              outside ? " (a mechanism missing, not a parameter to move)" : "");
    else if (fitted)
      fprintf(f, "; every compared point is a calibration point, its interval the fit's residual");
    fprintf(f, "\n");
  }
  return rejected;
}
