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
#define UQ_MIN_SOBOL_N 8

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
    return -1;
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
 * (below those) by Morris mu*; a parameter that moved nothing is not listed. */
static int ranks_before(const struct uq_figure *g, int a, int b)
{
  int ta = !isnan(g->st[a]), tb = !isnan(g->st[b]);
  if (ta != tb)
    return ta > tb;
  double va = ta ? g->st[a] : g->mu_star[a], vb = tb ? g->st[b] : g->mu_star[b];
  return va > vb;
}

static void rank_top(const struct uq_study *st, struct uq_figure *g)
{
  for (int t = 0; t < 3; t++) {
    int best = -1;
    for (int j = 0; j < st->k; j++) {
      int used = 0;
      for (int u = 0; u < t; u++)
        used |= g->top[u] == j;
      int moves = (isfinite(g->st[j]) && g->st[j] > 0) || (isfinite(g->mu_star[j]) && g->mu_star[j] > 0);
      if (!used && moves && (best < 0 || ranks_before(g, j, best)))
        best = j;
    }
    g->top[t] = best;
  }
}

int uq_study_run(struct uq_study *st, const struct uq_opts *o, char *err, size_t errlen)
{
  if (load_params(st, err, errlen))
    return -1;
  int k = st->k, r = o->trajectories > 0 ? o->trajectories : 4, missing = 0, rc = -1;
  long budget = o->budget;
  /* the screening takes at most half the budget, one trajectory at the least */
  while (r > 1 && 1 + (long)r * (k + 1) > budget / 2)
    r--;
  if (1 + (long)r * (k + 1) + 2 + 4 > budget) {
    snprintf(err, errlen, "--budget %ld is too small to screen %d ranged parameters: give at least %d (one "
             "nominal run, one Morris trajectory of %d points, two swing runs and an interval of 4 points)",
             budget, k, 1 + (k + 1) + 2 + 4, k + 1);
    return -1;
  }
  /* nominal (row 0) and the Morris trajectories, one design */
  struct uq_design morris = {0}, phase1 = {0}, phase2 = {0};
  double *y1 = NULL, *y2 = NULL;
  if (uq_morris_design(k, r, 4, o->seed, &morris) || !(phase1.u = malloc((size_t)(morris.nruns + 1) * k * sizeof *phase1.u))) {
    snprintf(err, errlen, "out of memory");
    goto out;
  }
  phase1.nruns = morris.nruns + 1;
  phase1.k = k;
  for (int j = 0; j < k; j++)
    phase1.u[j] = NAN;
  memcpy(phase1.u + k, morris.u, (size_t)morris.nruns * k * sizeof *phase1.u);
  st->runs_nominal = 1;
  st->runs_morris = morris.nruns;
  int m1 = run_design(st, o, "screen", &phase1, &y1, 1, err, errlen);
  if (m1 < 0)
    goto out;
  missing += m1;
  int nf = st->nf;
  double *col = malloc((size_t)phase1.nruns * sizeof *col);
  for (int f = 0; f < nf; f++) {
    struct uq_figure *g = &st->f[f];
    g->point = y1[f];
    g->mu_star = calloc((size_t)k, sizeof *g->mu_star);
    g->sigma = calloc((size_t)k, sizeof *g->sigma);
    g->s1 = malloc((size_t)k * sizeof *g->s1);
    g->st = malloc((size_t)k * sizeof *g->st);
    g->swing_lo = malloc((size_t)k * sizeof *g->swing_lo);
    g->swing_hi = malloc((size_t)k * sizeof *g->swing_hi);
    for (int j = 0; j < k; j++)
      g->s1[j] = g->st[j] = g->swing_lo[j] = g->swing_hi[j] = NAN;
    for (int q = 0; q < morris.nruns; q++)
      col[q] = y1[(size_t)(q + 1) * nf + f];
    uq_morris_effects(&morris, col, g->mu_star, g->sigma);
  }
  free(col);
  /* screening: each parameter's largest share of the top effect over all figures */
  double *score = calloc((size_t)k, sizeof *score);
  for (int f = 0; f < nf; f++) {
    double top = column_max(st->f[f].mu_star, k);
    for (int j = 0; top > 0 && j < k; j++)
      if (isfinite(st->f[f].mu_star[j]) && st->f[f].mu_star[j] / top > score[j])
        score[j] = st->f[f].mu_star[j] / top;
  }
  st->selected = malloc((size_t)k * sizeof *st->selected);
  st->m = 0;
  for (int j = 0; j < k; j++)
    if (score[j] >= UQ_SCREEN_KEEP)
      st->selected[st->m++] = j;
  for (int a = 1; a < st->m; a++) /* most important first; ties keep table order */
    for (int b = a; b > 0 && score[st->selected[b]] > score[st->selected[b - 1]]; b--) {
      int t = st->selected[b];
      st->selected[b] = st->selected[b - 1];
      st->selected[b - 1] = t;
    }
  int screened_in = st->m;
  if (st->m > UQ_SOBOL_MAX_M)
    st->m = UQ_SOBOL_MAX_M;
  long left = budget - st->runs_nominal - st->runs_morris;
  int m = st->m;
  while (m > 1 && 2L * m + (long)UQ_MIN_SOBOL_N * (m + 2) > left)
    m--;
  if (m >= 1 && 2L * m + (long)UQ_MIN_SOBOL_N * (m + 2) <= left) {
    st->indices = true;
    st->m = m;
    st->sobol_n = (int)((left - 2 * m) / (m + 2));
  } else { /* too few runs for indices: a plain quasi-random sample for the interval */
    st->indices = false;
    m = st->m;
    while (m > 1 && left - 2 * m < 4)
      m--;
    st->m = m;
    st->sobol_n = (int)((left - 2 * m) / 2);
  }
  if (st->m == 0) { /* nothing moved any figure: the interval is the point */
    snprintf(st->note, sizeof st->note, "no ranged parameter moved any figure in the screening");
    st->sobol_n = 0;
  } else {
    snprintf(st->note, sizeof st->note, "%d of %d parameters passed the screening (effect >= %.0f%% of the largest "
             "on some figure)%s", screened_in, k, 100 * UQ_SCREEN_KEEP, screened_in > st->m ? "; the budget let the "
             "Sobol' phase vary the first ones only" : "");
  }
  free(score);
  if (st->m > 0) {
    struct uq_design sob = {0};
    if (uq_saltelli_design(k, st->selected, st->m, st->sobol_n, o->seed, &sob)) {
      snprintf(err, errlen, "out of memory");
      goto out;
    }
    int nsob = st->indices ? sob.nruns : 2 * st->sobol_n;
    st->runs_sobol = nsob;
    st->runs_swing = 2 * st->m;
    phase2.k = k;
    phase2.nruns = nsob + 2 * st->m;
    phase2.u = malloc((size_t)phase2.nruns * k * sizeof *phase2.u);
    memcpy(phase2.u, sob.u, (size_t)nsob * k * sizeof *phase2.u);
    uq_design_free(&sob);
    for (int i = 0; i < 2 * st->m; i++) { /* swings: one parameter at an end, the others at their values */
      double *row = phase2.u + (size_t)(nsob + i) * k;
      for (int j = 0; j < k; j++)
        row[j] = NAN;
      row[st->selected[i / 2]] = i % 2 ? 1.0 : 0.0;
    }
    int m2 = run_design(st, o, "sample", &phase2, &y2, 0, err, errlen);
    if (m2 < 0)
      goto out;
    missing += m2;
  }
  int n = st->sobol_n;
  double *v = malloc((size_t)(2 * n + 1) * sizeof *v), *yy = malloc((size_t)(n * (st->m + 2) + 1) * sizeof *yy);
  for (int f = 0; f < nf; f++) {
    struct uq_figure *g = &st->f[f];
    if (st->m == 0) {
      g->median = g->p05 = g->p95 = g->point;
      g->nsamples = 1;
    } else {
      g->nsamples = 0;
      for (int q = 0; q < 2 * n; q++)
        if (isfinite(v[q] = y2[(size_t)q * nf + f]))
          g->nsamples++;
      g->median = uq_quantile(v, 2 * n, 0.5);
      g->p05 = uq_quantile(v, 2 * n, 0.05);
      g->p95 = uq_quantile(v, 2 * n, 0.95);
      if (st->indices) {
        for (int q = 0; q < n * (st->m + 2); q++)
          yy[q] = y2[(size_t)q * nf + f];
        double s1[UQ_SOBOL_MAX_M], stt[UQ_SOBOL_MAX_M];
        uq_sobol_indices(yy, n, st->m, s1, stt);
        for (int i = 0; i < st->m; i++) {
          g->s1[st->selected[i]] = s1[i];
          g->st[st->selected[i]] = stt[i];
        }
      }
      for (int i = 0; i < st->m; i++) {
        g->swing_lo[st->selected[i]] = y2[(size_t)(st->runs_sobol + 2 * i) * nf + f];
        g->swing_hi[st->selected[i]] = y2[(size_t)(st->runs_sobol + 2 * i + 1) * nf + f];
      }
    }
    rank_top(st, g);
  }
  free(v);
  free(yy);
  rc = missing > 0;
out:
  uq_design_free(&morris);
  uq_design_free(&phase1);
  uq_design_free(&phase2);
  free(y1);
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
