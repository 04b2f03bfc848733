/* The uncertainty study (uq.h): the ranged parameters of the entries' platforms, the phases
 * (nominal, Morris screening, Sobol' sampling, one-at-a-time swings) and their runs.
 *
 * Every phase is written as sweep files (one per entry, DIR/sweeps/PHASE-E.yaml) whose one
 * axis is a list of variants, each variant one row of the design as --set values; the sweep
 * engine then runs them (sweep.h): each point is stored under the hash of what decides it, so
 * an interrupted study, or one run again with the same seed, repeats nothing already done, and
 * --slurm submits the same points as a job array. The figures of each point are read back from
 * its stored output the way validation cases read theirs (validate/engine/extract.c). */
#define _GNU_SOURCE
#include "uq.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "platform.h"
#include "stats_json.h"
#include "validate.h"

/* Screening keeps the parameters whose effect reaches this share of the largest one's on at
 * least one figure (Morris mu*); the others stay at their file values from then on. */
#define UQ_SCREEN_KEEP 0.05
/* Fewer Saltelli rows than this give indices dominated by sampling noise: the sample then only
 * serves the interval. */
#define UQ_MIN_SOBOL_N 16
/* The smallest sample an interval is given from (p05 and p95 then lie between the first and
 * last two points: a rough interval, said as such by its sample count). */
#define UQ_MIN_SAMPLE 8
/* A screening is worth its points only if at least this many are left for the interval. */
#define UQ_MIN_SCREENED_SAMPLE 16

/* ---- small helpers ---- */

static void yq(FILE *f, const char *s) /* a YAML double-quoted scalar */
{
  fputc('"', f);
  for (; *s; s++)
    if (*s == '"' || *s == '\\')
      fprintf(f, "\\%c", *s);
    else
      fputc(*s, f);
  fputc('"', f);
}

static int entry_holds(const struct uq_entry *e, const char *key)
{
  size_t len = strlen(key);
  for (int i = 0; i < e->nsets; i++)
    if (!strncmp(e->sets[i], key, len) && e->sets[i][len] == '=')
      return 1;
  return 0;
}

/* The distinct platforms, and every sampled parameter of each (loaded with the sets of the first
 * entry on it). */
static int load_params(struct uq_study *st, char *err, size_t errlen)
{
  st->platforms = calloc((size_t)st->ne + 1, sizeof *st->platforms);
  for (int i = 0; i < st->ne; i++) {
    int pi = 0;
    while (pi < st->nplat && strcmp(st->platforms[pi], st->e[i].platform))
      pi++;
    if (pi == st->nplat) {
      st->platforms[st->nplat++] = st->e[i].platform;
      struct icsim_platform pf;
      if (icsim_platform_load(&pf, st->e[i].platform, st->e[i].sets, st->e[i].nsets, err, errlen))
        return -1;
      struct uq_param *p;
      int n = uq_params_from(&pf.params, &p);
      st->p = realloc(st->p, (size_t)(st->k + n + 1) * sizeof *st->p);
      for (int j = 0; j < n; j++) { /* the texts outlive the platform */
        p[j].key = strdup(p[j].key);
        p[j].range_text = strdup(p[j].range_text);
        p[j].range_ref = strdup(p[j].range_ref);
        p[j].plat = pi;
        st->p[st->k++] = p[j];
      }
      free(p);
      icsim_platform_free(&pf);
    }
    st->e[i].plat = pi;
  }
  st->pname = calloc((size_t)st->k + 1, sizeof *st->pname);
  for (int j = 0; j < st->k; j++) {
    const char *base = strrchr(st->platforms[st->p[j].plat], '/');
    snprintf(st->pname[j], sizeof st->pname[j], "%s%s%s", st->p[j].key, st->nplat > 1 ? "@" : "",
             st->nplat > 1 ? (base ? base + 1 : st->platforms[st->p[j].plat]) : "");
  }
  if (st->k == 0) {
    snprintf(err, errlen, "%s: no parameter has a range that applies (range: [LO, HI] with range-ref in the "
             "platform file; `icsim describe -p` lists which values need one)", st->platforms[0]);
    return -2;
  }
  return 0;
}

/* ---- one phase: a design run through the sweep engine ---- */

/* Write entry E's sweep file for design D into PATH. */
static int write_sweep(const struct uq_study *st, int ei, const char *phase, const struct uq_design *d,
                       const char *path, char *err, size_t errlen)
{
  const struct uq_entry *e = &st->e[ei];
  char tmp[PATH_MAX + 16];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
    return -1;
  }
  fprintf(f, "# written by icsim uncertainty: phase %s of entry %d (%s); one variant per design row\n", phase, ei,
          e->metric);
  fprintf(f, "sweep: uq-%s-%d\nplatform: ", phase, ei);
  yq(f, e->platform);
  fprintf(f, "\nprogram: ");
  yq(f, e->program);
  if (e->args && e->args[0]) {
    fprintf(f, "\nargs: ");
    yq(f, e->args);
  }
  fprintf(f, "\nranks: \"%d\"\nplace: ", e->ranks);
  yq(f, e->place);
  fprintf(f, "\nhost-timing: off\n");
  if (e->nsets) {
    fprintf(f, "sets:\n");
    for (int i = 0; i < e->nsets; i++) {
      fprintf(f, "  - ");
      yq(f, e->sets[i]);
      fprintf(f, "\n");
    }
  }
  fprintf(f, "figures:\n  - {name: simulated_time_s, stats: simulated_time_s}\naxes:\n  - name: row\n    variants:\n");
  for (int r = 0; r < d->nruns; r++) {
    fprintf(f, "      - label: %s%05d\n", phase, r);
    int first = 1;
    for (int j = 0; j < st->k; j++) {
      double u = d->u[(size_t)r * d->k + j];
      if (isnan(u) || st->p[j].plat != e->plat || entry_holds(e, st->p[j].key))
        continue;
      char set[256];
      uq_set_text(&st->p[j], uq_value_at(&st->p[j], u), set, sizeof set);
      fprintf(f, "%s        - ", first ? "        sets:\n" : "");
      yq(f, set);
      fprintf(f, "\n");
      first = 0;
    }
  }
  if (fclose(f) || rename(tmp, path)) {
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

/* The figures of entry E in TEXT (its output): points (x, value). */
static void extract(const struct uq_entry *e, const char *text, struct point **pts, size_t *n)
{
  if (e->field) {
    double v = extract_field_value(text, e->field);
    if (!isnan(v)) {
      *pts = realloc(*pts, (*n + 1) * sizeof **pts);
      memset(&(*pts)[*n], 0, sizeof **pts);
      snprintf((*pts)[*n].x, sizeof (*pts)[*n].x, "%s", e->xfmt ? e->xfmt : e->field);
      (*pts)[*n].value = v * e->scale;
      (*pts)[*n].has_value = 1;
      (*n)++;
    }
  } else {
    extract_columns(text, e->column, e->xfmt, e->scale, pts, n);
  }
}

/* Output and counters of a stored point, the counters as "stats:SECTION/NAME = value" lines (as
 * validate's runs give them to a case's `field`). */
static char *point_text(const char *runs, const char *id)
{
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/points/%s/out.txt", runs, id);
  char *out = store_read(path);
  snprintf(path, sizeof path, "%s/points/%s/stats.json", runs, id);
  char *json = store_read(path), *lines = json ? icsim_stats_lines(json) : NULL;
  free(json);
  if (!out)
    out = strdup("");
  if (lines) {
    size_t len = strlen(out), cap = len + 2 * strlen(lines) + 2;
    out = realloc(out, cap);
    for (char *line = strtok(lines, "\n"); line; line = strtok(NULL, "\n"))
      len += (size_t)snprintf(out + len, cap - len, "stats:%s\n", line);
    free(lines);
  }
  return out;
}

/* Define the figures from the nominal row 0 of each entry: every x its output printed. */
static int define_figures(struct uq_study *st, const char *runs, struct sweep_point **pts, char *err, size_t errlen)
{
  for (int i = 0; i < st->ne; i++) {
    if (!store_done(runs, pts[i][0].id)) {
      snprintf(err, errlen, "the nominal run of %s did not finish (see %s/failed/%s.txt)", st->e[i].metric, runs,
               pts[i][0].id);
      return -1;
    }
    char *text = point_text(runs, pts[i][0].id);
    struct point *xs = NULL;
    size_t nx = 0;
    extract(&st->e[i], text, &xs, &nx);
    free(text);
    if (nx == 0) {
      snprintf(err, errlen, "the nominal run of %s printed no figure (%s); see %s/points/%s/out.txt", st->e[i].metric,
               st->e[i].field ? "no 'NAME = value' line" : "no row with a number in that column", runs, pts[i][0].id);
      free(xs);
      return -1;
    }
    for (size_t k = 0; k < nx; k++) {
      int dup = 0; /* entries of one metric pool their points; an x printed twice counts once */
      for (int f = 0; f < st->nf && !dup; f++)
        dup = !strcmp(st->f[f].metric, st->e[i].metric) && !strcmp(st->f[f].x, xs[k].x);
      if (dup)
        continue;
      st->f = realloc(st->f, (size_t)(st->nf + 1) * sizeof *st->f);
      struct uq_figure *g = &st->f[st->nf++];
      memset(g, 0, sizeof *g);
      g->entry = i;
      snprintf(g->metric, sizeof g->metric, "%s", st->e[i].metric);
      snprintf(g->x, sizeof g->x, "%s", xs[k].x);
    }
    free(xs);
  }
  return 0;
}

/* Every figure of every row into Y (nruns x nf, NAN where a point is not done); returns the
 * number of points not done. */
static int read_rows(struct uq_study *st, const char *runs, struct sweep_point **pts, int nruns, double *y)
{
  int missing = 0;
  for (size_t q = 0; q < (size_t)nruns * st->nf; q++)
    y[q] = NAN;
  for (int i = 0; i < st->ne; i++)
    for (int r = 0; r < nruns; r++) {
      if (!store_done(runs, pts[i][r].id)) {
        missing++;
        continue;
      }
      char *text = point_text(runs, pts[i][r].id);
      struct point *xs = NULL;
      size_t nx = 0;
      extract(&st->e[i], text, &xs, &nx);
      free(text);
      for (int f = 0; f < st->nf; f++)
        if (st->f[f].entry == i)
          for (size_t k = 0; k < nx; k++)
            if (!strcmp(xs[k].x, st->f[f].x))
              y[(size_t)r * st->nf + f] = xs[k].value;
      free(xs);
    }
  return missing;
}

/* Run design D (phase PHASE) for every entry; *Y (d->nruns x st->nf, row-major, malloc'ed) gets
 * the figures, NAN where a point is not done. With DEFINE, the figures are first defined from
 * row 0's outputs. Returns the number of points not done, or -1 with ERR. */
static int run_design(struct uq_study *st, const struct uq_opts *o, const char *phase, const struct uq_design *d,
                      double **y, int define, char *err, size_t errlen)
{
  char runs[PATH_MAX], sweeps[PATH_MAX];
  snprintf(runs, sizeof runs, "%s/runs", o->dir);
  snprintf(sweeps, sizeof sweeps, "%s/sweeps", o->dir);
  if (mkdir(o->dir, 0755) && errno != EEXIST) {
    snprintf(err, errlen, "cannot create %s: %s", o->dir, strerror(errno));
    return -1;
  }
  if (store_open(runs, err, errlen))
    return -1;
  if (mkdir(sweeps, 0755) && errno != EEXIST) {
    snprintf(err, errlen, "cannot create %s: %s", sweeps, strerror(errno));
    return -1;
  }
  struct sweep *sw = calloc((size_t)st->ne, sizeof *sw);
  struct sweep_point **pts = calloc((size_t)st->ne, sizeof *pts), *all = NULL;
  int *npts = calloc((size_t)st->ne, sizeof *npts), nall = 0, rc = 0, loaded = 0;
  for (int i = 0; i < st->ne && !rc; i++) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s-%d.yaml", sweeps, phase, i);
    rc = write_sweep(st, i, phase, d, path, err, errlen) || sweep_load(path, &sw[i], err, errlen) ? -1 : 0;
    if (rc)
      break;
    loaded++;
    npts[i] = sweep_points(&sw[i], &pts[i], err, errlen);
    if (npts[i] != d->nruns) {
      rc = -1;
      if (npts[i] >= 0)
        snprintf(err, errlen, "%s: %d points for %d design rows (internal error)", path, npts[i], d->nruns);
      npts[i] = npts[i] < 0 ? 0 : npts[i];
    }
  }
  if (!rc && !o->quiet)
    fprintf(stderr, "icsim uncertainty: phase %s: %d design row%s x %d program run%s\n", phase, d->nruns,
            d->nruns > 1 ? "s" : "", st->ne, st->ne > 1 ? "s" : "");
  if (!rc && o->slurm) { /* one job array per entry, each waited for */
    for (int i = 0; i < st->ne && !rc; i++) {
      struct slurm_opts so = o->so;
      so.wait = !so.dry_run;
      rc = sweep_slurm_submit(&sw[i], pts[i], npts[i], runs, &so, err, errlen) ? -1 : 0;
    }
    if (!rc && o->so.dry_run) { /* the later phases depend on this one's results */
      snprintf(err, errlen, "--dry-run: the job scripts of phase %s are written (%s/slurm), nothing is submitted; "
               "the later phases depend on its results", phase, runs);
      st->dry_run = true;
      rc = -1;
    }
  } else if (!rc) {
    /* one runner for every entry's points, so that one progress line and ETA cover the phase: the
     * points of all entries' sweeps share the axis (variants named alike) and the timing mode */
    all = calloc((size_t)d->nruns * st->ne + 1, sizeof *all);
    for (int i = 0; i < st->ne; i++)
      for (int r = 0; r < npts[i]; r++) {
        all[nall] = pts[i][r];
        all[nall].index = nall;
        nall++;
      }
    if (sweep_run_local(&sw[0], all, nall, runs, o->jobs) < 0) {
      snprintf(err, errlen, "interrupted; the points done are kept in %s and the next start runs the others", runs);
      rc = -1;
    }
  }
  int missing = 0;
  if (!rc && define)
    rc = define_figures(st, runs, pts, err, errlen);
  if (!rc) {
    *y = malloc((size_t)d->nruns * (size_t)st->nf * sizeof **y + 1);
    missing = read_rows(st, runs, pts, d->nruns, *y);
  }
  for (int i = 0; i < loaded; i++) {
    sweep_points_free(pts[i], npts[i]);
    sweep_free(&sw[i]);
  }
  free(all);
  free(pts);
  free(npts);
  free(sw);
  return rc ? -1 : missing;
}

/* ---- the phases ---- */

static double column_max(const double *v, int n)
{
  double m = 0;
  for (int i = 0; i < n; i++)
    if (isfinite(v[i]) && v[i] > m)
      m = v[i];
  return m;
}

/* Figure G's top three parameters: by total index where the Sobol' phase estimated them, then
 * by Morris mu* where the screening ran, else by rank correlation with the sample; a parameter
 * that moved nothing is not listed. */
static double rank_key(const struct uq_figure *g, int j, int *tier)
{
  if (isfinite(g->st[j]))
    return *tier = 3, g->st[j];
  if (isfinite(g->mu_star[j]))
    return *tier = 2, g->mu_star[j];
  if (isfinite(g->corr[j]))
    return *tier = 1, fabs(g->corr[j]);
  return *tier = 0, 0;
}

static void rank_top(const struct uq_study *st, struct uq_figure *g)
{
  for (int t = 0; t < 3; t++) {
    int best = -1, bt = 0;
    double bv = 0;
    for (int j = 0; j < st->k; j++) {
      int used = 0, tier;
      for (int u = 0; u < t; u++)
        used |= g->top[u] == j;
      double v = rank_key(g, j, &tier);
      if (!used && v > 0 && (best < 0 || tier > bt || (tier == bt && v > bv)))
        best = j, bt = tier, bv = v;
    }
    g->top[t] = best;
  }
}

/* Spearman's rank correlation of X and Y (N pairs, NAN pairs left out); NAN when undefined. */
static double rank_correlation(const double *x, const double *y, int n)
{
  double *rx = malloc((size_t)(n + 1) * sizeof *rx), *ry = malloc((size_t)(n + 1) * sizeof *ry);
  int m = 0;
  for (int i = 0; i < n; i++)
    if (isfinite(x[i]) && isfinite(y[i])) {
      rx[m] = x[i];
      ry[m] = y[i];
      m++;
    }
  double *v[2] = {rx, ry}, *rk[2];
  for (int s = 0; s < 2; s++) { /* ranks, ties sharing their mean rank */
    rk[s] = malloc((size_t)(m + 1) * sizeof *rk[s]);
    for (int i = 0; i < m; i++) {
      int below = 0, same = 0;
      for (int j = 0; j < m; j++)
        below += v[s][j] < v[s][i], same += v[s][j] == v[s][i];
      rk[s][i] = below + (same + 1) / 2.0;
    }
  }
  double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
  for (int i = 0; i < m; i++)
    mx += rk[0][i] / m, my += rk[1][i] / m;
  for (int i = 0; i < m; i++) {
    sxy += (rk[0][i] - mx) * (rk[1][i] - my);
    sxx += (rk[0][i] - mx) * (rk[0][i] - mx);
    syy += (rk[1][i] - my) * (rk[1][i] - my);
  }
  free(rx), free(ry), free(rk[0]), free(rk[1]);
  return m > 2 && sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

static void figure_alloc(struct uq_figure *g, int k)
{
  double **arrays[] = {&g->mu_star, &g->sigma, &g->s1, &g->st, &g->swing_lo, &g->swing_hi, &g->corr};
  for (size_t a = 0; a < sizeof arrays / sizeof *arrays; a++) {
    *arrays[a] = malloc((size_t)(k + 1) * sizeof **arrays[a]);
    for (int j = 0; j < k; j++)
      (*arrays[a])[j] = NAN;
  }
}

/* The interval of every figure from the NS sample rows of Y (row stride NF) starting at row R0. */
static void intervals(struct uq_study *st, const double *y, int r0, int ns)
{
  double *v = malloc((size_t)(ns + 1) * sizeof *v);
  for (int f = 0; f < st->nf; f++) {
    struct uq_figure *g = &st->f[f];
    g->nsamples = 0;
    for (int q = 0; q < ns; q++)
      g->nsamples += isfinite(v[q] = y[(size_t)(r0 + q) * st->nf + f]);
    g->median = uq_quantile(v, ns, 0.5);
    g->p05 = uq_quantile(v, ns, 0.05);
    g->p95 = uq_quantile(v, ns, 0.95);
  }
  free(v);
}

static void sort_by_score(int *idx, int n, const double *score)
{
  for (int a = 1; a < n; a++) /* most important first; ties keep table order */
    for (int b = a; b > 0 && score[idx[b]] > score[idx[b - 1]]; b--) {
      int t = idx[b];
      idx[b] = idx[b - 1];
      idx[b - 1] = t;
    }
}

/* Phase 1 of a screened study: row 0 nominal, then R Morris trajectories. The effects go into
 * the figures, SCORE[j] gets each parameter's largest share of a figure's top effect. */
static int phase_screen(struct uq_study *st, const struct uq_opts *o, int r, double *score, int *missing, char *err,
                        size_t errlen)
{
  int k = st->k, rc = -1;
  struct uq_design morris = {0}, d = {0};
  double *y = NULL, *col = NULL;
  if (uq_morris_design(k, r, 4, o->seed, &morris) || !(d.u = malloc((size_t)(morris.nruns + 1) * k * sizeof *d.u))) {
    snprintf(err, errlen, "out of memory");
    goto out;
  }
  d.nruns = morris.nruns + 1;
  d.k = k;
  for (int j = 0; j < k; j++)
    d.u[j] = NAN;
  memcpy(d.u + k, morris.u, (size_t)morris.nruns * k * sizeof *d.u);
  st->runs_nominal = 1;
  st->runs_morris = morris.nruns;
  int m = run_design(st, o, "screen", &d, &y, 1, err, errlen);
  if (m < 0)
    goto out;
  *missing += m;
  col = malloc((size_t)d.nruns * sizeof *col);
  for (int f = 0; f < st->nf; f++) {
    struct uq_figure *g = &st->f[f];
    figure_alloc(g, k);
    g->point = y[f];
    for (int q = 0; q < morris.nruns; q++)
      col[q] = y[(size_t)(q + 1) * st->nf + f];
    uq_morris_effects(&morris, col, g->mu_star, g->sigma);
    double top = column_max(g->mu_star, k);
    for (int j = 0; top > 0 && j < k; j++)
      if (isfinite(g->mu_star[j]) && g->mu_star[j] / top > score[j])
        score[j] = g->mu_star[j] / top;
  }
  rc = 0;
out:
  free(col);
  free(y);
  uq_design_free(&morris);
  uq_design_free(&d);
  return rc;
}

/* Phase 1 of a study too small to screen: row 0 nominal, then NS quasi-random points over every
 * parameter; they give the interval, and the rank correlation of each parameter with each figure
 * the ranking (SCORE: the largest |correlation| over the figures). */
static int phase_sample_all(struct uq_study *st, const struct uq_opts *o, int ns, double *score, int *missing,
                            char *err, size_t errlen)
{
  int k = st->k, rc = -1;
  struct uq_design s = {0}, d = {0};
  double *y = NULL, *fx = NULL, *px = NULL;
  if (uq_sample_design(k, ns, o->seed, &s) || !(d.u = malloc((size_t)(ns + 1) * k * sizeof *d.u))) {
    snprintf(err, errlen, "%d ranged parameters: more than the quasi-random sequences reach", k);
    goto out;
  }
  d.nruns = ns + 1;
  d.k = k;
  for (int j = 0; j < k; j++)
    d.u[j] = NAN;
  memcpy(d.u + k, s.u, (size_t)ns * k * sizeof *d.u);
  st->runs_nominal = 1;
  st->runs_sobol = ns;
  int m = run_design(st, o, "sampleall", &d, &y, 1, err, errlen);
  if (m < 0)
    goto out;
  *missing += m;
  intervals(st, y, 1, ns);
  fx = malloc((size_t)ns * sizeof *fx);
  px = malloc((size_t)ns * sizeof *px);
  for (int f = 0; f < st->nf; f++) {
    struct uq_figure *g = &st->f[f];
    double p05 = g->p05, p95 = g->p95, med = g->median; /* figure_alloc leaves the interval */
    int nsam = g->nsamples;
    figure_alloc(g, k);
    g->point = y[f];
    g->p05 = p05, g->p95 = p95, g->median = med, g->nsamples = nsam;
    for (int q = 0; q < ns; q++)
      fx[q] = y[(size_t)(q + 1) * st->nf + f];
    for (int j = 0; j < k; j++) {
      for (int q = 0; q < ns; q++)
        px[q] = s.u[(size_t)q * k + j];
      g->corr[j] = rank_correlation(px, fx, ns);
      if (isfinite(g->corr[j]) && fabs(g->corr[j]) > score[j])
        score[j] = fabs(g->corr[j]);
    }
  }
  rc = 0;
out:
  free(fx);
  free(px);
  free(y);
  uq_design_free(&s);
  uq_design_free(&d);
  return rc;
}

int uq_study_run(struct uq_study *st, const struct uq_opts *o, char *err, size_t errlen)
{
  int loaded = load_params(st, err, errlen);
  if (loaded)
    return loaded;
  int k = st->k, r = o->trajectories > 0 ? o->trajectories : 4, missing = 0, rc = -1, nswing = 3;
  long budget = o->budget;
  /* the screening takes at most half the budget, one trajectory at the least */
  while (r > 1 && 1 + (long)r * (k + 1) > budget / 2)
    r--;
  /* screen only when a useful sample is left after one trajectory: else one sample over all */
  if (1 + (long)r * (k + 1) + 2 + UQ_MIN_SCREENED_SAMPLE > budget)
    r = 1;
  st->screened = 1 + (long)r * (k + 1) + 2 + UQ_MIN_SCREENED_SAMPLE <= budget;
  if (!st->screened && budget < 1 + 2 * nswing + UQ_MIN_SAMPLE) {
    snprintf(err, errlen, "--budget %ld is too small: give at least %d (one nominal run, %d sample points, %d swing "
             "runs; screening %d ranged parameters takes %d)", budget, 1 + 2 * nswing + UQ_MIN_SAMPLE, UQ_MIN_SAMPLE,
             2 * nswing, k, 1 + (k + 1) + 2 + UQ_MIN_SCREENED_SAMPLE);
    return -1;
  }
  double *score = calloc((size_t)k + 1, sizeof *score);
  struct uq_design phase2 = {0};
  double *y2 = NULL;
  st->selected = malloc((size_t)(k + 1) * sizeof *st->selected);
  if (st->screened ? phase_screen(st, o, r, score, &missing, err, errlen)
                   : phase_sample_all(st, o, (int)(budget - 1 - 2 * nswing), score, &missing, err, errlen))
    goto out;
  st->m = 0;
  double keep = st->screened ? UQ_SCREEN_KEEP : 0;
  for (int j = 0; j < k; j++)
    if (score[j] > 0 && score[j] >= keep)
      st->selected[st->m++] = j;
  sort_by_score(st->selected, st->m, score);
  int screened_in = st->m, m = st->m;
  long left = budget - st->runs_nominal - st->runs_morris - st->runs_sobol;
  if (!st->screened) { /* the sample is taken: swings for the first few */
    st->m = m = m < nswing ? m : nswing;
    st->indices = false;
    snprintf(st->note, sizeof st->note, "%d ranged parameters are more than the budget can screen (one Morris "
             "trajectory takes %d points, and %d more are needed for an interval: a budget of %d): one quasi-random "
             "sample of %d points over all of them gives the interval, Spearman's rank correlation the ranking", k,
             k + 1, 2 + UQ_MIN_SCREENED_SAMPLE, 1 + (k + 1) + 2 + UQ_MIN_SCREENED_SAMPLE, st->runs_sobol);
  } else {
    if (m > UQ_SOBOL_MAX_M)
      m = UQ_SOBOL_MAX_M;
    while (m > 1 && 2L * m + (long)UQ_MIN_SOBOL_N * (m + 2) > left)
      m--;
    if (m >= 1 && 2L * m + (long)UQ_MIN_SOBOL_N * (m + 2) <= left) {
      st->indices = true;
      st->sobol_n = (int)((left - 2 * m) / (m + 2));
    } else { /* too few runs for indices: a plain quasi-random sample for the interval */
      st->indices = false;
      m = m > UQ_SOBOL_MAX_M ? UQ_SOBOL_MAX_M : m;
      while (m > 1 && left - 2 * m < UQ_MIN_SCREENED_SAMPLE)
        m--;
      st->sobol_n = (int)((left - 2 * m) / 2);
    }
    st->m = m;
    if (st->m == 0)
      snprintf(st->note, sizeof st->note, "no ranged parameter moved any figure in the screening: the interval is "
               "the point");
    else
      snprintf(st->note, sizeof st->note, "%d of %d parameters passed the screening (effect >= %.0f%% of the "
               "largest on some figure)%s", screened_in, k, 100 * UQ_SCREEN_KEEP, screened_in > st->m ? "; the "
               "budget let the Sobol' phase vary the first ones only" : "");
  }
  int nsob = 0;
  if (st->m > 0) {
    struct uq_design sob = {0};
    if (st->screened && uq_saltelli_design(k, st->selected, st->m, st->sobol_n, o->seed, &sob)) {
      snprintf(err, errlen, "out of memory");
      goto out;
    }
    nsob = !st->screened ? 0 : st->indices ? sob.nruns : 2 * st->sobol_n;
    if (st->screened)
      st->runs_sobol = nsob;
    st->runs_swing = 2 * st->m;
    phase2.k = k;
    phase2.nruns = nsob + 2 * st->m;
    phase2.u = malloc((size_t)phase2.nruns * k * sizeof *phase2.u);
    if (nsob)
      memcpy(phase2.u, sob.u, (size_t)nsob * k * sizeof *phase2.u);
    uq_design_free(&sob);
    for (int i = 0; i < 2 * st->m; i++) { /* swings: one parameter at an end, the others at their values */
      double *row = phase2.u + (size_t)(nsob + i) * k;
      for (int j = 0; j < k; j++)
        row[j] = NAN;
      row[st->selected[i / 2]] = i % 2 ? 1.0 : 0.0;
    }
    int m2 = run_design(st, o, st->screened ? "sample" : "swing", &phase2, &y2, 0, err, errlen);
    if (m2 < 0)
      goto out;
    missing += m2;
  }
  if (st->screened) {
    if (st->m == 0)
      for (int f = 0; f < st->nf; f++) {
        st->f[f].median = st->f[f].p05 = st->f[f].p95 = st->f[f].point;
        st->f[f].nsamples = 1;
      }
    else
      intervals(st, y2, 0, 2 * st->sobol_n);
  }
  int n = st->sobol_n;
  double *yy = malloc((size_t)(n * (st->m + 2) + 1) * sizeof *yy);
  for (int f = 0; f < st->nf; f++) {
    struct uq_figure *g = &st->f[f];
    if (st->indices) {
      for (int q = 0; q < n * (st->m + 2); q++)
        yy[q] = y2[(size_t)q * st->nf + f];
      double s1[UQ_SOBOL_MAX_M], stt[UQ_SOBOL_MAX_M];
      uq_sobol_indices(yy, n, st->m, s1, stt);
      for (int i = 0; i < st->m; i++) {
        g->s1[st->selected[i]] = s1[i];
        g->st[st->selected[i]] = stt[i];
      }
    }
    for (int i = 0; i < st->m; i++) {
      g->swing_lo[st->selected[i]] = y2[(size_t)(nsob + 2 * i) * st->nf + f];
      g->swing_hi[st->selected[i]] = y2[(size_t)(nsob + 2 * i + 1) * st->nf + f];
    }
    rank_top(st, g);
  }
  free(yy);
  rc = missing > 0;
out:
  if (st->dry_run)
    rc = -3;
  free(score);
  uq_design_free(&phase2);
  free(y2);
  return rc;
}

void uq_study_free(struct uq_study *st)
{
  for (int f = 0; f < st->nf; f++) {
    free(st->f[f].mu_star);
    free(st->f[f].sigma);
    free(st->f[f].s1);
    free(st->f[f].st);
    free(st->f[f].swing_lo);
    free(st->f[f].swing_hi);
    free(st->f[f].corr);
  }
  free(st->f);
  for (int j = 0; j < st->k; j++) {
    free((char *)st->p[j].key);
    free((char *)st->p[j].range_text);
    free((char *)st->p[j].range_ref);
  }
  free(st->p);
  free(st->pname);
  free(st->selected);
  free(st->platforms);
  memset(st, 0, sizeof *st);
}
