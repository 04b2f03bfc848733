/* Case files (validate/cases/NAME.yaml) and their published tables (validate/data/NAME.csv).
 *
 * The schema is one descriptor table, as for platforms and stacks: every check below, its
 * messages and the key table of validate/README.md (`icsim validate --keys`) come from it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"
#include "paths.h"
#include "yaml_schema.h"

#define REQUIRED NULL /* no default: must be given (in every entry of its list) */
#define ABSENT ""     /* optional, nothing when left out */
#define TEXT(key, def, help) {key, ICSIM_P_STRING, 0, 0, 0, def, NULL, help, NULL, ICSIM_NO_FIELD}
#define NUMBER(key, lo, hi, def, help)                                                                   \
  {key, ICSIM_P_QUANTITY, ICSIM_DIM_NONE, lo, hi, def, NULL, help, NULL, ICSIM_NO_FIELD}
#define COUNT(key, lo, hi, def, help) {key, ICSIM_P_INT, 0, lo, hi, def, NULL, help, NULL, ICSIM_NO_FIELD}

const struct icsim_param_desc validate_case_table[] = {
    TEXT("case", REQUIRED, "name of the case (the file's stem)"),
    TEXT("title", REQUIRED, "one-line title"),
    TEXT("source", ABSENT, "where the table comes from"),
    TEXT("platform", REQUIRED, "platform file the metrics run on, from the source root"),
    TEXT("sets/#", ABSENT, "`KEY=VALUE` parameter overrides for every run (as `icsim run --set`)"),
    TEXT("metrics/#/name", REQUIRED,
         "metric name in summary.csv; entries sharing a name are runs of one table (the first one's "
         "`published`, `tolerance`, `calibrates` apply)"),
    TEXT("metrics/#/unit", ABSENT, "unit of the value, for the plot"),
    TEXT("metrics/#/workload", REQUIRED,
         "program to run: a name under build/workloads, or a path from the source root"),
    TEXT("metrics/#/args", ABSENT, "its arguments"),
    COUNT("metrics/#/ranks", 1, 65536, REQUIRED, "number of ranks"),
    TEXT("metrics/#/place", "block", "placement, as `icsim run --place`"),
    TEXT("metrics/#/platform", ABSENT, "another platform file for this entry (default: the case's)"),
    TEXT("metrics/#/sets/#", ABSENT,
         "`KEY=VALUE` overrides for this entry's runs, after the case's (e.g. a what-if curve beside the model's)"),
    COUNT("metrics/#/column", 1, 32, "2", "which column of the workload's rows `x v1 v2 ...` is the value"),
    NUMBER("metrics/#/scale", 0, 1e12, "1",
           "factor on the value, e.g. 2 to turn osu_latency's one-way time into a round trip"),
    TEXT("metrics/#/x-format", ABSENT,
         "x built from the columns, `{k}` = column k (`m={1},cf={2}`); default column 1; with `field`, the x of "
         "the run's one point"),
    TEXT("metrics/#/field", ABSENT,
         "take the value from a `Name = value` output line instead of a column (needs `x-format`)"),
    TEXT("metrics/#/breakdown/#", ABSENT, "further `Name = value` lines shown beside the value in the report"),
    {"metrics/#/derive", ICSIM_P_ENUM, 0, 0, 0, ABSENT, NULL,
     "`efficiency` turns times t(x) into parallel efficiency t(x0) x0 / (x t(x)), x0 the smallest x run",
     "efficiency", ICSIM_NO_FIELD},
    TEXT("metrics/#/published", REQUIRED, "CSV of published values, `metric,x,published` (validate/data/)"),
    NUMBER("metrics/#/tolerance", 0, 1, REQUIRED, "relative tolerance, 0.10 = 10%"),
    TEXT("metrics/#/note", ABSENT, "shown beside the points held back (blind) that have no other note"),
    TEXT("metrics/#/calibrates/parameters/#", ABSENT, "parameters fitted on this metric"),
    TEXT("metrics/#/calibrates/points/#", ABSENT, "the x they were fitted on (marked in the report)"),
    TEXT("aggregates/#/name", REQUIRED,
         "a value computed from other metrics' simulated points, compared like a metric"),
    TEXT("aggregates/#/unit", ABSENT, "unit of the value, for the reader of the file"),
    TEXT("aggregates/#/of/#", REQUIRED, "metrics of this case whose simulated values at `x` are averaged"),
    TEXT("aggregates/#/x", REQUIRED, "the x they are taken at"),
    TEXT("aggregates/#/published", REQUIRED, "CSV of published values with a row for this `name` at `x`"),
    NUMBER("aggregates/#/tolerance", 0, 1, REQUIRED, "relative tolerance, 0.10 = 10%"),
    TEXT("aggregates/#/note", ABSENT, "a remark for the reader of the file (not in the report)"),
    TEXT("claims/#/name", REQUIRED,
         "a published qualitative claim, checked as a ratio of two metrics' simulated values at one x"),
    TEXT("claims/#/text", REQUIRED, "the claim in the source's words (ours), shown in the report"),
    TEXT("claims/#/of", REQUIRED, "metric whose simulated value at `x` is the numerator"),
    TEXT("claims/#/over", REQUIRED, "metric whose simulated value at `x` is the denominator"),
    TEXT("claims/#/x", REQUIRED, "the x both are taken at"),
    NUMBER("claims/#/at-least", 0, 1e12, ABSENT, "the claim holds when the ratio is at least this"),
    NUMBER("claims/#/at-most", 0, 1e12, ABSENT, "the claim holds when the ratio is at most this"),
    TEXT("claims/#/why", REQUIRED, "why these bounds say the claim (what in the source they read)"),
    TEXT("excluded/#/metric", REQUIRED, "metric of a published point the model does not claim"),
    TEXT("excluded/#/x", REQUIRED, "x of that point"),
    TEXT("excluded/#/reason", REQUIRED, "why the model does not claim it, shown with the status `excluded`"),
    NUMBER("acceptance/pass-fraction", 0, 1, "1", "share of the compared points that must pass, 0.9 = 90%"),
    NUMBER("acceptance/max-excluded-fraction", 0, 1, "1",
           "largest share of the published points that may be excluded, 0.2 = 20%"),
};
const size_t validate_case_table_len = sizeof validate_case_table / sizeof validate_case_table[0];

static const struct icsim_schema case_schema = {validate_case_table,
                                                sizeof validate_case_table / sizeof validate_case_table[0]};

/* Rules between keys, which single rows cannot say. */
static int check_rules(const struct icsim_yfile *y, char *err, size_t errlen)
{
  if (!icsim_schema_present(y, "metrics/#/name")) { /* a case measures something */
    snprintf(err, errlen, "%s:1:1: the case has no metrics; add a 'metrics:' list of entries with name, workload, "
             "ranks, published and tolerance", y->path);
    return -1;
  }
  for (int c = 0; case_get(y, "claims/%d/name", c); c++) {
    const struct icsim_yentry *e = icsim_yaml_get_fmt(y, "claims/%d/name", c);
    const char *name = case_get(y, "claims/%d/name", c);
    const char *lo = case_get(y, "claims/%d/at-least", c), *hi = case_get(y, "claims/%d/at-most", c);
    if (!lo && !hi) {
      snprintf(err, errlen, "%s:%d:%d: claim '%s' has no bound; give 'at-least' or 'at-most' (or both) for the "
               "ratio of/over", icsim_path_shown(y->path), e->key_line, e->key_column, name);
      return -1;
    }
    if (lo && hi && strtod(lo, NULL) > strtod(hi, NULL)) {
      snprintf(err, errlen, "%s:%d:%d: claim '%s': at-least %s is above at-most %s; no ratio could hold", icsim_path_shown(y->path),
               e->key_line, e->key_column, name, lo, hi);
      return -1;
    }
    const char *side[2] = {"of", "over"};
    for (int k = 0; k < 2; k++) {
      char key[64];
      snprintf(key, sizeof key, "claims/%%d/%s", side[k]);
      const char *metric = case_get(y, key, c);
      int found = 0;
      for (int m = 0; !found && case_get(y, "metrics/%d/name", m); m++)
        found = !strcmp(case_get(y, "metrics/%d/name", m), metric);
      if (!found) {
        const struct icsim_yentry *v = icsim_yaml_get_fmt(y, key, c);
        snprintf(err, errlen, "%s:%d:%d: claim '%s': '%s' is not a metric of this case; name one of its metrics' "
                 "'name' values", icsim_path_shown(y->path), v->line, v->column, name, metric);
        return -1;
      }
    }
  }
  for (size_t i = 0; i < y->n; i++) {
    const struct icsim_yentry *e = &y->e[i];
    char xf[300];
    if (!icsim_schema_key_matches(e->key, "metrics/#/field"))
      continue;
    snprintf(xf, sizeof xf, "%.*s/x-format", (int)(strlen(e->key) - strlen("/field")), e->key);
    if (!icsim_yaml_get(y, xf)) {
      snprintf(err, errlen, "%s:%d:%d: '%s' needs '%s' beside it: the x of the run's one point (e.g. x-format: \"8\")",
               icsim_path_shown(y->path), e->key_line, e->key_column, e->key, xf);
      return -1;
    }
  }
  return 0;
}

int validate_case_load(const char *path, struct icsim_yfile *y, char *err, size_t errlen)
{
  if (icsim_yaml_load_as("case", path, y, err, errlen))
    return -1;
  if (icsim_schema_check(&case_schema, y, err, errlen) || check_rules(y, err, errlen)) {
    icsim_yaml_free(y);
    return -1;
  }
  return 0;
}

const struct icsim_yentry *icsim_yaml_get_fmt(const struct icsim_yfile *y, const char *fmt, int i)
{
  char key[256];
  snprintf(key, sizeof key, fmt, i);
  return icsim_yaml_get(y, key);
}

const char *case_get(const struct icsim_yfile *y, const char *fmt, int i)
{
  char key[256];
  snprintf(key, sizeof key, fmt, i);
  const struct icsim_yentry *e = icsim_yaml_get(y, key);
  return e ? e->value : NULL;
}

const char *case_item(const struct icsim_yfile *y, const char *fmt, int i, int k)
{
  char key[256];
  snprintf(key, sizeof key, fmt, i, k);
  const struct icsim_yentry *e = icsim_yaml_get(y, key);
  return e ? e->value : NULL;
}

double case_num(const struct icsim_yfile *y, const char *fmt, int i, double def)
{
  const char *v = case_get(y, fmt, i);
  return v ? strtod(v, NULL) : def;
}

/* The key table of validate/README.md. */
void validate_case_keys_markdown(FILE *f) { icsim_schema_markdown(&case_schema, f); }
