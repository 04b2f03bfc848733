/* What a run leaves behind: summary.csv (one row per published point), report.md (tables per
 * metric, plots, shape orders, verdicts), one gnuplot PNG per numeric metric, and the same table
 * on the terminal. Files are built in a temporary folder and moved into place, summary last. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "validate.h"
#include "paths.h"
#include "outfile.h"

static void fmt_num(char *buf, size_t len, int has, double v)
{
  if (has)
    snprintf(buf, len, "%.6g", v);
  else
    buf[0] = '\0';
}

void plot_init(struct plot *p, const char *case_name, const char *metric, const char *unit)
{
  snprintf(p->file, sizeof p->file, "%s-%s.png", case_name, metric);
  snprintf(p->title, sizeof p->title, "%s: %s", case_name, metric);
  snprintf(p->unit, sizeof p->unit, "%s", unit ? unit : "");
  snprintf(p->metric, sizeof p->metric, "%s", metric);
  snprintf(p->case_name, sizeof p->case_name, "%s", case_name);
}

/* Published vs simulated on log axes, x numeric. Points with x <= 0 are left out of the log
 * plot (they stay in the tables). */
void make_plot(const struct plot *p, const struct rows *rs, const char *tmpdir)
{
  char dat[PATH_MAX], gp[PATH_MAX];
  snprintf(dat, sizeof dat, "%s/%s-%s.dat", tmpdir, p->case_name, p->metric);
  snprintf(gp, sizeof gp, "%s/%s-%s.gp", tmpdir, p->case_name, p->metric);
  FILE *f = fopen(dat, "w");
  int points = 0, numeric = 1;
  for (size_t i = 0; i < rs->n; i++) {
    const struct row *r = &rs->r[i];
    if (strcmp(r->case_name, p->case_name) || strcmp(r->metric, p->metric))
      continue;
    char *end;
    double x = strtod(r->x, &end);
    if (*end) {
      numeric = 0;
      continue;
    }
    if (x <= 0)
      continue;
    /* NaN leaves a gap: blind points have no published value */
    if (r->has_published && r->published > 0)
      fprintf(f, "%s %.9g ", r->x, r->published);
    else
      fprintf(f, "%s NaN ", r->x);
    if (r->has_simulated && r->simulated > 0)
      fprintf(f, "%.9g\n", r->simulated);
    else
      fprintf(f, "NaN\n");
    points++;
  }
  fclose(f);
  if (!numeric || points == 0) {
    unlink(dat);
    return;
  }
  f = fopen(gp, "w");
  fprintf(f,
          "set terminal pngcairo size 800,520 noenhanced\nset output '%s/%s'\nset title '%s'\nset logscale xy\n"
          "set xlabel 'x (bytes)'\nset ylabel '%s %s'\nset key left top\nset grid\n"
          "plot '%s' using 1:2 with linespoints pt 7 title 'published', '%s' using 1:3 with linespoints pt 5 "
          "title 'icsim'\n",
          tmpdir, p->file, p->title, p->metric, p->unit, dat, dat);
  fclose(f);
  char cmd[PATH_MAX * 2];
  snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>/dev/null", gp);
  if (system(cmd) != 0)
    fprintf(stderr, "icsim validate: gnuplot failed for %s (plot skipped)\n", p->file);
  unlink(gp);
  unlink(dat);
}

/* Whether row A is of B's case and metric, with an x that is a shape "NxC" of CORES cores. */
static int same_shape_group(const struct row *a, const struct row *b, int cores)
{
  int n, c;
  char tail;
  return !strcmp(a->case_name, b->case_name) && !strcmp(a->metric, b->metric) &&
         sscanf(a->x, "%dx%d%c", &n, &c, &tail) == 2 && n * c == cores;
}

/* For metrics whose x are subsystem shapes "NxC", the order of the shapes within each core
 * count N x C, fastest first: what a resource manager would pick (Peryshkova and Kurnosov). */
static void print_shape_orders(FILE *f, const struct rows *rs, int markdown)
{
  for (size_t i = 0; i < rs->n; i++) {
    const struct row *r = &rs->r[i];
    int n, c;
    char tail;
    if (sscanf(r->x, "%dx%d%c", &n, &c, &tail) != 2 || !r->has_simulated)
      continue;
    int first = 1; /* only once per (case, metric, core count): at its first row */
    for (size_t j = 0; j < i && first; j++)
      first = !same_shape_group(&rs->r[j], r, n * c);
    if (!first)
      continue;
    const struct row *sorted[64];
    int k = 0;
    for (size_t j = i; j < rs->n && k < 64; j++)
      if (same_shape_group(&rs->r[j], r, n * c) && rs->r[j].has_simulated)
        sorted[k++] = &rs->r[j];
    for (int a = 1; a < k; a++) /* insertion sort: stable, equal times keep the table's order */
      for (int b = a; b > 0 && sorted[b]->simulated < sorted[b - 1]->simulated; b--) {
        const struct row *t = sorted[b];
        sorted[b] = sorted[b - 1];
        sorted[b - 1] = t;
      }
    fprintf(f, "%s%s %s, %d cores, predicted order:", markdown ? "- " : "", r->case_name, r->metric, n * c);
    for (int a = 0; a < k; a++)
      fprintf(f, " %s%s (%.6g)", a ? "< " : "", sorted[a]->x, sorted[a]->simulated);
    fprintf(f, "\n");
  }
}

static void write_summary(FILE *f, const struct rows *rs)
{
  fprintf(f, "case,metric,x,published,simulated,rel_error,tolerance,status%s\n",
          validate_uncertainty ? ",p05,median,p95,top_parameters" : "");
  for (size_t i = 0; i < rs->n; i++) {
    const struct row *r = &rs->r[i];
    char pub[32], sim[32], rel[32];
    fmt_num(pub, sizeof pub, r->has_published, r->published);
    fmt_num(sim, sizeof sim, r->has_simulated, r->simulated);
    fmt_num(rel, sizeof rel, r->has_published && r->has_simulated, r->rel_error);
    const char *q = strchr(r->x, ',') ? "\"" : ""; /* x like m=4,cf=2 needs quoting */
    fprintf(f, "%s,%s,%s%s%s,%s,%s,%s,%g,%s", r->case_name, r->metric, q, r->x, q, pub, sim, rel, r->tolerance,
            r->status);
    if (validate_uncertainty) {
      char lo[32], med[32], hi[32];
      fmt_num(lo, sizeof lo, r->has_interval, r->p05);
      fmt_num(med, sizeof med, r->has_interval, r->median);
      fmt_num(hi, sizeof hi, r->has_interval, r->p95);
      const char *tq = strpbrk(r->top, ",\"") ? "\"" : ""; /* the residual's note holds no quote */
      fprintf(f, ",%s,%s,%s,%s%s%s", lo, med, hi, tq, r->top, tq);
    }
    fprintf(f, "\n");
  }
}

static void write_report(FILE *f, const struct rows *rs, const struct plot *plots, int nplots,
                         const struct icsim_yfile *files, int nfiles, const char *tmpdir)
{
  fprintf(f, "# icsim validation report\n\nGenerated by `icsim validate`. Status: pass/fail against the "
             "tolerance; blind = published value held back, the simulated value is a prediction; excluded = a "
             "published cell the model does not claim (reason given).\n");
  if (validate_uncertainty)
    fprintf(f, "\nWith `--uncertainty`: the 90%% interval of each simulated value over the ranges of the platform's "
               "parameters, and the parameters that move it most (validate/README.md, Uncertainty). A published "
               "value outside its interval is a missing mechanism: no setting of the ranged parameters reaches it. "
               "A calibration point's interval is the fit's residual.\n");
  const char *last_case = "", *last_metric = "";
  for (size_t i = 0; i < rs->n; i++) {
    const struct row *r = &rs->r[i];
    if (strcmp(r->case_name, last_case) || strcmp(r->metric, last_metric)) {
      if (strcmp(r->case_name, last_case)) {
        fprintf(f, "\n## %s\n", r->case_name);
        char file[256], png[PATH_MAX];
        split_file(r->case_name, file, sizeof file);
        snprintf(png, sizeof png, "%s/%s", tmpdir, file);
        if (access(png, F_OK) == 0)
          fprintf(f, "\nWhere each run's time went (its `--stats` breakdown, all ranks):\n\n![%s: where the time went](%s)\n",
                  r->case_name, file);
      }
      fprintf(f, "\n### %s\n\n", r->metric);
      for (int p = 0; p < nplots; p++)
        if (!strcmp(plots[p].case_name, r->case_name) && !strcmp(plots[p].metric, r->metric)) {
          char png[PATH_MAX];
          snprintf(png, sizeof png, "%s/%s", tmpdir, plots[p].file);
          if (access(png, F_OK) == 0) /* gnuplot may have skipped it */
            fprintf(f, "![%s](%s)\n\n", plots[p].title, plots[p].file);
        }
      if (validate_uncertainty) {
        /* the tornado of the metric's widest interval, the others linked from their rows */
        double widest = -1;
        const char *png = NULL;
        for (size_t j = i; j < rs->n && !strcmp(rs->r[j].case_name, r->case_name) &&
                           !strcmp(rs->r[j].metric, r->metric); j++)
          if (rs->r[j].tornado[0] && rs->r[j].p95 - rs->r[j].p05 > widest) {
            widest = rs->r[j].p95 - rs->r[j].p05;
            png = rs->r[j].tornado;
          }
        if (png)
          fprintf(f, "Tornado of the widest interval (each parameter at its range's ends, the others at their "
                     "values):\n\n![tornado](%s)\n\n", png);
        fprintf(f, "| x | published | simulated | error | tolerance | status | 90%% interval | top parameters | note |\n"
                   "|---:|---:|---:|---:|---:|---|---|---|---|\n");
      } else {
        fprintf(f, "| x | published | simulated | error | tolerance | status | note |\n"
                   "|---:|---:|---:|---:|---:|---|---|\n");
      }
      last_case = r->case_name;
      last_metric = r->metric;
    }
    char pub[32], sim[32], rel[32] = "";
    fmt_num(pub, sizeof pub, r->has_published, r->published);
    fmt_num(sim, sizeof sim, r->has_simulated, r->simulated);
    if (r->has_published && r->has_simulated)
      snprintf(rel, sizeof rel, "%+.2f%%", 100 * r->rel_error);
    if (validate_uncertainty) {
      char interval[96] = "", top[256];
      if (r->has_interval)
        snprintf(interval, sizeof interval, "%.4g .. %.4g%s", r->p05, r->p95,
                 r->outside ? " **published outside: a missing mechanism**" : "");
      snprintf(top, sizeof top, "%s", r->top);
      for (char *c = top; *c; c++)
        *c = *c == ';' ? ' ' : *c;
      fprintf(f, "| %s | %s | %s | %s | %g%% | %s | %s | %s%s%s%s | %s |\n", r->x, r->has_published ? pub : "(held back)",
              sim, rel, 100 * r->tolerance, r->status, interval, top, r->tornado[0] ? " ([tornado](" : "",
              r->tornado, r->tornado[0] ? "))" : "", r->note);
    } else {
      fprintf(f, "| %s | %s | %s | %s | %g%% | %s | %s |\n", r->x, r->has_published ? pub : "(held back)", sim, rel,
              100 * r->tolerance, r->status, r->note);
    }
  }
  fprintf(f, "\n");
  print_shape_orders(f, rs, 1);
  fprintf(f, "\n## Verdict\n\n");
  print_verdicts(f, rs, files, nfiles, 1);
}

static int move(const char *tmpdir, const char *outdir, const char *name, char *err, size_t errlen)
{
  char from[PATH_MAX], to[PATH_MAX];
  snprintf(from, sizeof from, "%s/%s", tmpdir, name);
  snprintf(to, sizeof to, "%s/%s", outdir, name);
  /* outfile.h: refused over an input (a case, a platform) or anything but a regular file */
  return icsim_output_copy("--out", to, from, err, errlen);
}

int write_outputs(const struct rows *rs, const struct plot *plots, int nplots, const struct icsim_yfile *files,
                  int nfiles, const char *tmpdir, const char *outdir, char *err, size_t errlen)
{
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/summary.csv", tmpdir);
  FILE *f = fopen(path, "w");
  if (f) {
    write_summary(f, rs);
    if (fclose(f) == 0) {
      snprintf(path, sizeof path, "%s/report.md", tmpdir);
      if ((f = fopen(path, "w"))) {
        write_report(f, rs, plots, nplots, files, nfiles, tmpdir);
        if (fclose(f))
          f = NULL;
      }
    } else {
      f = NULL;
    }
  }
  if (!f) { /* nothing has moved yet: the previous outputs stay as they were */
    snprintf(err, errlen, "cannot write %s: %s", icsim_path_shown(path), strerror(errno));
    return -1;
  }
  /* move into place: plots and report first, the summary last (a reader of summary.csv then
   * finds the report of the same run) */
  if (mkdir(outdir, 0755) && errno != EEXIST) {
    snprintf(err, errlen, "--out %s: cannot create (%s)", icsim_path_shown(outdir), strerror(errno));
    return -1;
  }
  DIR *d = opendir(tmpdir);
  struct dirent *de;
  while ((d && (de = readdir(d)))) {
    if (de->d_name[0] == '.' || !strcmp(de->d_name, "summary.csv") || strstr(de->d_name, ".out"))
      continue;
    if (move(tmpdir, outdir, de->d_name, err, errlen)) {
      closedir(d);
      return -1;
    }
  }
  if (d)
    closedir(d);
  return move(tmpdir, outdir, "summary.csv", err, errlen);
}

int print_summary(const struct rows *rs, const struct icsim_yfile *files, int nfiles, const char *outdir)
{
  int counts[4] = {0}; /* pass fail blind excluded */
  printf("%-22s %-16s %12s %12s %12s %9s  %s\n", "case", "metric", "x", "published", "simulated", "error",
         "status");
  for (size_t i = 0; i < rs->n; i++) {
    const struct row *r = &rs->r[i];
    char pub[32], sim[32], rel[32] = "";
    fmt_num(pub, sizeof pub, r->has_published, r->published);
    fmt_num(sim, sizeof sim, r->has_simulated, r->simulated);
    if (r->has_published && r->has_simulated)
      snprintf(rel, sizeof rel, "%+.2f%%", 100 * r->rel_error);
    printf("%-22s %-16s %12s %12s %12s %9s  %s%s%s\n", r->case_name, r->metric, r->x, r->has_published ? pub : "-",
           sim, rel, r->status, r->note[0] ? "  # " : "", r->note);
    counts[!strcmp(r->status, "pass") ? 0 : !strcmp(r->status, "fail") ? 1 : !strcmp(r->status, "blind") ? 2 : 3]++;
  }
  printf("\n");
  print_shape_orders(stdout, rs, 0);
  printf("\n");
  int rejected = print_verdicts(stdout, rs, files, nfiles, 0);
  printf("\n%d pass, %d fail, %d blind, %d excluded. Report: %s/report.md\n", counts[0], counts[1], counts[2],
         counts[3], outdir);
  return rejected;
}
