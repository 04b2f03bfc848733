/* The outputs of an uncertainty study (uq.h): CSV tables, a Markdown summary and one tornado
 * plot per figure. Each file is written whole (outfile.h); numbers with 10 significant digits, so
 * that the same study gives the same bytes. */
#define _GNU_SOURCE
#include "uq.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outfile.h"

struct text {
  char *s;
  size_t len, cap;
};

static void tprintf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tprintf(struct text *t, const char *fmt, ...)
{
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (t->s && t->len + (size_t)n < t->cap) {
      t->len += (size_t)n;
      return;
    }
    t->cap = 2 * (t->len + (size_t)n + 64);
    t->s = realloc(t->s, t->cap);
  }
}

static void num(struct text *t, double v) /* a CSV cell: empty when not known */
{
  if (isfinite(v))
    tprintf(t, ",%.10g", v);
  else
    tprintf(t, ",");
}

static void cell(struct text *t, const char *s, int first) /* quoted when it holds , or " */
{
  tprintf(t, "%s", first ? "" : ",");
  if (!strpbrk(s, ",\"\n")) {
    tprintf(t, "%s", s);
    return;
  }
  tprintf(t, "\"");
  for (; *s; s++)
    tprintf(t, *s == '"' ? "\"\"" : "%c", *s);
  tprintf(t, "\"");
}

void uq_figure_slug(const struct uq_figure *f, char *buf, size_t len)
{
  snprintf(buf, len, "%s-%s", f->metric, f->x);
  for (char *c = buf; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
          *c == '_' || *c == '.'))
      *c = '_';
}

static void top_text(const struct uq_study *st, const struct uq_figure *g, char *buf, size_t len)
{
  buf[0] = '\0';
  for (int t = 0; t < 3 && g->top[t] >= 0; t++) {
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", t ? ";" : "", st->pname[g->top[t]]);
  }
}

static int put(const char *dir, const char *name, struct text *t, char *err, size_t errlen)
{
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int rc = icsim_output_write("-o", path, t->s ? t->s : "", t->len, err, errlen);
  free(t->s);
  memset(t, 0, sizeof *t);
  return rc;
}

/* The tornado of figure G: for each parameter the Sobol' phase varied, a bar from the figure at
 * the parameter's low end to the figure at its high end, the others at their file values; the
 * widest bar on top, a line at the point prediction. */
static void tornado(const struct uq_study *st, const struct uq_figure *g, const char *dir)
{
  int order[UQ_SOBOL_MAX_M], n = 0;
  for (int i = 0; i < st->m; i++) {
    int j = st->selected[i];
    if (isnan(g->swing_lo[j]) || isnan(g->swing_hi[j]) || (g->swing_lo[j] == g->point && g->swing_hi[j] == g->point))
      continue; /* a parameter that does not move this figure gets no bar */
    order[n++] = j;
  }
  for (int a = 1; a < n; a++) /* narrowest first: gnuplot draws y = 0 at the bottom */
    for (int b = a; b > 0; b--) {
      int x = order[b], y = order[b - 1];
      if (fabs(g->swing_hi[x] - g->swing_lo[x]) >= fabs(g->swing_hi[y] - g->swing_lo[y]))
        break;
      order[b] = y;
      order[b - 1] = x;
    }
  if (n == 0)
    return;
  char slug[160], dat[PATH_MAX], gp[PATH_MAX], png[PATH_MAX], tmp[PATH_MAX + 16], err[512];
  uq_figure_slug(g, slug, sizeof slug);
  snprintf(dat, sizeof dat, "%s/tornado/%s.dat", dir, slug);
  snprintf(gp, sizeof gp, "%s/tornado/%s.gp", dir, slug);
  snprintf(png, sizeof png, "%s/tornado/%s.png", dir, slug);
  snprintf(tmp, sizeof tmp, "%s.tmp.%d", png, (int)getpid());
  struct text d = {0}, s = {0};
  tprintf(&d, "# y parameter low_end_value high_end_value (the figure with the parameter at its range's ends)\n");
  for (int i = 0; i < n; i++) {
    int j = order[i];
    tprintf(&d, "%d \"%s %s\" %.10g %.10g\n", i, st->pname[j], st->p[j].range_text, g->swing_lo[j], g->swing_hi[j]);
  }
  tprintf(&s, "# gnuplot -e \"set output '%s.png'\" %s.gp   (written by icsim uncertainty)\n", slug, slug);
  tprintf(&s, "set terminal pngcairo size 1100,%d noenhanced\n", 160 + 40 * n);
  tprintf(&s, "set title '%s at %s: each parameter at its low (blue) and high (red) end'\n", g->metric, g->x);
  size_t longest = 10; /* the left margin fits the longest label (characters) */
  for (int i = 0; i < n; i++) {
    size_t len = strlen(st->pname[order[i]]) + strlen(st->p[order[i]].range_text) + 1;
    longest = len > longest ? len : longest;
  }
  tprintf(&s, "set ytics nomirror\nset yrange [-0.7:%d.7]\nset grid x\nunset key\nset lmargin %zu\n", n - 1,
          longest + 3);
  tprintf(&s, "set xlabel '%s (dashed: point %.4g; grey: 90%% interval %.4g .. %.4g)'\n", g->metric, g->point,
          g->p05, g->p95);
  tprintf(&s, "set style fill solid 0.7 border -1\nset arrow from %.10g, graph 0 to %.10g, graph 1 nohead dt 2 front\n",
          g->point, g->point);
  if (isfinite(g->p05) && isfinite(g->p95) && g->p95 > g->p05)
    tprintf(&s, "set object 1 rect from %.10g, graph 0 to %.10g, graph 1 fc rgb '#e8e8e8' fs solid 1.0 noborder "
                "behind\n", g->p05, g->p95);
  tprintf(&s, "plot '%s' using (($3 + %.10g) / 2):1:($3 < %.10g ? $3 : %.10g):($3 < %.10g ? %.10g : $3):($1 - 0.35):"
              "($1 + 0.35):ytic(2) with boxxyerror lc rgb '#4477aa', \\\n"
              "     '' using (($4 + %.10g) / 2):1:($4 < %.10g ? $4 : %.10g):($4 < %.10g ? %.10g : $4):($1 - 0.35):"
              "($1 + 0.35) with boxxyerror lc rgb '#cc3311'\n",
          dat, g->point, g->point, g->point, g->point, g->point, g->point, g->point, g->point, g->point, g->point);
  char dir2[PATH_MAX];
  snprintf(dir2, sizeof dir2, "%s/tornado", dir);
  mkdir(dir2, 0755);
  if (icsim_output_write("-o", dat, d.s, d.len, err, sizeof err) || icsim_output_write("-o", gp, s.s, s.len, err, sizeof err)) {
    fprintf(stderr, "icsim uncertainty: %s (tornado skipped)\n", err);
  } else {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
      int nul = open("/dev/null", O_WRONLY);
      if (nul >= 0)
        dup2(nul, 1), dup2(nul, 2);
      char *set_output = NULL;
      if (asprintf(&set_output, "set output '%s'", tmp) < 0)
        _exit(126);
      execlp("gnuplot", "gnuplot", "-e", set_output, gp, (char *)NULL);
      _exit(127);
    }
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
    if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
      fprintf(stderr, "icsim uncertainty: gnuplot failed for %s (plot skipped; script %s)\n", png, gp);
    else if (icsim_output_copy("-o", png, tmp, err, sizeof err))
      fprintf(stderr, "icsim uncertainty: %s (plot skipped)\n", err);
    unlink(tmp);
  }
  free(d.s);
  free(s.s);
}

static const char *unit_of(const struct uq_param *p)
{
  return p->type == ICSIM_P_INT ? "count" : icsim_dim_unit(p->dim)[0] ? icsim_dim_unit(p->dim) : "1";
}

int uq_report_write(const struct uq_study *st, const struct uq_opts *o, char *err, size_t errlen)
{
  struct text t = {0};
  char top[512];
  tprintf(&t, "metric,x,point,median,p05,p95,samples,top_parameters\n");
  for (int f = 0; f < st->nf; f++) {
    const struct uq_figure *g = &st->f[f];
    cell(&t, g->metric, 1);
    cell(&t, g->x, 0);
    num(&t, g->point);
    num(&t, g->median);
    num(&t, g->p05);
    num(&t, g->p95);
    tprintf(&t, ",%d,", g->nsamples);
    top_text(st, g, top, sizeof top);
    cell(&t, top, 1);
    tprintf(&t, "\n");
  }
  if (put(o->dir, "uncertainty.csv", &t, err, errlen))
    return -1;
  tprintf(&t, "metric,x,parameter,mu_star,sigma,S1,ST,rank_corr,at_low,at_high\n");
  for (int f = 0; f < st->nf; f++)
    for (int j = 0; j < st->k; j++) {
      const struct uq_figure *g = &st->f[f];
      cell(&t, g->metric, 1);
      cell(&t, g->x, 0);
      cell(&t, st->pname[j], 0);
      num(&t, g->mu_star[j]);
      num(&t, g->sigma[j]);
      num(&t, g->s1[j]);
      num(&t, g->st[j]);
      num(&t, g->corr[j]);
      num(&t, g->swing_lo[j]);
      num(&t, g->swing_hi[j]);
      tprintf(&t, "\n");
    }
  if (put(o->dir, "effects.csv", &t, err, errlen))
    return -1;
  tprintf(&t, "parameter,unit,value,low,high,sampled,sobol_phase,range_ref\n");
  for (int j = 0; j < st->k; j++) {
    int in = 0;
    for (int i = 0; i < st->m; i++)
      in |= st->selected[i] == j;
    cell(&t, st->pname[j], 1);
    tprintf(&t, ",%s", unit_of(&st->p[j]));
    num(&t, st->p[j].nominal);
    num(&t, st->p[j].lo);
    num(&t, st->p[j].hi);
    tprintf(&t, ",%s,%s,", st->p[j].log ? "log-uniform" : "uniform", in ? "yes" : "no");
    cell(&t, st->p[j].range_ref, 1);
    tprintf(&t, "\n");
  }
  if (put(o->dir, "parameters.csv", &t, err, errlen))
    return -1;
  /* the summary a reader starts from */
  tprintf(&t, "# Uncertainty study\n\n");
  if (st->screened)
    tprintf(&t, "Seed %lu, budget %ld points: 1 nominal, %d Morris screening points (%d trajectories of %d), %d "
                "Sobol'-phase points, %d swing points%s.\n\n",
            o->seed, o->budget, st->runs_morris, st->runs_morris / (st->k + 1), st->k + 1, st->runs_sobol,
            st->runs_swing, st->ne > 1 ? " (each point runs every program of the case)" : "");
  else
    tprintf(&t, "Seed %lu, budget %ld points: 1 nominal, %d sample points over all %d ranged parameters, %d swing "
                "points%s.\n\n", o->seed, o->budget, st->runs_sobol, st->k, st->runs_swing,
            st->ne > 1 ? " (each point runs every program of the case)" : "");
  tprintf(&t, "%s.%s", st->note, st->screened ? " " : "\n\n");
  if (st->indices)
    tprintf(&t, "Sobol' indices over %d parameters from N = %d base rows (first order: Saltelli et al. 2010; total: "
                "Jansen 1999); the interval from the 2N = %d rows of the matrices A and B.\n\n",
            st->m, st->sobol_n, 2 * st->sobol_n);
  else if (st->m && st->screened)
    tprintf(&t, "The budget left too few points for Sobol' indices: the %d points of the quasi-random sample give the "
                "interval, the ranking is Morris' mu*.\n\n", 2 * st->sobol_n);
  tprintf(&t, "| figure | at | point | median | 90%% interval | top parameters |\n|---|---|---|---|---|---|\n");
  for (int f = 0; f < st->nf; f++) {
    const struct uq_figure *g = &st->f[f];
    char slug[160];
    uq_figure_slug(g, slug, sizeof slug);
    top_text(st, g, top, sizeof top);
    for (char *c = top; *c; c++)
      if (*c == ';')
        *c = ' ';
    tprintf(&t, "| %s | %s | %.6g | %.6g | %.6g .. %.6g | %s ([tornado](tornado/%s.png)) |\n", g->metric, g->x,
            g->point, g->median, g->p05, g->p95, top[0] ? top : "-", slug);
  }
  tprintf(&t, "\nParameters (parameters.csv; effects per figure in effects.csv):\n\n| parameter | value | range | "
              "sampled | reference of the range |\n|---|---|---|---|---|\n");
  for (int j = 0; j < st->k; j++)
    tprintf(&t, "| `%s` | %.6g %s | %s | %s | %s |\n", st->pname[j], st->p[j].nominal, unit_of(&st->p[j]),
            st->p[j].range_text, st->p[j].log ? "log-uniform" : "uniform", st->p[j].range_ref);
  if (put(o->dir, "summary.md", &t, err, errlen))
    return -1;
  for (int f = 0; f < st->nf; f++)
    tornado(st, &st->f[f], o->dir);
  return 0;
}
