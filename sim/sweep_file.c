/* Sweep files (a study's platform, program, axes, figures and plots) and their points.
 *
 * The schema is one descriptor table, checked by yaml_schema.c like the validation cases; the
 * rules between keys and the values of the axes (each against the parameter it sets, with its
 * unit and bounds) are checked here, so that a mistake is reported at its line before anything
 * runs. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"
#include "paths.h"
#include "sweep.h"
#include "yaml_schema.h"

#define REQUIRED NULL
#define ABSENT ""
#define TEXT(key, def, help) {key, ICSIM_P_STRING, 0, 0, 0, def, NULL, help, NULL, ICSIM_NO_FIELD}
#define NUMBER(key, lo, hi, def, help)                                                                   \
  {key, ICSIM_P_QUANTITY, ICSIM_DIM_NONE, lo, hi, def, NULL, help, NULL, ICSIM_NO_FIELD}
#define COUNT(key, lo, hi, def, help) {key, ICSIM_P_INT, 0, lo, hi, def, NULL, help, NULL, ICSIM_NO_FIELD}
#define CHOICE(key, def, choices, help) {key, ICSIM_P_ENUM, 0, 0, 0, def, NULL, help, choices, ICSIM_NO_FIELD}

static const struct icsim_param_desc sweep_table[] = {
    TEXT("sweep", REQUIRED, "name of the study: letters, digits, `.`, `_`, `-` (the Slurm job is icsim-NAME)"),
    TEXT("title", ABSENT, "one-line title, shown on the plots"),
    TEXT("platform", REQUIRED,
         "platform file; a relative path is looked up beside the sweep file, then from the source root; may use {VAR}"),
    TEXT("program", REQUIRED, "program to run: a workload's name (build/workloads) or a path; may use {VAR}"),
    TEXT("args", ABSENT, "its arguments, separated by spaces; may use {VAR}"),
    TEXT("ranks", REQUIRED, "number of MPI ranks (a whole number, or {VAR})"),
    TEXT("place", "block", "placement, as `icsim run --place`; may use {VAR}"),
    CHOICE("host-timing", "off", "on|off",
           "as `icsim run --host-timing`; off (the default) makes every point's figures reproducible bit for bit"),
    TEXT("sets/#", ABSENT, "`KEY=VALUE` parameter overrides for every point (as `icsim run --set`)"),
    CHOICE("combine", "cross", "cross|zip",
           "cross: every combination of the axes' values, the first axis varying slowest; zip: the i-th values of "
           "all axes together (axes of equal length)"),
    TEXT("axes/#/set", ABSENT, "a parameter key (see `icsim describe`): the axis passes `--set KEY=VALUE`"),
    TEXT("axes/#/var", ABSENT, "a variable name: its value replaces {NAME} in platform, program, args, ranks, place"),
    TEXT("axes/#/name", ABSENT, "the name of an axis of labelled variants (`variants`)"),
    TEXT("axes/#/values/#", ABSENT, "the axis' values, units accepted (`190us`, `64KiB`)"),
    TEXT("axes/#/range/from", ABSENT, "first value of a range, units accepted"),
    TEXT("axes/#/range/to", ABSENT, "last value of a range (included when the steps reach it)"),
    TEXT("axes/#/range/step", ABSENT, "added at each step (same unit as from)"),
    NUMBER("axes/#/range/times", 1.000001, 1e9, ABSENT, "multiplied at each step (a geometric range: 1, 2, 4, ...)"),
    TEXT("axes/#/variants/#/label", REQUIRED, "the variant's name, its value in results.csv"),
    TEXT("axes/#/variants/#/sets/#", ABSENT, "`KEY=VALUE` overrides of this variant"),
    TEXT("axes/#/variants/#/args", ABSENT, "arguments this variant adds after `args`; may use {VAR}"),
    TEXT("figures/#/name", REQUIRED, "column of results.csv"),
    TEXT("figures/#/unit", ABSENT, "its unit, shown in the column header and on the plots"),
    TEXT("figures/#/row", ABSENT,
         "the output row `x v1 v2 ...` whose x is this (may use {VAR}); default: the last row"),
    COUNT("figures/#/column", 1, 32, "2", "which column of that row"),
    TEXT("figures/#/field", ABSENT, "take the value of a `Name = value` output line instead of a row"),
    TEXT("figures/#/stats", ABSENT,
         "take a `--stats` counter instead: `simulated_time_s` or SECTION/NAME (`mpi/messages`, `rapidio/segment_retries`)"),
    NUMBER("figures/#/scale", -1e15, 1e15, "1", "factor on the value"),
    TEXT("figures/#/where/#", ABSENT,
         "`AXIS=VALUE`: the figure exists only at the points with that value (its cell is empty elsewhere), e.g. "
         "a figure of one of two programs"),
    TEXT("plots/#/name", REQUIRED, "file name of the plot: DIR/NAME.png"),
    TEXT("plots/#/title", ABSENT, "its title (default: the sweep's title and the figure)"),
    TEXT("plots/#/x", REQUIRED, "axis on the x axis (the axis' key, variable or name)"),
    TEXT("plots/#/y", ABSENT, "figure on the y axis (or give stack)"),
    TEXT("plots/#/stack/#", ABSENT,
         "figures drawn stacked on the y axis instead of y, first at the bottom (where a total comes from, e.g. "
         "the --stats breakdown); `where` must leave one point per x"),
    TEXT("plots/#/where/#", ABSENT, "`AXIS=VALUE`: only the points with that value; one line per value of the other axes"),
    CHOICE("plots/#/log", "none", "none|x|y|xy", "logarithmic scales"),
};
static const struct icsim_schema sweep_schema = {sweep_table, sizeof sweep_table / sizeof sweep_table[0]};

void sweep_keys_markdown(FILE *f) { icsim_schema_markdown(&sweep_schema, f); }

static const struct icsim_yentry *ventry(const struct sweep *s, const char *fmt, va_list ap)
{
  char key[512];
  vsnprintf(key, sizeof key, fmt, ap);
  return icsim_yaml_get(&s->y, key);
}

const struct icsim_yentry *sweep_entry(const struct sweep *s, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  const struct icsim_yentry *e = ventry(s, fmt, ap);
  va_end(ap);
  return e;
}

const char *sweep_get(const struct sweep *s, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  const struct icsim_yentry *e = ventry(s, fmt, ap);
  va_end(ap);
  return e ? e->value : NULL;
}

static int count_list(const struct sweep *s, const char *fmt_with_index)
{
  int n = 0;
  char key[512], prefix[520];
  for (;; n++) {
    snprintf(key, sizeof key, fmt_with_index, n);
    snprintf(prefix, sizeof prefix, "%s/", key);
    int found = 0;
    for (size_t i = 0; i < s->y.n && !found; i++)
      found = !strcmp(s->y.e[i].key, key) || !strncmp(s->y.e[i].key, prefix, strlen(prefix));
    if (!found)
      return n;
  }
}

static int fail_at(const struct sweep *s, const struct icsim_yentry *e, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail_at(const struct sweep *s, const struct icsim_yentry *e, char *err, size_t errlen, const char *fmt, ...)
{
  int k = e ? snprintf(err, errlen, "%s:%d:%d: ", icsim_path_shown(s->path), e->line, e->column) : snprintf(err, errlen, "%s:1:1: ", icsim_path_shown(s->path));
  va_list ap;
  va_start(ap, fmt);
  if (k >= 0 && (size_t)k < errlen)
    vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
  va_end(ap);
  return -1;
}

/* Where a key's entry starts (its first key), for messages about the entry as a whole. */
static const struct icsim_yentry *first_under(const struct sweep *s, const char *prefix)
{
  size_t len = strlen(prefix);
  for (size_t i = 0; i < s->y.n; i++)
    if (!strncmp(s->y.e[i].key, prefix, len) && (s->y.e[i].key[len] == '/' || !s->y.e[i].key[len]))
      return &s->y.e[i];
  return NULL;
}

static int var_axis(const struct sweep *s, const char *name, size_t len)
{
  for (int a = 0; a < s->naxes; a++)
    if (s->axes[a].kind == SWEEP_AXIS_VAR && strlen(s->axes[a].name) == len && !strncmp(s->axes[a].name, name, len))
      return a;
  return -1;
}

/* Every {NAME} of the value at E names a variable axis. */
static int check_template(const struct sweep *s, const struct icsim_yentry *e, char *err, size_t errlen)
{
  if (!e)
    return 0;
  for (const char *p = strchr(e->value, '{'); p; p = strchr(p + 1, '{')) {
    const char *q = strchr(p, '}');
    if (!q)
      return fail_at(s, e, err, errlen, "'%s': '{' without '}'; write {NAME} for a variable axis", e->key);
    if (var_axis(s, p + 1, (size_t)(q - p - 1)) < 0)
      return fail_at(s, e, err, errlen,
                     "'%s' uses {%.*s}, but no axis has `var: %.*s`; add that axis or correct the name", e->key,
                     (int)(q - p - 1), p + 1, (int)(q - p - 1), p + 1);
  }
  return 0;
}

char *sweep_subst(const struct sweep *s, const struct sweep_point *p, const char *tmpl)
{
  size_t cap = strlen(tmpl) + 1, len = 0;
  char *out = malloc(cap);
  for (const char *c = tmpl; *c;) {
    const char *q = *c == '{' ? strchr(c, '}') : NULL;
    int a = q ? var_axis(s, c + 1, (size_t)(q - c - 1)) : -1;
    const char *piece = a >= 0 ? s->axes[a].text[p->vi[a]] : c;
    size_t plen = a >= 0 ? strlen(piece) : 1;
    if (len + plen + 1 > cap)
      out = realloc(out, cap = 2 * (len + plen + 1));
    memcpy(out + len, piece, plen);
    len += plen;
    c = a >= 0 ? q + 1 : c + 1;
  }
  out[len] = '\0';
  return out;
}

void sweep_point_label(const struct sweep *s, const struct sweep_point *p, char *buf, size_t len)
{
  size_t k = 0;
  buf[0] = '\0';
  for (int a = 0; a < s->naxes && k < len; a++)
    k += (size_t)snprintf(buf + k, len - k, "%s%s=%s", a ? ", " : "", s->axes[a].name, s->axes[a].text[p->vi[a]]);
}

/* A relative path beside the sweep file, else from the source root. Malloc'ed, NULL if neither. */
static char *resolve_path(const struct sweep *s, const char *rel)
{
  char buf[PATH_MAX * 2], real[PATH_MAX];
  if (rel[0] == '/')
    snprintf(buf, sizeof buf, "%s", rel);
  else
    snprintf(buf, sizeof buf, "%s/%s", s->dir, rel);
  if (rel[0] != '/' && access(buf, R_OK) != 0)
    snprintf(buf, sizeof buf, "%s/%s", ICSIM_SRCDIR, rel);
  return access(buf, R_OK) == 0 && realpath(buf, real) ? strdup(real) : NULL;
}

static void axis_push(struct sweep_axis *ax, const char *text, const char *cell)
{
  ax->text = realloc(ax->text, (size_t)(ax->n + 1) * sizeof *ax->text);
  ax->cell = realloc(ax->cell, (size_t)(ax->n + 1) * sizeof *ax->cell);
  ax->text[ax->n] = strdup(text);
  ax->cell[ax->n] = strdup(cell);
  ax->n++;
}

/* The dimension a variable's value is written in: the first that parses it (plain numbers first). */
static int var_dim(const char *text, enum icsim_dim *dim, double *num)
{
  static const enum icsim_dim dims[] = {ICSIM_DIM_NONE, ICSIM_DIM_SIZE, ICSIM_DIM_TIME, ICSIM_DIM_BANDWIDTH,
                                        ICSIM_DIM_FREQUENCY, ICSIM_DIM_SPEED};
  char why[256];
  for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
    if (icsim_parse_quantity(text, dims[i], num, why, sizeof why) == 0) {
      *dim = dims[i];
      return 0;
    }
  return -1;
}

/* Text (passed on) and cell (results.csv) of a value NUM of parameter D, or of a variable when D
 * is NULL; WRITTEN: the value as the file gives it, NULL for a value generated by a range. */
static void value_of(const struct icsim_param_desc *d, double num, const char *written, char *text, size_t tlen,
                     char *cell, size_t clen)
{
  if (!d) { /* a variable: programs get numbers in base units (64KiB -> 65536) */
    snprintf(text, tlen, "%.15g", num);
    snprintf(cell, clen, "%.15g", num);
  } else if (d->type == ICSIM_P_QUANTITY || d->type == ICSIM_P_INT) {
    if (written)
      snprintf(text, tlen, "%s", written);
    else if (d->type == ICSIM_P_QUANTITY)
      icsim_format_quantity(num, d->dim, text, tlen);
    else
      snprintf(text, tlen, "%.0f", num);
    snprintf(cell, clen, d->type == ICSIM_P_INT ? "%.0f" : "%.10g", num);
  } else { /* bool, enum, text: as written */
    snprintf(text, tlen, "%s", written);
    snprintf(cell, clen, "%s", written);
  }
}

/* Values of a set or var axis, from `values` or `range`. D: the parameter (NULL for a variable). */
static int axis_values(struct sweep *s, struct sweep_axis *ax, const struct icsim_param_desc *d, char *err,
                       size_t errlen)
{
  int a = ax->yi;
  char text[256], cell[256], why[512];
  enum icsim_dim dim = ICSIM_DIM_NONE, dim0 = ICSIM_DIM_NONE;
  bool numeric = true; /* a variable whose values all read as numbers of one dimension */
  char fmt[64];
  snprintf(fmt, sizeof fmt, "axes/%d/values/%%d", a);
  int nv = count_list(s, fmt);
  if (nv > 0) {
    for (int v = 0; v < nv; v++) {
      const struct icsim_yentry *e = sweep_entry(s, "axes/%d/values/%d", a, v);
      double num = 0;
      if (!e)
        return fail_at(s, first_under(s, fmt), err, errlen, "axis values must be single values");
      if (d) {
        if (icsim_param_parse(d, e->value, &num, why, sizeof why))
          return fail_at(s, e, err, errlen, "%s: %s (%s)", ax->name, why, d->help);
        value_of(d, num, e->value, text, sizeof text, cell, sizeof cell);
        axis_push(ax, text, cell);
      } else { /* bare numbers go with values of any one unit (0, 1KiB, 4KiB) */
        if (var_dim(e->value, &dim, &num) || (dim != ICSIM_DIM_NONE && dim0 != ICSIM_DIM_NONE && dim != dim0))
          numeric = false;
        dim0 = dim != ICSIM_DIM_NONE ? dim : dim0;
        axis_push(ax, e->value, e->value);
      }
    }
    if (!d && numeric) /* numbers with units reach the program in base units */
      for (int v = 0; v < ax->n; v++) {
        double num;
        var_dim(ax->text[v], &dim, &num);
        if (dim0 != ICSIM_DIM_NONE) {
          value_of(NULL, num, NULL, text, sizeof text, cell, sizeof cell);
          free(ax->text[v]);
          free(ax->cell[v]);
          ax->text[v] = strdup(text);
          ax->cell[v] = strdup(cell);
        }
      }
    if (!d && numeric && dim0 != ICSIM_DIM_NONE) {
      snprintf(ax->header, sizeof ax->header, "%s[%s]", ax->name, icsim_dim_unit(dim0));
      ax->dim = dim0;
    }
    return 0;
  }
  const struct icsim_yentry *from = sweep_entry(s, "axes/%d/range/from", a), *to = sweep_entry(s, "axes/%d/range/to", a),
                            *step = sweep_entry(s, "axes/%d/range/step", a),
                            *times = sweep_entry(s, "axes/%d/range/times", a);
  if (d && d->type != ICSIM_P_QUANTITY && d->type != ICSIM_P_INT)
    return fail_at(s, from, err, errlen, "%s is not a number: list its values with `values: [...]`", ax->name);
  double lo, hi, inc = 0, mul = 0;
  if (d)
    dim = d->type == ICSIM_P_QUANTITY ? d->dim : ICSIM_DIM_NONE;
  else if (var_dim(from->value, &dim, &lo))
    return fail_at(s, from, err, errlen, "range/from '%s' is not a number (with a unit); write e.g. 4KiB", from->value);
  const struct icsim_yentry *bad = NULL;
  if (icsim_parse_quantity(from->value, dim, &lo, why, sizeof why))
    bad = from;
  else if (icsim_parse_quantity(to->value, dim, &hi, why, sizeof why))
    bad = to;
  else if (step && icsim_parse_quantity(step->value, dim, &inc, why, sizeof why))
    bad = step;
  if (bad)
    return fail_at(s, bad, err, errlen, "%s: %s", bad->key, why);
  if (times)
    mul = strtod(times->value, NULL);
  if (step && inc <= 0)
    return fail_at(s, step, err, errlen, "range/step must be above 0; to count down, swap from and to");
  if (hi < lo)
    return fail_at(s, to, err, errlen, "range/to (%s) is below range/from (%s); swap them", to->value, from->value);
  if (times && lo <= 0)
    return fail_at(s, from, err, errlen, "a range with `times` starts above 0; give from > 0");
  for (int k = 0;; k++) {
    double v = times ? lo * pow(mul, k) : lo + k * inc;
    v = strtod((snprintf(text, sizeof text, "%.12g", v), text), NULL); /* 0.1 + 2 x 0.1 is 0.3 */
    if (v > hi * (1 + 1e-12))
      break;
    if (k >= 100000)
      return fail_at(s, step ? step : times, err, errlen, "the range has more than 100000 values; take a larger step");
    if (d) {
      double num;
      value_of(d, v, NULL, text, sizeof text, cell, sizeof cell);
      if (d->type == ICSIM_P_INT && v != floor(v))
        return fail_at(s, step ? step : times, err, errlen, "%s takes whole numbers; the range reaches %.12g", ax->name, v);
      if (icsim_param_parse(d, text, &num, why, sizeof why))
        return fail_at(s, from, err, errlen, "%s: the range reaches %s: %s", ax->name, text, why);
    } else {
      value_of(NULL, v, NULL, text, sizeof text, cell, sizeof cell);
    }
    axis_push(ax, text, cell);
  }
  if (!d && dim != ICSIM_DIM_NONE) {
    snprintf(ax->header, sizeof ax->header, "%s[%s]", ax->name, icsim_dim_unit(dim));
    ax->dim = dim;
  }
  return 0;
}

/* KEY=VALUE at E: a known parameter of platform PF with a valid value. */
static int check_set(const struct sweep *s, const struct icsim_platform *pf, const struct icsim_yentry *e, char *err,
                     size_t errlen)
{
  const char *eq = strchr(e->value, '=');
  if (!eq || eq == e->value)
    return fail_at(s, e, err, errlen, "'%s' is not KEY=VALUE; write e.g. rapidio/dedicated-queues=16", e->value);
  char key[256], why[512];
  snprintf(key, sizeof key, "%.*s", (int)(eq - e->value), e->value);
  struct icsim_pval *pv = icsim_params_find(&pf->params, key);
  if (!pv) {
    const char *near = icsim_params_closest(&pf->params, key);
    return fail_at(s, e, err, errlen, "unknown parameter '%s'%s%s%s (`icsim describe -p %s` lists them)", key,
                   near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "", pf->path);
  }
  double num;
  if (icsim_param_parse(pv->d, eq + 1, &num, why, sizeof why))
    return fail_at(s, e, err, errlen, "%s: %s (%s)", key, why, pv->d->help);
  return 0;
}

/* Which of a few keys under PREFIX are given: a bit mask in the order of NAMES. */
static unsigned given(const struct sweep *s, const char *prefix, const char *const *names, int n)
{
  unsigned m = 0;
  for (int i = 0; i < n; i++) {
    char k[256];
    snprintf(k, sizeof k, "%s/%s", prefix, names[i]);
    if (first_under(s, k))
      m |= 1u << i;
  }
  return m;
}

static int popcount(unsigned m) { return __builtin_popcount(m); }

/* The axes: kinds, names, values; variables first (the platform may depend on them). */
static int load_axes(struct sweep *s, char *err, size_t errlen)
{
  s->naxes = count_list(s, "axes/%d");
  if (s->naxes == 0)
    return fail_at(s, NULL, err, errlen, "the sweep has no axes; add an 'axes:' list (e.g. `- set: KEY` with `values: [...]`)");
  s->axes = calloc((size_t)s->naxes, sizeof *s->axes);
  static const char *const kinds[] = {"set", "var", "name"}, *const sources[] = {"values", "range", "variants"},
                           *const rparts[] = {"from", "to", "step", "times"};
  for (int a = 0; a < s->naxes; a++) {
    char prefix[64];
    snprintf(prefix, sizeof prefix, "axes/%d", a);
    const struct icsim_yentry *at = first_under(s, prefix);
    struct sweep_axis *ax = &s->axes[a];
    ax->yi = a;
    ax->line = at->key_line;
    ax->column = at->key_column;
    unsigned k = given(s, prefix, kinds, 3), src = given(s, prefix, sources, 3);
    if (popcount(k) != 1)
      return fail_at(s, at, err, errlen,
                     "axis %d needs exactly one of `set: KEY` (a parameter), `var: NAME` (a variable for {NAME}) or "
                     "`name: NAME` (labelled variants)", a);
    ax->kind = k == 1 ? SWEEP_AXIS_SET : k == 2 ? SWEEP_AXIS_VAR : SWEEP_AXIS_VARIANTS;
    ax->name = sweep_get(s, "axes/%d/%s", a, kinds[ax->kind]);
    snprintf(ax->header, sizeof ax->header, "%s", ax->name);
    if (ax->kind == SWEEP_AXIS_VARIANTS ? src != 4 : popcount(src & 3) != 1 || (src & 4))
      return fail_at(s, at, err, errlen, "axis '%s': %s", ax->name,
                     ax->kind == SWEEP_AXIS_VARIANTS ? "an axis of variants takes a `variants:` list only"
                                                     : "give exactly one of `values: [...]` or `range: {from, to, step or "
                                                       "times}` (variants belong to an axis with `name:`)");
    if (src & 2) {
      unsigned r = given(s, (snprintf(prefix, sizeof prefix, "axes/%d/range", a), prefix), rparts, 4);
      if ((r & 3) != 3 || popcount(r & 12) != 1)
        return fail_at(s, first_under(s, prefix), err, errlen,
                       "axis '%s': a range needs `from`, `to` and one of `step` (added) or `times` (multiplied)", ax->name);
    }
    if (strpbrk(ax->name, ",\"{}") || !ax->name[0])
      return fail_at(s, sweep_entry(s, "axes/%d/%s", a, kinds[ax->kind]), err, errlen,
                     "axis name '%s' may not contain commas, quotes or braces", ax->name);
    for (int b = 0; b < a; b++)
      if (!strcmp(s->axes[b].name, ax->name))
        return fail_at(s, sweep_entry(s, "axes/%d/%s", a, kinds[ax->kind]), err, errlen,
                       "two axes named '%s' (the first at line %d); merge their values into one", ax->name, s->axes[b].line);
  }
  for (int a = 0; a < s->naxes; a++) { /* variables and variants do not need the platform */
    struct sweep_axis *ax = &s->axes[a];
    if (ax->kind == SWEEP_AXIS_VAR) {
      for (const char *c = ax->name; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
          return fail_at(s, sweep_entry(s, "axes/%d/var", a), err, errlen,
                         "variable name '%s': use letters, digits, '_' and '-' (it is written {%s})", ax->name, ax->name);
      if (axis_values(s, ax, NULL, err, errlen))
        return -1;
    } else if (ax->kind == SWEEP_AXIS_VARIANTS) {
      char fmt[64];
      snprintf(fmt, sizeof fmt, "axes/%d/variants/%%d", a);
      int nv = count_list(s, fmt);
      for (int v = 0; v < nv; v++) {
        const char *label = sweep_get(s, "axes/%d/variants/%d/label", a, v);
        for (int w = 0; w < ax->n; w++)
          if (!strcmp(ax->text[w], label))
            return fail_at(s, sweep_entry(s, "axes/%d/variants/%d/label", a, v), err, errlen,
                           "two variants labelled '%s'; labels tell the points apart, make them different", label);
        axis_push(ax, label, label);
      }
    }
  }
  return 0;
}

/* Parameter values (fixed sets, set axes, variants' sets) against the platform of the first point. */
static int load_parameters(struct sweep *s, char *err, size_t errlen)
{
  struct sweep_point first = {0};
  first.vi = calloc((size_t)s->naxes, sizeof *first.vi);
  const struct icsim_yentry *pe = sweep_entry(s, "platform");
  char *rel = sweep_subst(s, &first, pe->value), *path = resolve_path(s, rel);
  free(first.vi);
  if (!path) {
    int rc = fail_at(s, pe, err, errlen, "platform '%s' not found beside the sweep file (%s) nor in the source tree (%s)",
                     rel, s->dir, ICSIM_SRCDIR);
    free(rel);
    return rc;
  }
  free(rel);
  struct icsim_platform pf;
  char why[2048];
  if (icsim_platform_load(&pf, path, NULL, 0, why, sizeof why)) {
    int rc = fail_at(s, pe, err, errlen, "the platform does not load: %s", why);
    free(path);
    return rc;
  }
  free(path);
  int rc = 0;
  for (size_t i = 0; i < s->y.n && !rc; i++)
    if (icsim_schema_key_matches(s->y.e[i].key, "sets/#") ||
        icsim_schema_key_matches(s->y.e[i].key, "axes/#/variants/#/sets/#"))
      rc = check_set(s, &pf, &s->y.e[i], err, errlen);
  for (int a = 0; a < s->naxes && !rc; a++) {
    struct sweep_axis *ax = &s->axes[a];
    if (ax->kind != SWEEP_AXIS_SET)
      continue;
    struct icsim_pval *pv = icsim_params_find(&pf.params, ax->name);
    if (!pv) {
      const char *near = icsim_params_closest(&pf.params, ax->name);
      rc = fail_at(s, sweep_entry(s, "axes/%d/set", a), err, errlen,
                   "unknown parameter '%s'%s%s%s (`icsim describe -p %s` lists them)", ax->name,
                   near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "", pf.path);
      break;
    }
    rc = axis_values(s, ax, pv->d, err, errlen);
    if (!rc && pv->d->type == ICSIM_P_QUANTITY && icsim_dim_unit(pv->d->dim)[0]) {
      snprintf(ax->header, sizeof ax->header, "%s[%s]", ax->name, icsim_dim_unit(pv->d->dim));
      ax->dim = pv->d->dim;
    }
  }
  icsim_platform_free(&pf);
  return rc;
}

static int axis_by_name(const struct sweep *s, const char *name)
{
  for (int a = 0; a < s->naxes; a++)
    if (!strcmp(s->axes[a].name, name))
      return a;
  return -1;
}

/* TEXT names value V of axis AX: as passed on, as in results.csv, or the same quantity written
 * otherwise (size=4MiB for 4194304). */
static int value_matches(const struct sweep_axis *ax, int v, const char *text)
{
  enum icsim_dim d1, d2;
  double a, b;
  if (!strcmp(ax->text[v], text) || !strcmp(ax->cell[v], text))
    return 1;
  return !var_dim(text, &d1, &a) && !var_dim(ax->cell[v], &d2, &b) && fabs(a - b) <= 1e-12 * fabs(b);
}

/* Each `where` entry of list FMT (index I) is AXIS=VALUE with an axis of S and one of its values. */
static int check_where(const struct sweep *s, const char *fmt, int i, char *err, size_t errlen)
{
  const struct icsim_yentry *w;
  for (int k = 0; (w = sweep_entry(s, fmt, i, k)); k++) {
    const char *eq = strchr(w->value, '=');
    int a = -1, ok = 0;
    if (eq) {
      char an[256];
      snprintf(an, sizeof an, "%.*s", (int)(eq - w->value), w->value);
      a = axis_by_name(s, an);
    }
    for (int v = 0; a >= 0 && v < s->axes[a].n && !ok; v++)
      ok = value_matches(&s->axes[a], v, eq + 1);
    if (!ok)
      return fail_at(s, w, err, errlen, "where '%s': write AXIS=VALUE with an axis of the sweep and one of its values",
                     w->value);
  }
  return 0;
}

int sweep_where(const struct sweep *s, const struct sweep_point *p, const char *fmt, int i)
{
  const char *w;
  for (int k = 0; (w = sweep_get(s, fmt, i, k)); k++) {
    const char *eq = strchr(w, '=');
    char an[256];
    snprintf(an, sizeof an, "%.*s", (int)(eq - w), w);
    int a = axis_by_name(s, an);
    if (!value_matches(&s->axes[a], p->vi[a], eq + 1))
      return 0;
  }
  return 1;
}

/* Figures and plots refer to what exists. */
static int load_outputs(struct sweep *s, char *err, size_t errlen)
{
  static const char *const how[] = {"row", "field", "stats"};
  s->nfigures = count_list(s, "figures/%d");
  if (s->nfigures == 0)
    return fail_at(s, NULL, err, errlen, "the sweep has no figures; add a 'figures:' list (e.g. `- name: bw` with `row:` and `column:`)");
  for (int f = 0; f < s->nfigures; f++) {
    char prefix[64];
    snprintf(prefix, sizeof prefix, "figures/%d", f);
    const struct icsim_yentry *name = sweep_entry(s, "figures/%d/name", f);
    if (popcount(given(s, prefix, how, 3)) > 1)
      return fail_at(s, name, err, errlen, "figure '%s': give at most one of `row`, `field` or `stats`", name->value);
    if (strpbrk(name->value, ",\"") || axis_by_name(s, name->value) >= 0)
      return fail_at(s, name, err, errlen, "figure name '%s' must differ from the axes' and hold no comma or quote",
                     name->value);
    for (int g = 0; g < f; g++)
      if (!strcmp(sweep_get(s, "figures/%d/name", g), name->value))
        return fail_at(s, name, err, errlen, "two figures named '%s'; rename one", name->value);
    if (check_template(s, sweep_entry(s, "figures/%d/row", f), err, errlen) ||
        check_where(s, "figures/%d/where/%d", f, err, errlen))
      return -1;
    const struct icsim_yentry *st = sweep_entry(s, "figures/%d/stats", f);
    if (st && strcmp(st->value, "simulated_time_s") && (!strchr(st->value, '/') || strchr(strchr(st->value, '/') + 1, '/')))
      return fail_at(s, st, err, errlen,
                     "stats '%s': write simulated_time_s or SECTION/NAME as in the --stats file (mpi/messages)", st->value);
  }
  s->nplots = count_list(s, "plots/%d");
  for (int p = 0; p < s->nplots; p++) {
    const struct icsim_yentry *x = sweep_entry(s, "plots/%d/x", p), *y = sweep_entry(s, "plots/%d/y", p),
                              *name = sweep_entry(s, "plots/%d/name", p), *st0 = sweep_entry(s, "plots/%d/stack/0", p);
    if (axis_by_name(s, x->value) < 0)
      return fail_at(s, x, err, errlen, "plot x '%s' is not an axis of the sweep; give an axis' set, var or name", x->value);
    if (!y == !st0)
      return fail_at(s, name, err, errlen, "plot '%s': give either y (one figure) or stack (a list of figures)", name->value);
    for (int j = 0; ; j++) {
      const struct icsim_yentry *fy = y ? (j ? NULL : y) : sweep_entry(s, "plots/%d/stack/%d", p, j);
      if (!fy)
        break;
      int found = 0;
      for (int f = 0; f < s->nfigures && !found; f++)
        found = !strcmp(sweep_get(s, "figures/%d/name", f), fy->value);
      if (!found)
        return fail_at(s, fy, err, errlen, "plot %s '%s' is not a figure of the sweep; give a figure's name",
                       y ? "y" : "stack", fy->value);
    }
    if (strpbrk(name->value, "/'\" ") || !strcmp(name->value, "results"))
      return fail_at(s, name, err, errlen, "plot name '%s': a plain file name without '/', quotes or spaces", name->value);
    if (check_where(s, "plots/%d/where/%d", p, err, errlen))
      return -1;
  }
  return 0;
}

int sweep_load(const char *path, struct sweep *s, char *err, size_t errlen)
{
  memset(s, 0, sizeof *s);
  if (icsim_yaml_load_as("sweep file", path, &s->y, err, errlen))
    return -1;
  char abs[PATH_MAX];
  s->path = strdup(path);
  s->abs_path = strdup(realpath(path, abs) ? abs : path);
  s->dir = strdup(s->abs_path);
  *strrchr(s->dir, '/') = '\0';
  if (icsim_schema_check(&sweep_schema, &s->y, err, errlen) || load_axes(s, err, errlen))
    goto fail;
  s->name = sweep_get(s, "sweep");
  if (!s->name[0] || strspn(s->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(s->name)) {
    fail_at(s, sweep_entry(s, "sweep"), err, errlen,
            "sweep name '%s': use letters, digits, '.', '_' and '-' (it names the Slurm job); the title takes any text",
            s->name);
    goto fail;
  }
  s->zip = !strcmp(sweep_get(s, "combine") ? sweep_get(s, "combine") : "cross", "zip");
  s->host_timing = sweep_get(s, "host-timing") && !strcmp(sweep_get(s, "host-timing"), "on");
  static const char *const templates[] = {"platform", "program", "args", "ranks", "place"};
  for (size_t t = 0; t < sizeof templates / sizeof templates[0]; t++)
    if (check_template(s, sweep_entry(s, "%s", templates[t]), err, errlen))
      goto fail;
  for (size_t i = 0; i < s->y.n; i++)
    if (icsim_schema_key_matches(s->y.e[i].key, "axes/#/variants/#/args") && check_template(s, &s->y.e[i], err, errlen))
      goto fail;
  if (load_parameters(s, err, errlen))
    goto fail;
  if (s->zip)
    for (int a = 1; a < s->naxes; a++)
      if (s->axes[a].n != s->axes[0].n) {
        fail_at(s, first_under(s, "combine"), err, errlen,
                "combine: zip takes the i-th value of every axis, but '%s' has %d values and '%s' %d; give them equal "
                "lengths or use cross", s->axes[0].name, s->axes[0].n, s->axes[a].name, s->axes[a].n);
        goto fail;
      }
  if (load_outputs(s, err, errlen))
    goto fail;
  return 0;
fail:
  sweep_free(s);
  return -1;
}

void sweep_free(struct sweep *s)
{
  for (int a = 0; a < s->naxes; a++) {
    for (int v = 0; v < s->axes[a].n; v++) {
      free(s->axes[a].text[v]);
      free(s->axes[a].cell[v]);
    }
    free(s->axes[a].text);
    free(s->axes[a].cell);
  }
  free(s->axes);
  icsim_yaml_free(&s->y);
  free(s->path);
  free(s->abs_path);
  free(s->dir);
  memset(s, 0, sizeof *s);
}

static void strv_push(char ***v, int *n, const char *text)
{
  *v = realloc(*v, (size_t)(*n + 2) * sizeof **v);
  (*v)[(*n)++] = strdup(text);
  (*v)[*n] = NULL;
}

static void split_words(char ***v, int *n, const char *text)
{
  char *copy = strdup(text), *save;
  for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
    strv_push(v, n, t);
  free(copy);
}

/* FNV-1a, 64 bits: the point's id from everything that decides its run. */
static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
  const unsigned char *c = data;
  for (size_t i = 0; i < len; i++)
    h = (h ^ c[i]) * 1099511628211ULL;
  return h;
}

static uint64_t fnv_str(uint64_t h, const char *s) { return fnv(h, s, strlen(s) + 1); }

/* Build point P (its index and value indices set) and check that it can run. */
static int build_point(const struct sweep *s, struct sweep_point *p, char *err, size_t errlen)
{
  char label[1024], why[2048];
  sweep_point_label(s, p, label, sizeof label);
  char *rel = sweep_subst(s, p, sweep_get(s, "platform"));
  p->platform = resolve_path(s, rel);
  if (!p->platform) {
    snprintf(err, errlen, "%s: point %d (%s): platform '%s' not found beside the sweep file nor in the source tree",
             icsim_path_shown(s->path), p->index, label, rel);
    free(rel);
    return -1;
  }
  free(rel);
  p->program = sweep_subst(s, p, sweep_get(s, "program"));
  if (strchr(p->program, '/')) { /* a path: beside the sweep file, else from the source root */
    char *found = resolve_path(s, p->program);
    if (found) {
      free(p->program);
      p->program = found;
    }
  }
  int nargs = 0, nsets = 0;
  p->args = calloc(1, sizeof *p->args);
  p->sets = calloc(1, sizeof *p->sets);
  if (sweep_get(s, "args")) {
    char *a = sweep_subst(s, p, sweep_get(s, "args"));
    split_words(&p->args, &nargs, a);
    free(a);
  }
  for (int k = 0; sweep_get(s, "sets/%d", k); k++)
    strv_push(&p->sets, &nsets, sweep_get(s, "sets/%d", k));
  for (int a = 0; a < s->naxes; a++) {
    const struct sweep_axis *ax = &s->axes[a];
    char kv[1024];
    if (ax->kind == SWEEP_AXIS_SET) {
      snprintf(kv, sizeof kv, "%s=%s", ax->name, ax->text[p->vi[a]]);
      strv_push(&p->sets, &nsets, kv);
    } else if (ax->kind == SWEEP_AXIS_VARIANTS) {
      for (int k = 0; sweep_get(s, "axes/%d/variants/%d/sets/%d", a, p->vi[a], k); k++)
        strv_push(&p->sets, &nsets, sweep_get(s, "axes/%d/variants/%d/sets/%d", a, p->vi[a], k));
      const char *va = sweep_get(s, "axes/%d/variants/%d/args", a, p->vi[a]);
      if (va) {
        char *t = sweep_subst(s, p, va);
        split_words(&p->args, &nargs, t);
        free(t);
      }
    }
  }
  p->nsets = nsets;
  char *ranks = sweep_subst(s, p, sweep_get(s, "ranks")), *end;
  long r = strtol(ranks, &end, 10);
  if (*end || end == ranks || r < 1 || r > 1 << 20) {
    const struct icsim_yentry *e = sweep_entry(s, "ranks");
    snprintf(err, errlen, "%s:%d:%d: point %d (%s): ranks '%s' is not a whole number from 1 to 1048576; give the number of MPI ranks (e.g. 8)", icsim_path_shown(s->path), e->line,
             e->column, p->index, label, ranks);
    free(ranks);
    return -1;
  }
  free(ranks);
  p->ranks = (int)r;
  p->place = sweep_subst(s, p, sweep_get(s, "place") ? sweep_get(s, "place") : "block");
  struct icsim_platform pf;
  if (icsim_platform_load(&pf, p->platform, p->sets, nsets, why, sizeof why)) {
    snprintf(err, errlen, "%s: point %d (%s): %s", icsim_path_shown(s->path), p->index, label, why);
    return -1;
  }
  int *rank_host = malloc((size_t)p->ranks * sizeof *rank_host);
  int rc = icsim_place(&pf, p->ranks, p->place, rank_host, why, sizeof why);
  free(rank_host);
  icsim_platform_free(&pf);
  if (rc) {
    snprintf(err, errlen, "%s: point %d (%s): %d ranks, place %s: %s", icsim_path_shown(s->path), p->index, label, p->ranks, p->place, why);
    return -1;
  }
  /* the id: the platform file's bytes (an edited platform makes new points), then the run */
  FILE *f = fopen(p->platform, "rb");
  uint64_t h = 1469598103934665603ULL;
  char buf[8192];
  size_t got;
  while (f && (got = fread(buf, 1, sizeof buf, f)) > 0)
    h = fnv(h, buf, got);
  if (f)
    fclose(f);
  h = fnv_str(h, p->program);
  for (char **a = p->args; *a; a++)
    h = fnv_str(h, *a);
  snprintf(buf, sizeof buf, "ranks=%d place=%s host-timing=%d", p->ranks, p->place, s->host_timing);
  h = fnv_str(h, buf);
  for (char **k = p->sets; *k; k++)
    h = fnv_str(h, *k);
  snprintf(p->id, sizeof p->id, "%016llx", (unsigned long long)h);
  return 0;
}

int sweep_points(const struct sweep *s, struct sweep_point **out, char *err, size_t errlen)
{
  long total = s->zip ? s->axes[0].n : 1;
  for (int a = 0; a < s->naxes && !s->zip; a++) {
    total *= s->axes[a].n;
    if (total > 1000000) {
      snprintf(err, errlen, "%s: more than a million points; split the study", icsim_path_shown(s->path));
      return -1;
    }
  }
  struct sweep_point *p = calloc((size_t)total, sizeof *p);
  for (long i = 0; i < total; i++) {
    p[i].index = (int)i;
    p[i].vi = calloc((size_t)s->naxes, sizeof *p[i].vi);
    long rest = i;
    for (int a = s->naxes - 1; a >= 0; a--) { /* cross: the last axis varies fastest */
      p[i].vi[a] = s->zip ? (int)i : (int)(rest % s->axes[a].n);
      rest /= s->zip ? 1 : s->axes[a].n;
    }
    if (build_point(s, &p[i], err, errlen)) {
      sweep_points_free(p, (int)i + 1);
      return -1;
    }
  }
  *out = p;
  return (int)total;
}

void sweep_points_free(struct sweep_point *p, int n)
{
  for (int i = 0; p && i < n; i++) {
    free(p[i].vi);
    free(p[i].platform);
    free(p[i].program);
    for (char **a = p[i].args; a && *a; a++)
      free(*a);
    free(p[i].args);
    for (char **k = p[i].sets; k && *k; k++)
      free(*k);
    free(p[i].sets);
    free(p[i].place);
  }
  free(p);
}
