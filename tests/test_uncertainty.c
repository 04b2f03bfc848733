/* icsim uncertainty: the designs and estimators on closed forms, then end to end on a platform
 * whose ping-pong latency is a known sum of three ranged terms (tests/data/uq-pingpong.yaml):
 * the interval, the elementary effects, the Sobol' indices and the ranking against the ones
 * derived here by hand, and the same seed giving the same bytes. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shell.h"
#include "uq.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"

/* The sum's terms: coefficient x uniform on [lo, hi] (us), as the platform file writes them. */
static const struct {
  const char *key;
  double coef, lo, hi;
} term[3] = {
    {"network/link-latency", 2, 0.2, 1.1},   /* node -> switch and switch -> node */
    {"network/switch-latency", 1, 0.2, 0.8}, /* one switch */
    {"generic/send-overhead", 1, 0.5, 1.5},  /* once per message */
};

/* ---- pure parts ---- */

Test(uq, quantile_is_type_7)
{
  double x[] = {4, 1, 3, 2, NAN};
  cr_assert_float_eq(uq_quantile(x, 5, 0.5), 2.5, 1e-12);
  cr_assert_float_eq(uq_quantile(x, 5, 0.0), 1, 1e-12);
  cr_assert_float_eq(uq_quantile(x, 5, 1.0), 4, 1e-12);
  cr_assert_float_eq(uq_quantile(x, 5, 0.25), 1.75, 1e-12); /* h = 0.75 between 1 and 2 */
}

Test(uq, values_uniform_or_log_uniform)
{
  struct uq_param lin = {.key = "a", .type = ICSIM_P_QUANTITY, .lo = 2, .hi = 10, .nominal = 5, .log = 0};
  struct uq_param lg = {.key = "b", .type = ICSIM_P_QUANTITY, .lo = 1, .hi = 1000, .nominal = 5, .log = 1};
  cr_assert_float_eq(uq_value_at(&lin, 0.5), 6, 1e-12);
  cr_assert_float_eq(uq_value_at(&lg, 0.5), sqrt(1000.0), 1e-9); /* the middle of a log range */
  cr_assert_float_eq(uq_value_at(&lin, NAN), 5, 0);               /* NAN: held at the file value */
  char set[128];
  uq_set_text(&lin, 1.0 / 3, set, sizeof set);
  cr_assert(strtod(strchr(set, '=') + 1, NULL) == 1.0 / 3, "%s does not read back exactly", set);
}

/* On f = sum c_i u_i (u uniform on [0, 1]): every elementary effect is c_i exactly, sigma 0. */
Test(uq, morris_effects_of_a_linear_sum)
{
  double c[3] = {1.8, 0.6, 1.0};
  struct uq_design d;
  cr_assert_eq(uq_morris_design(3, 5, 4, 42, &d), 0);
  cr_assert_eq(d.nruns, 5 * 4);
  double y[20], mu[3], sg[3];
  for (int r = 0; r < d.nruns; r++) {
    y[r] = 0;
    for (int j = 0; j < 3; j++) {
      double u = d.u[r * 3 + j];
      cr_assert(u >= 0 && u <= 1, "row %d leaves the unit cube", r);
      y[r] += c[j] * u;
    }
  }
  uq_morris_effects(&d, y, mu, sg);
  for (int j = 0; j < 3; j++) {
    cr_assert_float_eq(mu[j], c[j], 1e-9);
    cr_assert_float_eq(sg[j], 0, 1e-9);
  }
  uq_design_free(&d);
}

/* The Sobol' indices of a linear sum of independent uniforms: S1 = ST = c_i^2 / sum c^2. */
Test(uq, sobol_indices_of_a_linear_sum)
{
  double c[3] = {1.8, 0.6, 1.0}, total = 0;
  for (int j = 0; j < 3; j++)
    total += c[j] * c[j];
  int sel[3] = {0, 1, 2}, n = 1024;
  struct uq_design d;
  cr_assert_eq(uq_saltelli_design(3, sel, 3, n, 7, &d), 0);
  double *y = malloc((size_t)d.nruns * sizeof *y), s1[3], st[3];
  for (int r = 0; r < d.nruns; r++)
    y[r] = 3 + c[0] * d.u[r * 3] + c[1] * d.u[r * 3 + 1] + c[2] * d.u[r * 3 + 2];
  uq_sobol_indices(y, n, 3, s1, st);
  for (int j = 0; j < 3; j++) {
    cr_assert_float_eq(s1[j], c[j] * c[j] / total, 0.02, "S1[%d] = %g", j, s1[j]);
    cr_assert_float_eq(st[j], c[j] * c[j] / total, 0.02, "ST[%d] = %g", j, st[j]);
  }
  free(y);
  uq_design_free(&d);
}

/* ---- end to end ---- */

/* Cell COL (0-based) of the first data line of CSV whose first cells are METRIC,X (no quoting
 * in these files but the top_parameters cell, which holds no comma). */
static void csv_cells(const char *csv, const char *prefix, char cells[][128], int n)
{
  const char *l = strstr(csv, prefix);
  cr_assert_not_null(l, "no line '%s' in\n%s", prefix, csv);
  for (int i = 0; i < n; i++) {
    size_t len = strcspn(l, ",\n");
    snprintf(cells[i], 128, "%.*s", (int)len, l);
    l += len + (l[len] == ',');
  }
}

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "cannot read %s", path);
  char *buf = calloc(1, 1 << 20);
  size_t n = fread(buf, 1, (1 << 20) - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* Run the study CMD (its output folder DIR) and return DIR's file NAME (malloc'ed). */
static char *study_file(const char *cmd, const char *dir, const char *name)
{
  char *out, path[512];
  cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
  free(out);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return slurp(path);
}

static void remove_tree(const char *dir)
{
  char cmd[600], *out;
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  run(cmd, &out, 1);
  free(out);
}

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

Test(uncertainty, pingpong_sum_of_three_ranged_terms, .timeout = 300)
{
  char dir[] = "/tmp/icsim-uq-test-XXXXXX", cmd[2048], *out;
  cr_assert_not_null(mkdtemp(dir));
  const char *study = ICSIM " uncertainty -p " ICSIM_SRC "/tests/data/uq-pingpong.yaml -n 2 --budget 300 --seed 7 "
                      "-j 2 -o %s/%s osu_latency -m 1:1 -i 10 -x 1";
  snprintf(cmd, sizeof cmd, study, dir, "a");
  int rc = run(cmd, &out, 1);
  cr_assert_eq(rc, 0, "%s\n%s", cmd, out);
  free(out);
  char path[512];
  snprintf(path, sizeof path, "%s/a/uncertainty.csv", dir);
  char *unc = slurp(path);
  char c[10][128];
  csv_cells(unc, "osu_latency,1,", c, 8);
  double point = atof(c[2]), median = atof(c[3]), p05 = atof(c[4]), p95 = atof(c[5]);

  /* by hand: latency = K + sum coef_i x_i; K from the point (every term at its file value) */
  double nominal[3] = {0.5, 0.5, 1.0}, k = point;
  for (int i = 0; i < 3; i++)
    k -= term[i].coef * nominal[i];
  /* the distribution of the sum, on a midpoint grid of 120^3 equally likely cells */
  int g = 120;
  double *s = malloc((size_t)g * g * g * sizeof *s);
  size_t q = 0;
  for (int a = 0; a < g; a++)
    for (int b = 0; b < g; b++)
      for (int e = 0; e < g; e++) {
        double u[3] = {(a + 0.5) / g, (b + 0.5) / g, (e + 0.5) / g}, v = k;
        for (int i = 0; i < 3; i++)
          v += term[i].coef * (term[i].lo + u[i] * (term[i].hi - term[i].lo));
        s[q++] = v;
      }
  qsort(s, q, sizeof *s, cmp);
  double e05 = s[(size_t)(0.05 * (q - 1))], e50 = s[(size_t)(0.5 * (q - 1))], e95 = s[(size_t)(0.95 * (q - 1))];
  free(s);
  /* sampling error of quantiles from the study's 2N ~ 110 quasi-random points, plus the 0.01 us
   * the benchmark prints: 4% of the interval's width */
  double width = e95 - e05, tol = 0.04 * width + 0.01;
  cr_assert_float_eq(p05, e05, tol, "p05 %g, by hand %g", p05, e05);
  cr_assert_float_eq(p95, e95, tol, "p95 %g, by hand %g", p95, e95);
  cr_assert_float_eq(median, e50, tol, "median %g, by hand %g", median, e50);
  /* the ranking: link latency (variance 1.8^2/12), send overhead (1^2/12), switch (0.6^2/12) */
  cr_assert_str_eq(c[7], "network/link-latency;generic/send-overhead;network/switch-latency");

  /* elementary effects: the figure's change over a whole range, coef x width (0.01 us printing,
   * over a jump of 2/3 of the range); total indices coef^2 w^2 / sum */
  snprintf(path, sizeof path, "%s/a/effects.csv", dir);
  char *eff = slurp(path);
  double var = 0;
  for (int i = 0; i < 3; i++)
    var += pow(term[i].coef * (term[i].hi - term[i].lo), 2);
  for (int i = 0; i < 3; i++) {
    char prefix[128];
    snprintf(prefix, sizeof prefix, "osu_latency,1,%s,", term[i].key);
    csv_cells(eff, prefix, c, 10);
    double w = term[i].coef * (term[i].hi - term[i].lo);
    cr_assert_float_eq(atof(c[3]), w, 0.02, "%s mu* %s, by hand %g", term[i].key, c[3], w);
    cr_assert_float_eq(atof(c[6]), w * w / var, 0.12, "%s ST %s, by hand %g", term[i].key, c[6], w * w / var);
    /* the swing: the figure at each end of the range, the others at their values */
    cr_assert_float_eq(atof(c[8]), point + term[i].coef * (term[i].lo - nominal[i]), 0.011, "%s low", term[i].key);
    cr_assert_float_eq(atof(c[9]), point + term[i].coef * (term[i].hi - nominal[i]), 0.011, "%s high", term[i].key);
  }
  free(eff);

  free(unc);
  /* the same seed twice, each in its own folder (every point run anew, one worker and two): the
   * same bytes; a small budget, as the bytes and not the accuracy are checked here */
  const char *small = ICSIM " uncertainty -p " ICSIM_SRC "/tests/data/uq-pingpong.yaml -n 2 --budget 48 --seed 3 "
                      "-j %d -o %s/%s osu_latency -m 1:1 -i 10 -x 1";
  snprintf(cmd, sizeof cmd, small, 1, dir, "b");
  cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, small, 2, dir, "c");
  cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
  free(out);
  const char *files[] = {"uncertainty.csv", "effects.csv", "parameters.csv", "summary.md"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    snprintf(cmd, sizeof cmd, "cmp %s/b/%s %s/c/%s", dir, files[i], dir, files[i]);
    cr_assert_eq(run(cmd, &out, 1), 0, "%s differ: %s", files[i], out);
    free(out);
  }
  /* ... and another seed other samples */
  snprintf(cmd, sizeof cmd, "cmp -s %s/a/sweeps/screen-0.yaml %s/b/sweeps/screen-0.yaml", dir, dir); /* r = 4 in both */
  cr_assert_neq(run(cmd, &out, 1), 0, "seeds 7 and 3 drew the same points");
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(run(cmd, &out, 1), 0);
  free(out);
}

/* A budget too small to screen (one trajectory of 4 points plus 18 for the interval and swings):
 * one quasi-random sample over every parameter, ranked by rank correlation; the largest term
 * (link latency, |rho| about 0.84 against 0.47 and 0.28) comes first. */
Test(uncertainty, small_budget_samples_everything, .timeout = 120)
{
  char dir[] = "/tmp/icsim-uq-small-XXXXXX", cmd[1024], c[10][128];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(cmd, sizeof cmd, ICSIM " uncertainty -p " ICSIM_SRC "/tests/data/uq-pingpong.yaml -n 2 --budget 20 "
           "--seed 5 -j 2 -o %s osu_latency -m 1:1 -i 10 -x 1", dir);
  char *sum = study_file(cmd, dir, "summary.md");
  cr_assert(strstr(sum, "13 sample points over all 3 ranged parameters"), "%s", sum);
  free(sum);
  char path[512];
  snprintf(path, sizeof path, "%s/uncertainty.csv", dir);
  char *unc = slurp(path);
  csv_cells(unc, "osu_latency,1,", c, 8);
  cr_assert_eq(atoi(c[6]), 13);
  cr_assert(!strncmp(c[7], "network/link-latency;", 21), "top: %s", c[7]);
  free(unc);
  remove_tree(dir);
}

/* A validation case: its metric's figures as validate extracts them (here scaled to a round trip). */
Test(uncertainty, a_case_runs_its_metrics, .timeout = 120)
{
  char dir[] = "/tmp/icsim-uq-case-XXXXXX", cmd[1024], c[10][128];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(cmd, sizeof cmd, ICSIM " uncertainty --case " ICSIM_SRC "/tests/data/cases/uq-pingpong.yaml --budget 40 "
           "-j 2 -o %s", dir);
  char *unc = study_file(cmd, dir, "uncertainty.csv");
  csv_cells(unc, "rtt_us,1,", c, 8);
  /* the round trip: twice the one-way sum of tests/data/uq-pingpong.yaml, its terms at their values */
  double one_way = atof(c[2]) / 2;
  cr_assert(one_way > 2 * 0.5 + 0.5 + 1 + 1 && one_way < 2 * 0.5 + 0.5 + 1 + 1 + 0.1, "point %s", c[2]);
  cr_assert(atof(c[4]) < atof(c[2]) && atof(c[5]) > atof(c[2]), "interval %s .. %s around %s", c[4], c[5], c[2]);
  cr_assert(!strncmp(c[7], "network/link-latency;", 21), "top: %s", c[7]);
  free(unc);
  remove_tree(dir);
}

Test(uncertainty, refuses_what_it_cannot_do)
{
  char *out;
  /* no ranged parameter */
  int rc = run(ICSIM " uncertainty -p " ICSIM_SRC "/tests/data/pingpong-2node.yaml -n 2 -o /tmp/icsim-uq-none "
               "osu_latency -m 1:1", &out, 1);
  cr_assert_eq(rc, 2, "%s", out);
  cr_assert(strstr(out, "no parameter has a range"), "%s", out);
  free(out);
  /* a budget too small to screen */
  rc = run(ICSIM " uncertainty -p " ICSIM_SRC "/tests/data/uq-pingpong.yaml -n 2 --budget 8 -o /tmp/icsim-uq-none "
           "osu_latency -m 1:1", &out, 1);
  cr_assert_eq(rc, 2, "%s", out);
  cr_assert(strstr(out, "--budget 8 is too small"), "%s", out); /* 1 + 8 + 6 at the least */
  free(out);
  rc = run(ICSIM " uncertainty -p x.yaml", &out, 1);
  cr_assert_eq(rc, 2, "%s", out);
  free(out);
  run("rm -rf /tmp/icsim-uq-none", &out, 1);
  free(out);
}
