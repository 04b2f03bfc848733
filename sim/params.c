/* Parameter sets built from descriptor tables. */
#include "params.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void icsim_params_add_table(struct icsim_params *ps, const struct icsim_param_desc *table, size_t n)
{
  ps->v = realloc(ps->v, (ps->n + n) * sizeof *ps->v);
  for (size_t i = 0; i < n; i++) {
    struct icsim_pval *pv = &ps->v[ps->n++];
    memset(pv, 0, sizeof *pv);
    pv->d = &table[i];
    pv->where = strdup("default");
    snprintf(pv->origin, sizeof pv->origin, "%s", table[i].origin ? table[i].origin : "assumed");
    if (table[i].def) {
      char err[256];
      if (icsim_param_parse(&table[i], table[i].def, &pv->num, err, sizeof err) != 0) {
        fprintf(stderr, "icsim: internal error: default of %s: %s\n", table[i].key, err);
        abort();
      }
      pv->text = strdup(table[i].def);
    }
  }
}

void icsim_params_free(struct icsim_params *ps)
{
  for (size_t i = 0; i < ps->n; i++) {
    free(ps->v[i].text);
    free(ps->v[i].where);
    free(ps->v[i].ref);
    free(ps->v[i].range_text);
    free(ps->v[i].range_ref);
  }
  free(ps->v);
  ps->v = NULL;
  ps->n = 0;
}

struct icsim_pval *icsim_params_find(const struct icsim_params *ps, const char *key)
{
  for (size_t i = 0; i < ps->n; i++)
    if (strcmp(ps->v[i].d->key, key) == 0)
      return &ps->v[i];
  return NULL;
}

size_t icsim_edit_distance(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);
  size_t *row = malloc((lb + 1) * sizeof *row);
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  size_t d = row[lb];
  free(row);
  return d;
}

const char *icsim_params_closest(const struct icsim_params *ps, const char *key)
{
  const char *best = NULL;
  size_t best_d = (size_t)-1;
  for (size_t i = 0; i < ps->n; i++) {
    size_t d = icsim_edit_distance(key, ps->v[i].d->key);
    if (d < best_d) {
      best_d = d;
      best = ps->v[i].d->key;
    }
  }
  /* Only suggest something plausibly meant: at most a third of the key changed. */
  if (best && best_d * 3 > strlen(key) + 2)
    return NULL;
  return best;
}

/* A whole number written in decimal: [-]digits, nothing around it (strtol would also take
 * " 4", "+4" and let "99999999999999999999" saturate). */
static int parse_int(const char *text, double *num)
{
  const char *s = text + (text[0] == '-');
  size_t n = strspn(s, "0123456789");
  if (n == 0 || s[n] != '\0')
    return -1;
  if (n > 15) { /* beyond every bound, and beyond what a double holds exactly */
    *num = text[0] == '-' ? -1e300 : 1e300;
    return 0;
  }
  *num = (double)strtoll(text, NULL, 10);
  return 0;
}

int icsim_param_parse(const struct icsim_param_desc *d, const char *text, double *num, char *err, size_t errlen)
{
  *num = 0;
  switch (d->type) {
  case ICSIM_P_QUANTITY:
    if (icsim_parse_quantity(text, d->dim, num, err, errlen))
      return -1;
    break;
  case ICSIM_P_INT:
    if (parse_int(text, num)) {
      snprintf(err, errlen, "'%s' is not a whole number; write e.g. '8'", text);
      return -1;
    }
    break;
  case ICSIM_P_BOOL:
    if (!strcmp(text, "true") || !strcmp(text, "yes") || !strcmp(text, "on"))
      *num = 1;
    else if (!strcmp(text, "false") || !strcmp(text, "no") || !strcmp(text, "off"))
      *num = 0;
    else {
      snprintf(err, errlen, "'%s' is not a boolean; write true or false", text);
      return -1;
    }
    return 0;
  case ICSIM_P_ENUM: {
    size_t len = strlen(text);
    int idx = 0;
    for (const char *c = d->choices; *c; idx++) {
      const char *bar = strchr(c, '|');
      size_t clen = bar ? (size_t)(bar - c) : strlen(c);
      if (clen == len && strncmp(c, text, len) == 0) {
        *num = idx;
        return 0;
      }
      c += clen + (bar ? 1 : 0);
    }
    snprintf(err, errlen, "'%s' is not one of %s", text, d->choices);
    return -1;
  }
  case ICSIM_P_STRING:
    return 0;
  }
  if ((d->type == ICSIM_P_QUANTITY || d->type == ICSIM_P_INT) && (*num < d->min || *num > d->max)) {
    char lo[64], hi[64];
    icsim_format_quantity(d->min, d->type == ICSIM_P_INT ? ICSIM_DIM_NONE : d->dim, lo, sizeof lo);
    icsim_format_quantity(d->max, d->type == ICSIM_P_INT ? ICSIM_DIM_NONE : d->dim, hi, sizeof hi);
    snprintf(err, errlen, "%s is out of range; allowed is %s to %s", text, lo, hi);
    return -1;
  }
  return 0;
}

int icsim_params_set(struct icsim_params *ps, const char *key, const char *text, const char *origin,
                     const char *where, const char *ref, char *err, size_t errlen)
{
  struct icsim_pval *pv = icsim_params_find(ps, key);
  if (!pv) {
    const char *near = icsim_params_closest(ps, key);
    if (near)
      snprintf(err, errlen, "unknown key '%s'; did you mean '%s'?", key, near);
    else
      snprintf(err, errlen, "unknown key '%s'; `icsim describe` lists the keys", key);
    return -1;
  }
  char why[256];
  double num;
  if (!text[0]) { /* "--set name=" or name: "" would silently blank a value */
    snprintf(err, errlen, "%s: empty value; write one, or leave the key out to get its default", key);
    return -1;
  }
  if (icsim_param_parse(pv->d, text, &num, why, sizeof why)) {
    snprintf(err, errlen, "%s: %s", key, why);
    return -1;
  }
  pv->num = num;
  free(pv->text);
  pv->text = strdup(text);
  snprintf(pv->origin, sizeof pv->origin, "%s", origin ? origin : "assumed");
  free(pv->where);
  pv->where = strdup(where);
  free(pv->ref);
  pv->ref = ref ? strdup(ref) : NULL;
  pv->given = true;
  pv->range_held = pv->has_range; /* a new value: the range it had no longer applies */
  return 0;
}

int icsim_params_set_range(struct icsim_params *ps, const char *key, const char *lo_text, const char *hi_text,
                           const char *range_ref, char *err, size_t errlen)
{
  struct icsim_pval *pv = icsim_params_find(ps, key);
  if (!pv) {
    snprintf(err, errlen, "unknown key '%s'; `icsim describe` lists the keys", key);
    return -1;
  }
  const struct icsim_param_desc *d = pv->d;
  if (d->type != ICSIM_P_QUANTITY && d->type != ICSIM_P_INT) {
    snprintf(err, errlen,
             "%s is a %s: it is a choice of structure, not a quantity, and takes no range; remove range and "
             "range-ref (to study the other choice, run it as a sweep)",
             key, d->type == ICSIM_P_BOOL ? "true/false switch" : d->type == ICSIM_P_ENUM ? "choice of words" : "text");
    return -1;
  }
  if (!range_ref || !range_ref[0]) {
    snprintf(err, errlen, "the range of %s has no range-ref; say what bounds it (a published measurement of comparable "
             "hardware, a vendor's spread, a physical limit)", key);
    return -1;
  }
  double lo, hi;
  char why[256];
  if (icsim_param_parse(d, lo_text, &lo, why, sizeof why)) {
    snprintf(err, errlen, "low end of the range of %s: %s", key, why);
    return -1;
  }
  if (icsim_param_parse(d, hi_text, &hi, why, sizeof why)) {
    snprintf(err, errlen, "high end of the range of %s: %s", key, why);
    return -1;
  }
  if (lo > hi) {
    snprintf(err, errlen, "the range of %s is [%s, %s]: the low end is above the high end; write [%s, %s]", key,
             lo_text, hi_text, hi_text, lo_text);
    return -1;
  }
  if (pv->num < lo || pv->num > hi) {
    snprintf(err, errlen,
             "the value of %s, %s, lies outside its own range [%s, %s]; a range says where the value can plausibly "
             "lie, so it holds the value: fix the value or the range (from its source, not to fit a result)",
             key, pv->text ? pv->text : "?", lo_text, hi_text);
    return -1;
  }
  char text[256];
  snprintf(text, sizeof text, "[%s, %s]", lo_text, hi_text);
  char *t = strdup(text), *r = strdup(range_ref);
  if (!t || !r) {
    free(t), free(r);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  free(pv->range_text);
  free(pv->range_ref);
  pv->range_text = t;
  pv->range_ref = r;
  pv->lo = lo;
  pv->hi = hi;
  pv->has_range = true;
  pv->range_held = false;
  return 0;
}

int icsim_help_gives_zero_meaning(const char *help)
{
  for (const char *z = help ? strchr(help, '0') : NULL; z; z = strchr(z + 1, '0')) {
    /* standing alone: not the end of 10 or l0, not the decimals of 1.0, not the start of 0.5 or 01 */
    if (z > help && (isalnum((unsigned char)z[-1]) || z[-1] == '.' || z[-1] == '_'))
      continue;
    const char *t = z + 1;
    if (isalnum((unsigned char)*t) || *t == '.' || *t == '_')
      continue;
    while (*t == ' ')
      t++;
    if ((*t == '=' && t[1] != '=') || *t == ':' || !strncmp(t, "means ", 6))
      return 1;
  }
  return 0;
}

/* A default of 0 whose help line gives 0 a meaning of its own ("0 = not described", "(0: plain
 * fair sharing)") marks something not described or a behaviour (no second level of switches, no
 * per-core limit): the model's structure, not a value to vary. */
static int is_sentinel(const struct icsim_pval *pv)
{
  const struct icsim_param_desc *d = pv->d;
  if (!d->def || !icsim_help_gives_zero_meaning(d->help) || pv->num != 0)
    return 0;
  double def;
  char why[256];
  return icsim_param_parse(d, d->def, &def, why, sizeof why) == 0 && def == 0;
}

void icsim_params_add_rules(struct icsim_params *ps, const struct icsim_param_rule *rules, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    struct icsim_pval *pv = icsim_params_find(ps, rules[i].key);
    if (!pv) {
      fprintf(stderr, "icsim: internal error: a range rule names '%s', which no table declares\n", rules[i].key);
      abort();
    }
    pv->rule = &rules[i];
  }
}

/* 1 if every "KEY=VALUE" of CONDS holds in PS; a malformed condition or an unknown key is the
 * rule table's mistake, reported with OWNER's key. */
static int conditions_hold(const struct icsim_params *ps, const char *owner, const char *conds)
{
  char buf[512];
  snprintf(buf, sizeof buf, "%s", conds);
  int all = 1;
  for (char *save = NULL, *c = strtok_r(buf, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
    while (*c == ' ')
      c++;
    char *eq = strchr(c, '=');
    const struct icsim_pval *other = NULL;
    double want = 0;
    char why[256] = "no '='";
    if (eq) {
      *eq = '\0';
      other = icsim_params_find(ps, c);
      snprintf(why, sizeof why, "no key '%s'", c);
    }
    if (!other || icsim_param_parse(other->d, eq + 1, &want, why, sizeof why)) {
      fprintf(stderr, "icsim: internal error: unused_when of %s, '%s': %s\n", owner, conds, why);
      abort();
    }
    all = all && other->num == want;
  }
  return all;
}

void icsim_params_mark_switched_off(struct icsim_params *ps)
{
  for (size_t i = 0; i < ps->n; i++) {
    struct icsim_pval *pv = &ps->v[i];
    pv->switched_off = pv->rule && pv->rule->unused_when && conditions_hold(ps, pv->d->key, pv->rule->unused_when);
  }
}

enum icsim_range_need icsim_param_range_need(const struct icsim_pval *pv)
{
  if (pv->d->type != ICSIM_P_QUANTITY && pv->d->type != ICSIM_P_INT)
    return ICSIM_RANGE_STRUCTURE;
  if (pv->inapplicable || pv->switched_off)
    return ICSIM_RANGE_UNUSED;
  if (pv->where && !strcmp(pv->where, "--set"))
    return ICSIM_RANGE_HELD;
  if (pv->rule && (pv->rule->flags & ICSIM_PARAM_CAPACITY))
    return ICSIM_RANGE_CAPACITY;
  if (is_sentinel(pv))
    return ICSIM_RANGE_STRUCTURE;
  if (!pv->given || !strcmp(pv->origin, "assumed") || !strcmp(pv->origin, "calibrated"))
    return ICSIM_RANGE_NEEDED;
  return ICSIM_RANGE_NOT_NEEDED;
}

int icsim_param_sampled(const struct icsim_pval *pv) { return pv->has_range && !pv->range_held; }

const char *icsim_params_missing(const struct icsim_params *ps)
{
  for (size_t i = 0; i < ps->n; i++)
    if (!ps->v[i].text)
      return ps->v[i].d->key;
  return NULL;
}

static struct icsim_pval *must_find(const struct icsim_params *ps, const char *key)
{
  struct icsim_pval *pv = icsim_params_find(ps, key);
  if (!pv) {
    fprintf(stderr, "icsim: internal error: parameter '%s' is not declared in any table\n", key);
    abort();
  }
  return pv;
}

double icsim_param_num(const struct icsim_params *ps, const char *key) { return must_find(ps, key)->num; }

const char *icsim_param_text(const struct icsim_params *ps, const char *key)
{
  const char *t = must_find(ps, key)->text;
  return t ? t : "";
}

void icsim_params_fill(const struct icsim_params *ps, const struct icsim_param_desc *table, size_t n, void *base)
{
  for (size_t i = 0; i < ps->n; i++) {
    const struct icsim_param_desc *d = ps->v[i].d;
    if (d < table || d >= table + n || d->field == ICSIM_NO_FIELD)
      continue;
    char *at = (char *)base + d->field;
    switch (d->type) {
    case ICSIM_P_QUANTITY: *(double *)at = ps->v[i].num; break;
    case ICSIM_P_INT:
    case ICSIM_P_ENUM: *(int *)at = (int)lround(ps->v[i].num); break;
    case ICSIM_P_BOOL: *(bool *)at = ps->v[i].num != 0; break;
    case ICSIM_P_STRING: *(const char **)at = ps->v[i].text ? ps->v[i].text : ""; break;
    }
  }
}

char **icsim_split_sets(const char *sets, int *n)
{
  *n = 0;
  if (!sets || !*sets)
    return NULL;
  char *copy = strdup(sets);
  int cap = 1;
  for (const char *s = sets; *s; s++)
    cap += *s == ';';
  char **out = calloc((size_t)cap + 1, sizeof *out);
  for (char *tok = strtok(copy, ";"); tok; tok = strtok(NULL, ";"))
    out[(*n)++] = tok;
  if (*n == 0) {
    free(copy);
    free(out);
    return NULL;
  }
  return out;
}
