/* icsim describe: every resolved parameter with value, unit, origin and where it was set. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "platform.h"
#include "stack.h"

static const char *unit_of(const struct icsim_param_desc *d)
{
  switch (d->type) {
  case ICSIM_P_QUANTITY: return icsim_dim_unit(d->dim);
  case ICSIM_P_INT: return "count";
  case ICSIM_P_BOOL: return "bool";
  case ICSIM_P_ENUM: return "choice";
  case ICSIM_P_STRING: return "text";
  }
  return "";
}

static void value_of(const struct icsim_pval *pv, char *buf, size_t len)
{
  if (pv->d->type == ICSIM_P_QUANTITY) {
    char q[64];
    icsim_format_quantity(pv->num, pv->d->dim, q, sizeof q);
    snprintf(buf, len, "%s", q);
  } else {
    snprintf(buf, len, "%s", pv->text ? pv->text : "");
  }
}

/* Markdown table of one descriptor table (defaults), for the stacks' READMEs. */
static void table_markdown(const struct icsim_param_desc *t, size_t n)
{
  printf("| key | default | unit | range | origin | meaning |\n|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < n; i++) {
    char lo[64] = "", hi[64] = "";
    if (t[i].type == ICSIM_P_QUANTITY || t[i].type == ICSIM_P_INT) {
      enum icsim_dim dim = t[i].type == ICSIM_P_INT ? ICSIM_DIM_NONE : t[i].dim;
      icsim_format_quantity(t[i].min, dim, lo, sizeof lo);
      icsim_format_quantity(t[i].max, dim, hi, sizeof hi);
    }
    printf("| `%s` | %s | %s | %s%s%s | %s | %s |\n", t[i].key, t[i].def ? t[i].def : "(required)",
           unit_of(&t[i]), lo, lo[0] ? " .. " : (t[i].choices ? t[i].choices : ""), hi, t[i].origin, t[i].help);
  }
}

static void usage(FILE *f)
{
  fprintf(f, "usage: icsim describe -p PLATFORM.yaml [--set KEY=VALUE]...\n"
             "       icsim describe --table platform|mpi|STACK  (Markdown table of a descriptor table)\n"
             "Prints every resolved parameter: key, value, unit, origin, where it was set, meaning; below a value\n"
             "with a range (range: [LO, HI] in the platform file), the range and what bounds it. Ends with how\n"
             "many of the values that need a range (assumed, calibrated or left at the default) have one.\n");
}

/* Keys of one range-need class K, each with why when it is a switched-off one. */
static void list_keys(const struct icsim_params *ps, enum icsim_range_need k)
{
  for (size_t i = 0; i < ps->n; i++) {
    const struct icsim_pval *pv = &ps->v[i];
    if (icsim_param_range_need(pv) != k || (k == ICSIM_RANGE_STRUCTURE && pv->d->type == ICSIM_P_STRING))
      continue;
    if (pv->switched_off)
      printf(" %s (%s)", pv->d->key, pv->rule->unused_when);
    else
      printf(" %s", pv->d->key);
  }
  printf("\n");
}

/* "ranged: N of M values that need one (missing: ...)", then the values that need none and why
 * (unused here, capacity limits, held by --set, structure), so that a reader sees which values
 * the uncertainty analysis can vary. */
static void print_range_count(const struct icsim_params *ps)
{
  size_t need = 0, have = 0, held = 0, structure = 0, extra = 0, unused = 0, capacity = 0;
  for (size_t i = 0; i < ps->n; i++) {
    enum icsim_range_need k = icsim_param_range_need(&ps->v[i]);
    need += k == ICSIM_RANGE_NEEDED;
    have += k == ICSIM_RANGE_NEEDED && ps->v[i].has_range;
    held += k == ICSIM_RANGE_HELD;
    structure += k == ICSIM_RANGE_STRUCTURE && ps->v[i].d->type != ICSIM_P_STRING;
    extra += k == ICSIM_RANGE_NOT_NEEDED && ps->v[i].has_range;
    unused += k == ICSIM_RANGE_UNUSED;
    capacity += k == ICSIM_RANGE_CAPACITY;
  }
  printf("# ranged: %zu of %zu values that need one (assumed, calibrated or left at the default)", have, need);
  if (have < need) {
    printf("; missing:");
    for (size_t i = 0; i < ps->n; i++)
      if (icsim_param_range_need(&ps->v[i]) == ICSIM_RANGE_NEEDED && !ps->v[i].has_range)
        printf(" %s", ps->v[i].d->key);
  }
  printf("\n# also ranged: %zu paper/spec/measured values\n", extra);
  printf("# not used by this platform (keys of another topology, or of a mechanism switched off): %zu:", unused);
  list_keys(ps, ICSIM_RANGE_UNUSED);
  if (capacity) {
    printf("# capacity limits (they move no time, only where an error is raised; no range needed): %zu:", capacity);
    list_keys(ps, ICSIM_RANGE_CAPACITY);
  }
  if (held) {
    printf("# held fixed by --set (not sampled):");
    list_keys(ps, ICSIM_RANGE_HELD);
  }
  printf("# structure, not a value (switches, choices, defaults of 0 whose meaning line gives 0 a meaning, as "
         "\"0 = not described\"): %zu:", structure);
  list_keys(ps, ICSIM_RANGE_STRUCTURE);
}

int cmd_describe(int argc, char **argv)
{
  const char *platform = NULL, *table = NULL;
  char **sets = NULL;
  int nsets = 0, c;
  static const struct option opts[] = {{"platform", required_argument, 0, 'p'}, {"set", required_argument, 0, 's'},
                                       {"table", required_argument, 0, 't'},    {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  optind = 1;
  while ((c = getopt_long(argc, argv, "p:h", opts, NULL)) != -1) {
    switch (c) {
    case 'p': platform = optarg; break;
    case 's':
      sets = realloc(sets, (size_t)(nsets + 1) * sizeof *sets);
      sets[nsets++] = optarg;
      break;
    case 't': table = optarg; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (table) {
    free(sets);
    if (!strcmp(table, "platform")) {
      table_markdown(icsim_platform_table, icsim_platform_table_len);
      return 0;
    }
    if (!strcmp(table, "mpi")) { /* the MPI layer's collective algorithm selection */
      table_markdown(icsim_mpi_select_table, icsim_mpi_select_table_len);
      return 0;
    }
    const struct icsim_stack_ops *ops = icsim_stack_find(table);
    if (!ops) {
      fprintf(stderr, "icsim describe: no stack named '%s'\n", table);
      return 2;
    }
    table_markdown(ops->params, ops->nparams);
    return 0;
  }
  if (!platform) {
    usage(stderr);
    free(sets);
    return 2;
  }
  struct icsim_platform pf;
  char err[2048];
  if (icsim_platform_load(&pf, platform, sets, nsets, err, sizeof err)) {
    fprintf(stderr, "icsim describe: %s\n", err);
    free(sets);
    return 2;
  }
  printf("# %s: %s\n# layers, from the program down to the hardware:\n", pf.p.name, pf.p.description);
  for (int i = 0; i < pf.nlayers; i++)
    printf("#   %-8s %s layer, wire mode %s: %s\n", pf.layer[i]->name, icsim_role_name(pf.layer[i]->role),
           icsim_wire_mode_name(pf.layer[i]->wire_mode), pf.layer[i]->summary);
  if (pf.p.source_paper[0])
    printf("# paper: %s\n", pf.p.source_paper);
  if (pf.p.source_testbed[0])
    printf("# test bed: %s\n", pf.p.source_testbed);
  printf("%-34s %-16s %-7s %-11s %-28s %s\n", "key", "value", "unit", "origin", "set at", "meaning");
  for (size_t i = 0; i < pf.params.n; i++) {
    const struct icsim_pval *pv = &pf.params.v[i];
    /* descriptive text went into the header above */
    if (!strcmp(pv->d->key, "name") || !strcmp(pv->d->key, "description") || !strncmp(pv->d->key, "source/", 7))
      continue;
    char val[128];
    value_of(pv, val, sizeof val);
    printf("%-34s %-16s %-7s %-11s %-28s %s%s%s%s\n", pv->d->key, val, unit_of(pv->d), pv->origin, pv->where,
           pv->d->help, pv->ref ? " [" : "", pv->ref ? pv->ref : "", pv->ref ? "]" : "");
    if (pv->has_range && pv->range_held)
      printf("%-34s range %s not applied: --set holds this value fixed (the uncertainty sampler does not vary "
             "it)\n", "", pv->range_text);
    else if (pv->has_range)
      printf("%-34s range %s: %s\n", "", pv->range_text, pv->range_ref);
  }
  print_range_count(&pf.params);
  icsim_platform_free(&pf);
  free(sets);
  return 0;
}
