/* Schema checks of flat YAML files: one implementation for every file kind (yaml_schema.h). */
#define _GNU_SOURCE
#include "yaml_schema.h"
#include "paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "metrics/3/name" matches "metrics/#/name". */
int icsim_schema_key_matches(const char *key, const char *pattern)
{
  while (*key && *pattern) {
    if (*pattern == '#') {
      if (!(*key >= '0' && *key <= '9'))
        return 0;
      while (*key >= '0' && *key <= '9')
        key++;
      pattern++;
    } else if (*key++ != *pattern++) {
      return 0;
    }
  }
  return *key == '\0' && *pattern == '\0';
}

const struct icsim_param_desc *icsim_schema_row(const struct icsim_schema *s, const char *key)
{
  for (size_t r = 0; r < s->n; r++)
    if (icsim_schema_key_matches(key, s->rows[r].key))
      return &s->rows[r];
  return NULL;
}

static int is_index(const char *seg, size_t len)
{
  if (len == 0)
    return 0;
  for (size_t i = 0; i < len; i++)
    if (seg[i] < '0' || seg[i] > '9')
      return 0;
  return 1;
}

/* The pattern a key would have: "metrics/3/tolerence" -> "metrics/#/tolerence". */
static void shape_of(const char *key, char *out, size_t len)
{
  size_t k = 0;
  for (const char *s = key; *s && k + 1 < len;) {
    size_t seg = strcspn(s, "/");
    if (is_index(s, seg))
      out[k++] = '#';
    else
      for (size_t i = 0; i < seg && k + 1 < len; i++)
        out[k++] = s[i];
    s += seg;
    if (*s == '/' && k + 1 < len)
      out[k++] = *s++;
  }
  out[k] = '\0';
}

/* PATTERN with its '#' replaced by KEY's indices in turn, so that a hint reads like the file. */
static void instantiate(const char *pattern, const char *key, char *out, size_t len)
{
  size_t k = 0;
  const char *s = key;
  for (const char *p = pattern; *p && k + 1 < len; p++) {
    const char *idx = NULL;
    size_t seg = 0;
    while (*p == '#' && *s && !idx) { /* the key's next index segment */
      seg = strcspn(s, "/");
      if (is_index(s, seg))
        idx = s;
      s += seg + (s[seg] == '/');
    }
    if (idx)
      k += (size_t)snprintf(out + k, len - k, "%.*s", (int)seg, idx);
    else
      out[k++] = *p;
  }
  out[k < len ? k : len - 1] = '\0';
}

static int starts_with(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

static size_t segments(const char *s)
{
  size_t n = 1;
  for (; *s; s++)
    n += *s == '/';
  return n;
}

/* The distinct names that follow PARENT ("metrics/#/" or "") in the schema, after TITLE. */
static void keys_under(const struct icsim_schema *s, const char *parent, const char *title, char *out, size_t len)
{
  size_t used = (size_t)snprintf(out, len, "%s", title), plen = strlen(parent);
  for (size_t r = 0; r < s->n; r++) {
    const char *rk = s->rows[r].key;
    if (strncmp(rk, parent, plen))
      continue;
    size_t seg = strcspn(rk + plen, "/");
    int seen = 0;
    for (size_t q = 0; q < r && !seen; q++) {
      const char *qk = s->rows[q].key;
      seen = !strncmp(qk, parent, plen) && strcspn(qk + plen, "/") == seg && !strncmp(qk + plen, rk + plen, seg);
    }
    if (!seen && used < len)
      used += (size_t)snprintf(out + used, len - used, "%s%.*s", used > strlen(title) ? ", " : " ", (int)seg,
                               rk + plen);
  }
}

/* What is wrong with KEY, which no row matches, and the fix: a list or a single value written
 * the wrong way, the key it was plausibly meant to be, where it belongs, or the keys allowed. */
static void explain_unknown(const struct icsim_schema *s, const char *key, char *fix, size_t len)
{
  char shape[256], prefix[260];
  shape_of(key, shape, sizeof shape);
  const char *last = strrchr(shape, '/') ? strrchr(shape, '/') + 1 : shape;
  const char *tail = strrchr(key, '/');
  if (tail && is_index(tail + 1, strlen(tail + 1))) { /* "valuse: [1, 2]": the list's own name is unknown */
    char parent[256];
    snprintf(parent, sizeof parent, "%.*s", (int)(tail - key), key);
    shape_of(parent, prefix, sizeof prefix);
    size_t plen = strlen(prefix);
    int known = 0;
    for (size_t r = 0; r < s->n && !known; r++)
      known = !strncmp(s->rows[r].key, prefix, plen) && (!s->rows[r].key[plen] || s->rows[r].key[plen] == '/');
    if (!known) {
      explain_unknown(s, parent, fix, len);
      return;
    }
  }
  for (size_t r = 0; r < s->n; r++) {
    const char *rk = s->rows[r].key;
    snprintf(prefix, sizeof prefix, "%s/", shape);
    if (starts_with(rk, prefix)) { /* "breakdown: x" where a list or mapping is expected */
      char title[300];
      snprintf(title, sizeof title, "'%s' holds keys, not a value; they are:", key);
      if (rk[strlen(prefix)] == '#')
        snprintf(fix, len, "'%s' is a list: give its entries as '- ...' lines or [a, b]", key);
      else
        keys_under(s, prefix, title, fix, len);
      return;
    }
    snprintf(prefix, sizeof prefix, "%s/", rk);
    if (starts_with(shape, prefix)) { /* "tolerance: [..]" where one value is expected */
      size_t n = segments(rk), k = 0;
      for (const char *s = key; *s && n; s++, k++)
        n -= *s == '/';
      snprintf(fix, len, "'%.*s' takes a single value, not a %s", (int)(k - 1), key,
               shape[strlen(prefix)] == '#' ? "list" : "mapping");
      return;
    }
  }
  const struct icsim_param_desc *best = NULL;
  size_t best_d = (size_t)-1;
  int best_list = 0; /* the best match is a list's name (its row without the final "/#") */
  for (size_t r = 0; r < s->n; r++) {
    char listname[256];
    size_t d = icsim_edit_distance(shape, s->rows[r].key), rl = strlen(s->rows[r].key);
    if (d < best_d)
      best_d = d, best = &s->rows[r], best_list = 0;
    if (rl > 2 && !strcmp(s->rows[r].key + rl - 2, "/#")) {
      snprintf(listname, sizeof listname, "%.*s", (int)(rl - 2), s->rows[r].key);
      d = icsim_edit_distance(shape, listname);
      if (d < best_d)
        best_d = d, best = &s->rows[r], best_list = 1;
    }
  }
  /* As icsim_params_closest, only what was plausibly meant: at most about a third of the
   * name changed (measured on the last part: the shared path would excuse any typo). */
  if (best && best_d * 3 <= strlen(last) + 2) {
    char near[256], pattern[256];
    snprintf(pattern, sizeof pattern, "%.*s", (int)(strlen(best->key) - (best_list ? 2 : 0)), best->key);
    instantiate(pattern, key, near, sizeof near);
    snprintf(fix, len, "unknown key '%s'; did you mean '%s'?%s", key, near,
             strchr(near, '#') ? " ('#' = list index: a list's entries are '- ' items)" : "");
    return;
  }
  size_t used = 0;
  for (size_t r = 0; r < s->n; r++) {
    const char *rk = s->rows[r].key, *rl = strrchr(rk, '/') ? strrchr(rk, '/') + 1 : rk;
    if (strcmp(last, "#") && !strcmp(rl, last) && used < len)
      used += used ? (size_t)snprintf(fix + used, len - used, " or '%s'", rk)
                   : (size_t)snprintf(fix, len, "unknown key '%s'; '%s' belongs in '%s'", key, last, rk);
  }
  if (used) {
    if (used < len)
      snprintf(fix + used, len - used, " ('#' = list index)");
    return;
  }
  snprintf(prefix, sizeof prefix, "%.*s", (int)(last - shape), shape);
  char title[300];
  snprintf(title, sizeof title, "unknown key '%s'; the keys here are:", key);
  keys_under(s, prefix, title, fix, len);
}

/* Every key known, every value of its type and within its bounds. */
static int check_entries(const struct icsim_schema *s, const struct icsim_yfile *y, char *err, size_t errlen)
{
  for (size_t i = 0; i < y->n; i++) {
    const struct icsim_yentry *e = &y->e[i];
    const struct icsim_param_desc *d = icsim_schema_row(s, e->key);
    char why[512];
    double num;
    if (!d) {
      explain_unknown(s, e->key, why, sizeof why);
      snprintf(err, errlen, "%s:%d:%d: %s", icsim_path_shown(y->path), e->key_line, e->key_column, why);
      return -1;
    }
    if (d->type != ICSIM_P_STRING && icsim_param_parse(d, e->value, &num, why, sizeof why)) {
      snprintf(err, errlen, "%s:%d:%d: %s: %s (%s)", icsim_path_shown(y->path), e->line, e->column, e->key, why, d->help);
      return -1;
    }
  }
  return 0;
}

int icsim_schema_present(const struct icsim_yfile *y, const char *pattern)
{
  for (size_t i = 0; i < y->n; i++)
    if (icsim_schema_key_matches(y->e[i].key, pattern))
      return 1;
  return 0;
}

/* Length of KEY's first N segments when more follow ("metrics/3" in "metrics/3/name"), else 0. */
static size_t head_len(const char *key, size_t n)
{
  for (size_t k = 0; key[k]; k++)
    if (key[k] == '/' && --n == 0)
      return k;
  return 0;
}

/* A row without default must be given: at the top level, or in every entry of the list it
 * sits in ("metrics/#/tolerance" in each metric). A row ending in '#' asks for a non-empty
 * list ("aggregates/#/of/#": each aggregate averages something). */
static int check_required(const struct icsim_schema *s, const struct icsim_yfile *y, char *err, size_t errlen)
{
  for (size_t r = 0; r < s->n; r++) {
    const struct icsim_param_desc *d = &s->rows[r];
    char base[256], want[300], item[256], last[256] = "";
    if (d->def)
      continue;
    snprintf(base, sizeof base, "%s", d->key);
    size_t blen = strlen(base);
    int list = blen > 2 && !strcmp(base + blen - 2, "/#");
    if (list)
      base[blen - 2] = '\0';
    char *hash = strrchr(base, '#');
    if (!hash) {
      snprintf(want, sizeof want, "%s%s", base, list ? "/#" : "");
      if (icsim_schema_present(y, want))
        continue;
      snprintf(err, errlen, "%s:1:1: missing required key '%s': %s; add '%s: ...' at the top level", icsim_path_shown(y->path),
               base, d->help, base);
      return -1;
    }
    const char *tail = hash + 2; /* base "metrics/#/tolerance" -> entries "metrics/#", key "tolerance" */
    hash[1] = '\0';
    for (size_t i = 0; i < y->n; i++) {
      size_t k = head_len(y->e[i].key, segments(base));
      if (!k || k >= sizeof item)
        continue;
      memcpy(item, y->e[i].key, k);
      item[k] = '\0';
      if (!icsim_schema_key_matches(item, base) || !strcmp(item, last)) /* an entry's keys are consecutive */
        continue;
      snprintf(last, sizeof last, "%s", item);
      /* an exact lookup (a list is there when its item 0 is): scanning every entry for every
       * item made a file of many items quadratic */
      snprintf(want, sizeof want, "%s/%s%s", item, tail, list ? "/0" : "");
      if (icsim_yaml_get(y, want))
        continue;
      snprintf(want, sizeof want, "%s/name", item);
      const struct icsim_yentry *name = icsim_yaml_get(y, want);
      snprintf(err, errlen, "%s:%d:%d: %s%s%s%s has no '%s': %s; add '%s: %s' to this entry", icsim_path_shown(y->path),
               y->e[i].key_line, y->e[i].key_column, item, name ? " (" : "", name ? name->value : "", name ? ")" : "",
               tail, d->help, tail, list ? "[...]" : "...");
      return -1;
    }
  }
  return 0;
}

int icsim_schema_check(const struct icsim_schema *s, const struct icsim_yfile *y, char *err, size_t errlen)
{
  return check_entries(s, y, err, errlen) || check_required(s, y, err, errlen) ? -1 : 0;
}

void icsim_schema_markdown(const struct icsim_schema *s, FILE *f)
{
  fprintf(f, "| key | type | default | meaning |\n|---|---|---|---|\n");
  for (size_t r = 0; r < s->n; r++) {
    const struct icsim_param_desc *d = &s->rows[r];
    char type[96];
    switch (d->type) {
    case ICSIM_P_INT: snprintf(type, sizeof type, "whole number %.10g .. %.10g", d->min, d->max); break;
    case ICSIM_P_QUANTITY: snprintf(type, sizeof type, "number %.10g .. %.10g", d->min, d->max); break;
    case ICSIM_P_ENUM: snprintf(type, sizeof type, "`%s`", d->choices); break;
    default: snprintf(type, sizeof type, "text"); break;
    }
    char def[64];
    if (!d->def)
      snprintf(def, sizeof def, "required");
    else if (d->def[0])
      snprintf(def, sizeof def, "`%s`", d->def);
    else
      def[0] = '\0';
    fprintf(f, "| `%s` | %s | %s | %s |\n", d->key, type, def, d->help);
  }
}
