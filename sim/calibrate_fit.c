/* The fit of icsim calibrate (calibrate.h).
 *
 * Error: the residual of a point is log(simulated / measured), so that a 1 us latency and a
 * 200 MB/s bandwidth weigh by their relative error and a factor 2 too high costs what a factor 2
 * too low does. The cost is the mean of the squared residuals over the fitted points.
 *
 * Parameters are searched in log space too, each mapped onto [0, 1] between its bounds
 * (u = log(v / lo) / log(hi / lo)), so that a clock in MHz and a bandwidth in MB/s take steps of
 * the same relative size. The optimiser is NLopt's BOBYQA (Powell's bound-constrained quadratic
 * model, derivative-free: a simulation gives values, not gradients); a single parameter goes to
 * Sbplx, as BOBYQA's model needs two.
 *
 * Every candidate's simulations are points of a sweep (a generated sweep file in WORK/batches),
 * run by the sweep engine into WORK (sweep_store.c): a run is identified by what decides it, so
 * a calibration started again, or another with overlapping candidates, finds it done.
 *
 * At the optimum, the Jacobian of the residuals against log(parameters) (central differences,
 * all 2n candidates in one batch) gives the Gauss-Newton curvature J'J: its inverse scaled by
 * the residual variance is the estimates' covariance, whence each value's range (2 standard
 * errors) and the correlations. Two parameters whose estimates are almost perfectly correlated,
 * or a J'J that is singular, mean the points fix a combination of them and not each: reported as
 * a ridge, naming them, instead of a value that is one arbitrary point of the ridge. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <nlopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "calibrate.h"
#include "outfile.h"
#include "paths.h"
#include "sweep.h"

/* Relative step of the Jacobian's central differences: large against the 2-3 printed digits of
 * a benchmark's table, small against the curvature of the fit. */
#define JAC_STEP 0.03
#define DESIGN_PER_PARAM 8
/* The search stops when its steps move every value by less than this, in log: 0.1%. */
#define XTOL_LOG 1e-3

struct ctx {
  const struct cal_options *o;
  struct cal_set *s;
  struct cal_fit *fit;
  char platform[PATH_MAX];
  int batch;
  double best;
  double t0;
  char *err;
  size_t errlen;
  int failed;
};

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double value_of_u(const struct cal_free *f, double u)
{
  double v = f->lo * pow(f->hi / f->lo, u);
  if (f->d->type == ICSIM_P_INT)
    v = round(v);
  return v < f->lo ? f->lo : v > f->hi ? f->hi : v;
}

static double u_of_value(const struct cal_free *f, double v) { return log(v / f->lo) / log(f->hi / f->lo); }

/* Round V to DIGITS significant digits, DIRECTION -1 down, +1 up, 0 nearest. */
static double round_sig(double v, int digits, int direction)
{
  if (v == 0 || !isfinite(v))
    return v;
  double scale = pow(10, digits - 1 - floor(log10(fabs(v))));
  double x = v * scale;
  x = direction < 0 ? floor(x * (1 + 1e-12)) : direction > 0 ? ceil(x * (1 - 1e-12)) : round(x);
  return x / scale;
}

void cal_format_value(const struct icsim_param_desc *d, double v, int digits, int direction, char *buf, size_t len)
{
  if (d->type == ICSIM_P_INT) {
    snprintf(buf, len, "%.0f", direction < 0 ? floor(v) : direction > 0 ? ceil(v) : round(v));
    return;
  }
  icsim_format_quantity(round_sig(v, digits, direction), d->dim, buf, len);
}

/* TEXT as a YAML double-quoted scalar. */
static void yq(char **buf, size_t *len, size_t *cap, const char *text)
{
  size_t need = *len + 2 * strlen(text) + 3;
  if (need > *cap)
    *buf = realloc(*buf, *cap = 2 * need);
  (*buf)[(*len)++] = '"';
  for (const char *c = text; *c; c++) {
    if (*c == '"' || *c == '\\')
      (*buf)[(*len)++] = '\\';
    (*buf)[(*len)++] = *c;
  }
  (*buf)[(*len)++] = '"';
  (*buf)[*len] = '\0';
}

static void add(char **buf, size_t *len, size_t *cap, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (*len + (size_t)n + 1 > *cap)
    *buf = realloc(*buf, *cap = 2 * (*len + (size_t)n + 1));
  va_start(ap, fmt);
  vsnprintf(*buf + *len, *cap - *len, fmt, ap);
  va_end(ap);
  *len += (size_t)n;
}

/* The sweep file of NCAND candidates (VALS[c][k]) x the runs RUNS (NRUNS of them): zip axes, the
 * i-th point is candidate i / NRUNS, run i % NRUNS. */
static char *batch_text(struct ctx *x, double *const *vals, int ncand, const int *runs, int nruns)
{
  size_t len = 0, cap = 4096;
  char *b = malloc(cap), v[128];
  b[0] = '\0';
  add(&b, &len, &cap, "# written by icsim calibrate: one candidate's runs per %d points\nsweep: calibrate\nplatform: ",
      nruns);
  yq(&b, &len, &cap, x->platform);
  add(&b, &len, &cap, "\nprogram: \"{program}\"\nranks: \"{ranks}\"\nplace: \"{place}\"\ncombine: zip\naxes:\n");
  static const char *const vars[] = {"program", "ranks", "place"};
  for (int a = 0; a < 3; a++) {
    add(&b, &len, &cap, "  - var: %s\n    values: [", vars[a]);
    for (int i = 0; i < ncand * nruns; i++) {
      const struct cal_run *r = &x->s->run[runs[i % nruns]];
      if (a == 1)
        snprintf(v, sizeof v, "%d", r->ranks);
      add(&b, &len, &cap, "%s", i ? ", " : "");
      yq(&b, &len, &cap, a == 0 ? r->program : a == 1 ? v : r->place);
    }
    add(&b, &len, &cap, "]\n");
  }
  add(&b, &len, &cap, "  - name: run\n    variants:\n");
  for (int i = 0; i < ncand * nruns; i++) {
    const struct cal_run *r = &x->s->run[runs[i % nruns]];
    add(&b, &len, &cap, "      - label: \"c%d.r%d\"\n", i / nruns, runs[i % nruns]);
    if (r->args[0]) {
      add(&b, &len, &cap, "        args: ");
      yq(&b, &len, &cap, r->args);
      add(&b, &len, &cap, "\n");
    }
  }
  for (int k = 0; k < x->fit->nf; k++) {
    add(&b, &len, &cap, "  - set: %s\n    values: [", x->fit->f[k].key);
    for (int i = 0; i < ncand * nruns; i++) {
      const struct cal_free *f = &x->fit->f[k];
      cal_format_value(f->d, vals[i / nruns][k], 10, 0, v, sizeof v);
      add(&b, &len, &cap, "%s%s", i ? ", " : "", v);
    }
    add(&b, &len, &cap, "]\n");
  }
  add(&b, &len, &cap, "figures:\n  - name: simulated-time\n    stats: simulated_time_s\n");
  return b;
}

/* The residual of measured row M against the simulated value SIM printed with half a step HALF. */
static double residual(const struct cal_row *m, double sim, double half)
{
  double s = sim > 0 ? sim : half; /* a printed 0.00: below half a step */
  if (m->value <= 0) {             /* a printed zero measured: only an upper bound */
    double bound = m->half_step;
    return s > bound ? log(s / bound) : 0;
  }
  return log(s / m->value);
}

static void describe_run(const struct cal_run *r, char *buf, size_t len)
{
  snprintf(buf, len, "%s%s%s (-n %d --place %s)", r->program, r->args[0] ? " " : "", r->args, r->ranks, r->place);
}

/* Simulate NCAND candidates; OUT[c][meas][row] gets each point's result (the measurements whose
 * runs are included: all with HELD, else the fitted ones). Returns 0 or -1 with x->err. */
static int evaluate(struct ctx *x, double *const *vals, int ncand, bool held, struct cal_point_result ***out)
{
  struct cal_set *s = x->s;
  int *runs = calloc((size_t)s->nrun, sizeof *runs), nruns = 0;
  for (int r = 0; r < s->nrun; r++)
    if (held || s->run[r].fitted)
      runs[nruns++] = r;
  char path[PATH_MAX + 64], *text = batch_text(x, vals, ncand, runs, nruns);
  /* one batch file per calibration at a time (others may share the work folder), rewritten for
   * each batch and removed once its runs are read: it is only how the sweep engine takes them */
  snprintf(path, sizeof path, "%s/batches/%d.sweep.yaml", x->o->work, (int)getpid());
  x->batch++;
  int rc = icsim_output_write("--work", path, text, strlen(text), x->err, x->errlen);
  free(text);
  struct sweep sw;
  struct sweep_point *p = NULL;
  int n = -1;
  if (rc == 0 && sweep_load(path, &sw, x->err, x->errlen) == 0) {
    n = sweep_points(&sw, &p, x->err, x->errlen);
    if (n >= 0) {
      int before = 0;
      for (int i = 0; i < n; i++)
        before += store_done(x->o->work, p[i].id);
      if (x->o->slurm) {
        struct slurm_opts so = {.partition = x->o->partition, .time = x->o->time, .account = x->o->account,
                                .chunk = 1, .wait = true};
        rc = sweep_slurm_submit(&sw, p, n, x->o->work, &so, x->err, x->errlen);
      } else {
        rc = sweep_run_local(&sw, p, n, x->o->work, x->o->workers) < 0 ? -1 : 0;
        if (rc)
          snprintf(x->err, x->errlen, "interrupted: the runs done are kept in %s; start the same command again to "
                   "go on", x->o->work);
      }
      int after = 0;
      for (int i = 0; i < n; i++)
        after += store_done(x->o->work, p[i].id);
      x->fit->runs_reused += before;
      x->fit->runs_done += after - before;
    }
    sweep_free(&sw);
  } else {
    rc = -1;
  }
  if (n < 0)
    rc = -1;
  /* each run's output, read as the measurement it reproduces is */
  for (int i = 0; rc == 0 && i < n; i++) {
    const struct cal_run *run = &s->run[runs[i % nruns]];
    char desc[1024], file[PATH_MAX + 64];
    describe_run(run, desc, sizeof desc);
    if (!store_done(x->o->work, p[i].id)) {
      snprintf(x->err, x->errlen, "the run of %s failed: %s/failed/%s.txt says why", desc, x->o->work, p[i].id);
      rc = -1;
      break;
    }
    snprintf(file, sizeof file, "%s/points/%s/out.txt", x->o->work, p[i].id);
    char *outtext = store_read(file);
    bool netpipe = false;
    for (int mi = 0; mi < s->n; mi++)
      netpipe |= s->m[mi].run == runs[i % nruns] && s->m[mi].format == CAL_FORMAT_NETPIPE;
    if (netpipe) { /* NetPIPE prints its rows on stderr */
      snprintf(file, sizeof file, "%s/points/%s/stderr.txt", x->o->work, p[i].id);
      char *errtext = store_read(file), *both = NULL;
      if (asprintf(&both, "%s\n%s", outtext ? outtext : "", errtext ? errtext : "") < 0)
        abort();
      free(outtext);
      free(errtext);
      outtext = both;
    }
    for (int mi = 0; rc == 0 && mi < s->n; mi++) {
      struct cal_meas *m = &s->m[mi];
      if (m->run != runs[i % nruns])
        continue;
      struct cal_table sim;
      char why[1024];
      if (cal_table_read(desc, outtext ? outtext : "", m->format == CAL_FORMAT_NETPIPE ? CAL_FORMAT_NETPIPE
                                                                                          : CAL_FORMAT_DETECT,
                         0, &sim, why, sizeof why)) {
        snprintf(x->err, x->errlen, "%s:%d: its workload's output does not read as a table (%s); check workload "
                 "and args (the output: %s)", icsim_path_shown(m->set), m->set_line, why, file);
        rc = -1;
        break;
      }
      if (sim.q != m->t.q) {
        snprintf(x->err, x->errlen, "%s:%d: %s is a %s table, but %s prints %s; name the workload that measured it",
                 icsim_path_shown(m->set), m->set_line, m->file, cal_quantity_name(m->t.q), desc,
                 cal_quantity_name(sim.q));
        rc = -1;
      }
      for (int r = 0; rc == 0 && r < m->t.n; r++) {
        const struct cal_row *mr = &m->t.rows[r];
        int k = 0;
        while (k < sim.n && sim.rows[k].size != mr->size)
          k++;
        if (k == sim.n) {
          snprintf(x->err, x->errlen, "%s:%d: size %.0f is not in the output of %s (it prints %d sizes, %.0f to %.0f "
                   "bytes); give args whose sizes include it (-m MIN:MAX), or leave the row out with `sizes:` in %s",
                   icsim_path_shown(m->path), mr->line, mr->size, desc, sim.n, sim.rows[0].size,
                   sim.rows[sim.n - 1].size, icsim_path_shown(m->set));
          rc = -1;
          break;
        }
        out[i / nruns][mi][r].sim = sim.rows[k].value;
        out[i / nruns][mi][r].residual = residual(mr, sim.rows[k].value, sim.rows[k].half_step);
      }
      cal_table_free(&sim);
    }
    free(outtext);
  }
  if (n >= 0)
    sweep_points_free(p, n);
  free(runs);
  icsim_input_forget(path);
  unlink(path);
  return rc;
}

static struct cal_point_result **results_new(const struct cal_set *s)
{
  struct cal_point_result **r = calloc((size_t)s->n, sizeof *r);
  for (int i = 0; i < s->n; i++) {
    r[i] = calloc((size_t)s->m[i].t.n + 1, sizeof *r[i]);
    for (int k = 0; k < s->m[i].t.n; k++)
      r[i][k].sim = NAN;
  }
  return r;
}

static void results_free(struct cal_point_result **r, const struct cal_set *s)
{
  for (int i = 0; r && i < s->n; i++)
    free(r[i]);
  free(r);
}

static double cost_of(const struct cal_set *s, struct cal_point_result **r)
{
  double sum = 0;
  int n = 0;
  for (int i = 0; i < s->n; i++)
    if (!s->m[i].held)
      for (int k = 0; k < s->m[i].t.n; k++, n++)
        sum += r[i][k].residual * r[i][k].residual;
  return n ? sum / n : 0;
}

static double objective(unsigned nu, const double *u, double *grad, void *data)
{
  (void)grad;
  struct ctx *x = data;
  double *v = malloc(nu * sizeof *v);
  for (unsigned k = 0; k < nu; k++)
    v[k] = value_of_u(&x->fit->f[k], u[k]);
  struct cal_point_result **r = results_new(x->s), ***all = &r;
  double c = HUGE_VAL;
  if (evaluate(x, &v, 1, false, all) == 0) {
    c = cost_of(x->s, r);
  } else {
    x->failed = 1;
  }
  results_free(r, x->s);
  x->fit->evals++;
  if (x->failed) {
    free(v);
    return HUGE_VAL;
  }
  if (c < x->best)
    x->best = c;
  if (!x->o->quiet) {
    char el[32];
    long t = (long)(now_s() - x->t0 + 0.5);
    snprintf(el, sizeof el, "%ld:%02ld", t / 60, t % 60);
    fprintf(stderr, "%scalibrate: evaluation %d, RMS log error %.3f%% (best %.3f%%), %d runs, %d found done, %s%s",
            isatty(2) ? "\r\033[K" : "", x->fit->evals, 100 * sqrt(c), 100 * sqrt(x->best), x->fit->runs_done,
            x->fit->runs_reused, el, isatty(2) ? "" : "\n");
  }
  free(v);
  return c;
}

/* Eigen-decomposition of the symmetric N x N matrix A (destroyed) by Jacobi rotations: W the
 * eigenvalues, V (row-major, columns) the eigenvectors. N is the number of free parameters. */
static void jacobi_eigen(double *a, int n, double *w, double *v)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      v[i * n + j] = i == j;
  for (int sweep = 0; sweep < 100; sweep++) {
    double off = 0;
    for (int i = 0; i < n; i++)
      for (int j = i + 1; j < n; j++)
        off += a[i * n + j] * a[i * n + j];
    if (off < 1e-30)
      break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) {
        if (fabs(a[p * n + q]) < 1e-300)
          continue;
        double theta = (a[q * n + q] - a[p * n + p]) / (2 * a[p * n + q]);
        double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        double c = 1 / sqrt(t * t + 1), sn = t * c;
        for (int k = 0; k < n; k++) { /* A <- A R */
          double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - sn * akq;
          a[k * n + q] = sn * akp + c * akq;
        }
        for (int k = 0; k < n; k++) { /* A <- R' A */
          double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - sn * aqk;
          a[q * n + k] = sn * apk + c * aqk;
        }
        for (int k = 0; k < n; k++) {
          double vkp = v[k * n + p], vkq = v[k * n + q];
          v[k * n + p] = c * vkp - sn * vkq;
          v[k * n + q] = sn * vkp + c * vkq;
        }
      }
  }
  for (int i = 0; i < n; i++)
    w[i] = a[i * n + i];
}

/* Curvature at the fitted values: ranges, correlations, ridges. Returns 0, 1 (a ridge), -1. */
static int curvature(struct ctx *x)
{
  struct cal_fit *fit = x->fit;
  struct cal_set *s = x->s;
  int nf = fit->nf, m = fit->nfit;
  double **vals = calloc((size_t)(2 * nf), sizeof *vals), *dlog = calloc((size_t)nf, sizeof *dlog);
  for (int c = 0; c < 2 * nf; c++) {
    vals[c] = malloc((size_t)nf * sizeof **vals);
    for (int k = 0; k < nf; k++)
      vals[c][k] = fit->f[k].value;
  }
  for (int k = 0; k < nf; k++) { /* within the parameter's own bounds, not the search's */
    const struct cal_free *f = &fit->f[k];
    double up = f->value * exp(JAC_STEP), down = f->value * exp(-JAC_STEP);
    if (f->d->type == ICSIM_P_INT) {
      up = fmax(ceil(up), f->value + 1);
      down = fmin(floor(down), f->value - 1);
    }
    up = fmin(up, f->d->max);
    down = fmax(down, fmax(f->d->min, 1e-300));
    vals[2 * k][k] = up;
    vals[2 * k + 1][k] = down;
    dlog[k] = log(up / down);
  }
  struct cal_point_result ***r = calloc((size_t)(2 * nf), sizeof *r);
  for (int c = 0; c < 2 * nf; c++)
    r[c] = results_new(s);
  int rc = evaluate(x, vals, 2 * nf, false, r);
  double *J = calloc((size_t)(m * nf), sizeof *J);
  for (int k = 0; rc == 0 && k < nf; k++) {
    int p = 0;
    for (int i = 0; i < s->n; i++)
      if (!s->m[i].held)
        for (int j = 0; j < s->m[i].t.n; j++, p++)
          J[p * nf + k] = dlog[k] > 0 ? (r[2 * k][i][j].residual - r[2 * k + 1][i][j].residual) / dlog[k] : 0;
  }
  for (int c = 0; c < 2 * nf; c++) {
    results_free(r[c], s);
    free(vals[c]);
  }
  free(r);
  free(vals);
  free(dlog);
  if (rc) {
    free(J);
    return -1;
  }
  double *A = calloc((size_t)(nf * nf), sizeof *A), *w = calloc((size_t)nf, sizeof *w),
         *V = calloc((size_t)(nf * nf), sizeof *V), *Acopy = calloc((size_t)(nf * nf), sizeof *Acopy);
  for (int a = 0; a < nf; a++)
    for (int b = 0; b < nf; b++)
      for (int p = 0; p < m; p++)
        A[a * nf + b] += J[p * nf + a] * J[p * nf + b];
  free(J);
  memcpy(Acopy, A, (size_t)(nf * nf) * sizeof *A);
  jacobi_eigen(Acopy, nf, w, V);
  double wmax = 0, wmin = HUGE_VAL;
  int kmin = 0;
  for (int k = 0; k < nf; k++) {
    wmax = fmax(wmax, w[k]);
    if (w[k] < wmin)
      wmin = w[k], kmin = k;
  }
  size_t rl = 0;
  fit->ridge[0] = '\0';
  /* a parameter no fitted point depends on */
  for (int k = 0; k < nf; k++)
    if (A[k * nf + k] <= 1e-12 * fmax(wmax, 1e-300) || A[k * nf + k] < 1e-14)
      rl += (size_t)snprintf(fit->ridge + rl, sizeof fit->ridge - rl,
                             "%sno fitted point depends on %s (a 3%% change moves none of them)", rl ? "; " : "",
                             fit->f[k].key);
  double ssr = fit->cost * m, s2 = m > nf ? ssr / (m - nf) : NAN;
  if (!rl && wmin <= 1e-9 * wmax) { /* singular: the points fix a combination */
    int named = 0;
    for (int k = 0; k < nf; k++)
      if (fabs(V[k * nf + kmin]) >= 0.2)
        rl += (size_t)snprintf(fit->ridge + rl, sizeof fit->ridge - rl, "%s%s", named++ ? " and " : "", fit->f[k].key);
    rl += (size_t)snprintf(fit->ridge + rl, sizeof fit->ridge - rl,
                           " trade off: the points fix only a combination of them (J'J singular: smallest eigenvalue "
                           "%.3g of %.3g)", wmin, wmax);
  }
  if (!rl) { /* covariance: (J'J)^-1 s^2 from the eigen-decomposition */
    fit->corr = calloc((size_t)(nf * nf), sizeof *fit->corr);
    double *C = calloc((size_t)(nf * nf), sizeof *C);
    for (int a = 0; a < nf; a++)
      for (int b = 0; b < nf; b++)
        for (int k = 0; k < nf; k++)
          C[a * nf + b] += V[a * nf + k] * V[b * nf + k] / w[k];
    double worst = 0;
    int wa = -1, wb = -1;
    for (int a = 0; a < nf; a++)
      for (int b = 0; b < nf; b++) {
        fit->corr[a * nf + b] = C[a * nf + b] / sqrt(C[a * nf + a] * C[b * nf + b]);
        if (a < b && fabs(fit->corr[a * nf + b]) > worst)
          worst = fabs(fit->corr[a * nf + b]), wa = a, wb = b;
      }
    if (wa >= 0 && worst > x->o->ridge_correlation) {
      /* along the flattest direction (va, vb) the fit hardly changes: a^1 b^(-va/vb) stays put */
      double va = V[wa * nf + kmin], vb = V[wb * nf + kmin];
      rl += (size_t)snprintf(fit->ridge + rl, sizeof fit->ridge - rl,
                             "%s and %s trade off: their estimates' correlation is %+.4f (above %.4g)", fit->f[wa].key,
                             fit->f[wb].key, fit->corr[wa * nf + wb], x->o->ridge_correlation);
      if (fabs(vb) > 1e-6)
        rl += (size_t)snprintf(fit->ridge + rl, sizeof fit->ridge - rl,
                               ": the points fix about %s x %s^%.2f, not each", fit->f[wa].key, fit->f[wb].key,
                               -va / vb);
    }
    for (int k = 0; k < nf; k++)
      fit->f[k].sigma_log = isfinite(s2) ? sqrt(s2 * C[k * nf + k]) : -1;
    free(C);
  }
  free(A);
  free(Acopy);
  free(w);
  free(V);
  return rl ? 1 : 0;
}

int cal_fit(const struct cal_options *o, struct cal_set *s, struct cal_fit *fit, char *err, size_t errlen)
{
  struct ctx x = {.o = o, .s = s, .fit = fit, .best = HUGE_VAL, .t0 = now_s(), .err = err, .errlen = errlen};
  if (!realpath(o->platform, x.platform)) {
    snprintf(err, errlen, "%s: %s", icsim_path_shown(o->platform), strerror(errno));
    return -1;
  }
  char dir[PATH_MAX + 16];
  if (store_open(o->work, err, errlen))
    return -1;
  snprintf(dir, sizeof dir, "%s/batches", o->work);
  if (mkdir(dir, 0755) && errno != EEXIST) {
    snprintf(err, errlen, "cannot create %s: %s", icsim_path_shown(dir), strerror(errno));
    return -1;
  }
  sweep_run_quiet(true);
  fit->nfit = 0;
  for (int i = 0; i < s->n; i++)
    if (!s->m[i].held)
      fit->nfit += s->m[i].t.n;
  int nf = fit->nf;
  double *u = calloc((size_t)nf, sizeof *u), *lb = calloc((size_t)nf, sizeof *lb), *ub = calloc((size_t)nf, sizeof *ub),
         *step = calloc((size_t)nf, sizeof *step);
  for (int k = 0; k < nf; k++) {
    u[k] = u_of_value(&fit->f[k], fit->f[k].start);
    u[k] = u[k] < 0 ? 0 : u[k] > 1 ? 1 : u[k];
    ub[k] = 1;
    step[k] = 0.2;
  }
  /* A first look over the whole box: a flat stretch around the start (a cost that does not depend
   * on a parameter there, as a per-message overhead hidden behind a larger one) would otherwise
   * stop a local method where it began. DESIGN_PER_PARAM points per parameter of a Halton sequence
   * (deterministic, evenly spread) in one batch, so they run side by side; the search starts from
   * the best of them and the start. */
  int ndesign = DESIGN_PER_PARAM * nf;
  double **design = calloc((size_t)ndesign + 1, sizeof *design), **dv = calloc((size_t)ndesign + 1, sizeof *dv);
  static const int primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71};
  for (int i = 0; i <= ndesign; i++) {
    design[i] = malloc((size_t)nf * sizeof **design);
    dv[i] = malloc((size_t)nf * sizeof **dv);
    for (int k = 0; k < nf; k++) {
      double h = 0, fr = 1;
      for (int idx = i, b = primes[k % 20]; idx > 0; idx /= b) /* point 0 is the start */
        h += (fr /= b) * (idx % b);
      design[i][k] = i == 0 ? u[k] : h;
      dv[i][k] = value_of_u(&fit->f[k], design[i][k]);
    }
  }
  struct cal_point_result ***dr = calloc((size_t)ndesign + 1, sizeof *dr);
  for (int i = 0; i <= ndesign; i++)
    dr[i] = results_new(s);
  /* the start alone first: a measurement its runs cannot reproduce (a size missing from the
   * workload's output, a run that fails) is reported before the batch */
  int rc0 = evaluate(&x, dv, 1, false, dr);
  if (rc0 == 0 && !o->no_scan)
    rc0 = evaluate(&x, dv + 1, ndesign, false, dr + 1);
  if (rc0)
    x.failed = 1;
  int bi = 0;
  for (int i = 0; rc0 == 0 && !o->no_scan && i <= ndesign; i++) {
    double c = cost_of(s, dr[i]);
    if (c < cost_of(s, dr[bi]))
      bi = i;
    x.best = fmin(x.best, c);
  }
  if (!o->no_scan) {
    fit->evals += ndesign + 1;
    memcpy(u, design[bi], (size_t)nf * sizeof *u);
    if (!o->quiet)
      fprintf(stderr, "calibrate: the start and %d points spread over the search box: the local search starts from %s "
              "(RMS log error %.3f%%)\n", ndesign, bi == 0 ? "the start" : "the best of them", 100 * sqrt(x.best));
  }
  for (int i = 0; i <= ndesign; i++) {
    results_free(dr[i], s);
    free(design[i]);
    free(dv[i]);
  }
  free(dr);
  free(design);
  free(dv);
  nlopt_result res = NLOPT_SUCCESS;
  double best = HUGE_VAL;
  /* then the local search, started again from where it stopped until that gains nothing: BOBYQA's
   * quadratic model, built from few points, may stop short on a cost with kinks */
  for (int round = 0; round < 4 && !x.failed; round++) {
    nlopt_opt opt = nlopt_create(nf >= 2 ? NLOPT_LN_BOBYQA : NLOPT_LN_SBPLX, (unsigned)nf);
    nlopt_set_lower_bounds(opt, lb);
    nlopt_set_upper_bounds(opt, ub);
    nlopt_set_min_objective(opt, objective, &x);
    for (int k = 0; k < nf; k++)
      step[k] = round ? 0.05 : 0.1;
    nlopt_set_initial_step(opt, step);
    double *xtol = calloc((size_t)nf, sizeof *xtol);
    for (int k = 0; k < nf; k++) /* 0.1% of each value: below what 2-3 printed digits can tell */
      xtol[k] = XTOL_LOG / log(fit->f[k].hi / fit->f[k].lo);
    nlopt_set_xtol_abs(opt, xtol);
    free(xtol);
    nlopt_set_ftol_rel(opt, 1e-6);
    nlopt_set_maxeval(opt, o->max_evals - fit->evals > 10 ? o->max_evals - fit->evals : 10);
    double got = 0;
    res = nlopt_optimize(opt, u, &got);
    nlopt_destroy(opt);
    if (res < 0 || got >= best * (1 - 1e-3) || fit->evals >= o->max_evals) {
      best = fmin(best, got);
      break;
    }
    best = got;
  }
  if (!o->quiet && isatty(2))
    fputc('\n', stderr);
  fit->stop = res == NLOPT_XTOL_REACHED    ? "the steps moved every value by less than 0.1%"
              : res == NLOPT_FTOL_REACHED  ? "the error stopped improving (by 1e-6 of itself)"
              : res == NLOPT_MAXEVAL_REACHED ? "the evaluation limit (--max-evals) was reached"
              : res == NLOPT_SUCCESS       ? "converged"
                                           : "the optimiser stopped";
  int rc = 0;
  if (x.failed || res < 0) {
    if (!x.failed)
      snprintf(err, errlen, "NLopt failed (%s)", nlopt_result_to_string(res));
    rc = -1;
  }
  /* the values as they will be written (4 significant digits), evaluated with the held-out points */
  double *v = calloc((size_t)nf, sizeof *v);
  for (int k = 0; rc == 0 && k < nf; k++) {
    char text[128], why[256];
    cal_format_value(fit->f[k].d, value_of_u(&fit->f[k], u[k]), 4, 0, text, sizeof text);
    icsim_param_parse(fit->f[k].d, text, &v[k], why, sizeof why);
    fit->f[k].value = v[k];
  }
  if (rc == 0) {
    fit->r = results_new(s);
    struct cal_point_result ***all = &fit->r;
    rc = evaluate(&x, &v, 1, true, all);
    fit->cost = cost_of(s, fit->r);
  }
  if (rc == 0)
    rc = curvature(&x);
  for (int k = 0; rc == 0 && k < nf; k++) {
    struct cal_free *f = &fit->f[k];
    double sg = f->sigma_log >= 0 ? f->sigma_log : 0;
    f->range_lo = fmax(f->value * exp(-2 * sg), f->d->min);
    f->range_hi = fmin(f->value * exp(2 * sg), f->d->max);
  }
  free(v);
  free(u);
  free(lb);
  free(ub);
  free(step);
  sweep_run_quiet(false);
  return rc;
}

void cal_fit_free(struct cal_fit *fit, const struct cal_set *s)
{
  results_free(fit->r, s);
  free(fit->corr);
  free(fit->f);
  memset(fit, 0, sizeof *fit);
}
