/* Case files: a good one loads; each bad one is refused with file:line:column and the fix.
 * Also: the shipped cases load, and validate/README.md's key table is the schema's. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "validate.h"

#define DATA ICSIM_SRC "/tests/data/cases/"

/* Load NAME from tests/data/cases: the error must start with its path and LOCATION
 * (":line:column: ") and contain each of the NULL-terminated NEEDLES. */
static void expect_error(const char *name, const char *location, ...)
{
  char path[512], err[1024] = "", where[600];
  struct icsim_yfile y;
  snprintf(path, sizeof path, DATA "%s", name);
  cr_assert_neq(validate_case_load(path, &y, err, sizeof err), 0, "%s should be refused", name);
  snprintf(where, sizeof where, "%s%s", path, location);
  cr_assert(!strncmp(err, where, strlen(where)), "error '%s' should start with '%s'", err, where);
  va_list ap;
  va_start(ap, location);
  for (const char *needle; (needle = va_arg(ap, const char *));)
    cr_assert(strstr(err, needle), "error '%s' should contain '%s'", err, needle);
  va_end(ap);
}

Test(validate_case, good_case_loads)
{
  struct icsim_yfile y;
  char err[1024] = "";
  cr_assert_eq(validate_case_load(DATA "good.yaml", &y, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(case_get(&y, "metrics/%d/name", 1), "is_efficiency");
  cr_assert_str_eq(case_item(&y, "metrics/%d/breakdown/%d", 1, 1), "Comm time");
  cr_assert_eq(case_num(&y, "metrics/%d/scale", 0, 1), 2);
  cr_assert_eq(case_num(&y, "metrics/%d/scale", 1, 1), 1, "absent: the default given");
  cr_assert_null(case_get(&y, "metrics/%d/name", 2));
  icsim_yaml_free(&y);
}

Test(validate_case, unknown_key_names_the_closest)
{
  expect_error("unknown-key.yaml", ":9:5: ", "unknown key 'metrics/0/tolerence'",
               "did you mean 'metrics/0/tolerance'?", NULL);
}

Test(validate_case, key_at_the_wrong_level_says_where_it_belongs)
{
  expect_error("wrong-level.yaml", ":2:1: ", "'tolerance' belongs in 'metrics/#/tolerance'", NULL);
}

Test(validate_case, missing_key_names_the_entry)
{
  expect_error("missing-key.yaml", ":5:5: ", "metrics/0 (rtt_us) has no 'tolerance'", "add 'tolerance: ...'", NULL);
  expect_error("missing-platform.yaml", ":1:1: ", "missing required key 'platform'", "add 'platform: ...'", NULL);
  /* this one used to crash the command: the tolerance was read without being checked */
  expect_error("aggregate-without-tolerance.yaml", ":11:5: ", "aggregates/0 (mean) has no 'tolerance'", NULL);
  expect_error("no-metrics.yaml", ":1:1: ", "no metrics", "add a 'metrics:' list", NULL);
}

Test(validate_case, bad_tolerance_says_how_to_write_it)
{
  expect_error("bad-tolerance.yaml", ":9:16: ", "metrics/0/tolerance: '10%' takes no unit", "0.10 = 10%", NULL);
  expect_error("tolerance-range.yaml", ":9:16: ", "5 is out of range; allowed is 0 to 1", "0.10 = 10%", NULL);
}

Test(validate_case, wrong_shapes_and_missing_partners)
{
  expect_error("list-as-value.yaml", ":8:5: ", "'metrics/0/breakdown' is a list", "[a, b]", NULL);
  expect_error("field-without-x.yaml", ":8:5: ", "needs 'metrics/0/x-format'", NULL);
}

Test(validate_case, published_table_rows_of_one_metric)
{
  struct point *p;
  size_t n;
  char err[1024] = "";
  cr_assert_eq(load_published(ICSIM_SRC "/validate/data/sumimoto-rtt.csv", "rtt_us", &p, &n, err, sizeof err), 0,
               "%s", err);
  cr_assert_eq(n, 1);
  cr_assert_str_eq(p[0].x, "0");
  cr_assert(p[0].has_value && p[0].value == 43.328);
  free(p);
  cr_assert_neq(load_published(ICSIM_SRC "/validate/data/sumimoto-rtt.csv", "rtt_ms", &p, &n, err, sizeof err), 0);
  cr_assert(strstr(err, "no rows for metric 'rtt_ms'"), "%s", err);
}

Test(validate_case, shipped_cases_load)
{
  glob_t g;
  cr_assert_eq(glob(ICSIM_SRC "/validate/cases/*.yaml", 0, NULL, &g), 0);
  for (size_t i = 0; i < g.gl_pathc; i++) {
    struct icsim_yfile y;
    char err[1024] = "";
    cr_assert_eq(validate_case_load(g.gl_pathv[i], &y, err, sizeof err), 0, "%s", err);
    icsim_yaml_free(&y);
  }
  globfree(&g);
}

/* The README's key table is printed from the schema (`icsim validate --keys`): keep it so. */
Test(validate_case, readme_key_table_is_the_schema)
{
  char *table, *readme;
  size_t len;
  FILE *f = open_memstream(&table, &len);
  validate_case_keys_markdown(f);
  fclose(f);
  f = fopen(ICSIM_SRC "/validate/README.md", "r");
  cr_assert(f);
  readme = calloc(1, 1 << 20);
  fread(readme, 1, (1 << 20) - 1, f);
  fclose(f);
  cr_assert(strstr(readme, table), "validate/README.md lacks the table of `icsim validate --keys`:\n%s", table);
  free(readme);
  free(table);
}

/* A case of many entries loads in one pass: the check that each entry has its required keys
 * looked through every key for every entry (14 000 entries: 10^9 comparisons). */
Test(validate_case, many_entries_load)
{
  char path[64];
  snprintf(path, sizeof path, "/tmp/icsim-case-%d.yaml", (int)getpid());
  FILE *f = fopen(path, "w");
  fputs("case: many\ntitle: many entries\nplatform: platforms/score-gige-xeon.yaml\nmetrics:\n", f);
  for (int i = 0; i < 14000; i++)
    fputs("  - {name: m, workload: w, ranks: 2, published: p.csv, tolerance: 0.1}\n", f);
  fputs("  - {name: m, workload: w, ranks: 2, published: p.csv}\n", f); /* line 14005 lacks tolerance */
  fclose(f);
  struct icsim_yfile y;
  char err[1024] = "";
  cr_assert_neq(validate_case_load(path, &y, err, sizeof err), 0);
  cr_assert(strstr(err, ":14005:6: metrics/14000 (m) has no 'tolerance'"), "%s", err);
  unlink(path);
}

Test(validate_case, claim_needs_a_bound)
{
  expect_error("claim-without-bound.yaml", ":11:5: ", "claim 'far_above' has no bound", "'at-least' or 'at-most'", NULL);
  expect_error("claim-empty-bounds.yaml", ":11:5: ", "at-least 2 is above at-most 1", NULL);
  expect_error("claim-unknown-metric.yaml", ":14:11: ", "'b' is not a metric of this case", NULL);
}

/* A claim is the ratio of two metrics' simulated values at its x: 6 / 2 = 3 passes "at least 2"
 * and fails "at most 2.5"; a metric without a value at x makes it fail with the reason. */
Test(validate_case, claims_judge_the_ratio_of_two_curves)
{
  struct icsim_yfile y;
  char err[1024] = "";
  cr_assert_eq(validate_case_load(DATA "claims.yaml", &y, err, sizeof err), 0, "%s", err);
  struct rows rs = {0};
  const char *xs[2] = {"8", "16"};
  double va[2] = {6, 1}, vb[2] = {2, 1};
  for (int m = 0; m < 2; m++)
    for (int i = 0; i < 2; i++) {
      rs.n++;
      rs.r = realloc(rs.r, rs.n * sizeof *rs.r);
      struct row *r = &rs.r[rs.n - 1];
      memset(r, 0, sizeof *r);
      snprintf(r->case_name, sizeof r->case_name, "claims");
      snprintf(r->metric, sizeof r->metric, "%s", m ? "b" : "a");
      snprintf(r->x, sizeof r->x, "%s", xs[i]);
      r->has_simulated = 1;
      r->simulated = m ? vb[i] : va[i];
      r->status = "blind";
    }
  rs.cap = rs.n;
  for (int c = 0; c < 3; c++)
    cr_assert_eq(compare_claim(&y, c, "claims", &rs, err, sizeof err), 0);
  cr_assert_str_eq(rs.r[4].status, "pass");
  cr_assert_float_eq(rs.r[4].simulated, 3, 1e-12);
  cr_assert(strstr(rs.r[4].note, "needs >= 2"), "%s", rs.r[4].note);
  cr_assert_str_eq(rs.r[5].status, "fail");
  cr_assert(strstr(rs.r[5].note, "needs in [0.5, 2.5]"), "%s", rs.r[5].note);
  cr_assert_str_eq(rs.r[6].status, "fail");
  cr_assert(strstr(rs.r[6].note, "no simulated value at x = 32"), "%s", rs.r[6].note);
  free(rs.r);
  icsim_yaml_free(&y);
}
