/* Candidate rank -> module mappings of a recorded pattern and their cost in transit hops. The
 * search is deliberately plain (swaps and moves, accepted when no worse, from a seeded generator)
 * so that its result is reproducible and easy to check by hand on small patterns. */
#define _GNU_SOURCE
#include "mapping.h"
#include "paths.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One non-negative number at *S (column COL on LINE); integer when INTEGER. */
static int field(const char **s, const char *line, int integer, double *v)
{
  while (**s == ' ' || **s == '\t')
    (*s)++;
  if (!**s || **s == '#')
    return -1;
  char *end;
  errno = 0;
  *v = strtod(*s, &end);
  if (end == *s || errno || !(*v >= 0) || (integer && (*v > 9007199254740992.0 /* 2^53: beyond, a long cast is undefined */ || *v != floor(*v))) || (*end && !isspace((unsigned char)*end) && *end != '#'))
    return (int)(*s - line) + 1;
  *s = end;
  return 0;
}

int smpo_pattern_read(const char *path, struct smpo_pattern *p, char *err, size_t errlen)
{
  *p = (struct smpo_pattern){0};
  FILE *f = icsim_input_fopen("pattern file", path, err, errlen); /* a regular file only (sim/paths.h) */
  if (!f)
    return -1;
  static const char *what[4] = {"source rank", "destination rank", "message count", "byte count"};
  char *line = NULL;
  size_t cap = 0;
  int ln = 0, rc = 0;
  while (getline(&line, &cap, f) > 0) {
    ln++;
    const char *s = line;
    while (*s == ' ' || *s == '\t')
      s++;
    if (!*s || *s == '\n' || *s == '#')
      continue;
    double v[4];
    for (int k = 0; k < 4 && rc == 0; k++) {
      const char *at = s;
      int bad = field(&s, line, k != 3, &v[k]);
      if (bad) {
        snprintf(err, errlen, "%s:%d:%d: expected the %s (a non-negative %s) in \"src dst messages bytes\"; "
                 "fix the line or record the pattern again with --set smpo/record-pattern=FILE",
                 icsim_path_shown(path), ln, bad > 0 ? bad : (int)(at - line) + 1, what[k],
                 k == 3 ? "number" : "integer");
        rc = -1;
      }
    }
    while (rc == 0 && (*s == ' ' || *s == '\t' || *s == '\n'))
      s++;
    if (rc == 0 && *s && *s != '#') {
      snprintf(err, errlen, "%s:%d:%d: unexpected text after the four fields; remove it", icsim_path_shown(path), ln,
               (int)(s - line) + 1);
      rc = -1;
    }
    if (rc == 0 && v[2] < 1) {
      snprintf(err, errlen, "%s:%d: a pair with no messages; drop the line", icsim_path_shown(path), ln);
      rc = -1;
    }
    if (rc == 0 && (v[0] > 1e6 || v[1] > 1e6)) {
      snprintf(err, errlen, "%s:%d: rank above 1000000; check the file", icsim_path_shown(path), ln);
      rc = -1;
    }
    if (rc)
      break;
    p->pair = realloc(p->pair, (size_t)(p->npairs + 1) * sizeof *p->pair);
    p->pair[p->npairs++] = (struct smpo_pattern_pair){(int)v[0], (int)v[1], v[2], v[3]};
    int hi = (int)(v[0] > v[1] ? v[0] : v[1]) + 1;
    p->nranks = hi > p->nranks ? hi : p->nranks;
  }
  free(line);
  fclose(f);
  if (rc == 0 && p->npairs == 0) {
    snprintf(err, errlen, "%s: no \"src dst messages bytes\" line; record a pattern with --set smpo/record-pattern=FILE",
             icsim_path_shown(path));
    rc = -1;
  }
  if (rc)
    smpo_pattern_free(p);
  return rc;
}

void smpo_pattern_free(struct smpo_pattern *p)
{
  free(p->pair);
  *p = (struct smpo_pattern){0};
}

void smpo_mapping_cost(const struct smpo_pattern *p, const struct smpo_routes *r, const int *module_of,
                       struct smpo_mapping_cost *c)
{
  *c = (struct smpo_mapping_cost){0};
  for (int i = 0; i < p->npairs; i++) {
    const struct smpo_pattern_pair *q = &p->pair[i];
    int a = module_of[q->src], b = module_of[q->dst];
    if (smpo_same_module(a, b)) {
      c->shm_messages += q->messages;
      continue;
    }
    c->net_messages += q->messages;
    c->net_bytes += q->bytes;
    c->transit_hops += q->messages * smpo_transit_hops(r, a, b);
  }
}

int smpo_mapping_cost_cmp(const struct smpo_mapping_cost *a, const struct smpo_mapping_cost *b)
{
  const double x[3] = {a->transit_hops, a->net_messages, a->net_bytes};
  const double y[3] = {b->transit_hops, b->net_messages, b->net_bytes};
  for (int k = 0; k < 3; k++)
    if (x[k] != y[k])
      return x[k] < y[k] ? -1 : 1;
  return 0;
}

/* A fixed 64-bit linear congruential generator (Knuth's MMIX constants): the same moves on every
 * machine for one seed. */
static unsigned next_rand(unsigned long long *x, unsigned n)
{
  *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)((*x >> 33) % n);
}

static void search(const struct smpo_pattern *p, const struct smpo_routes *r, int nranks, int per_module,
                   unsigned seed, int *map, struct smpo_mapping_cost *cost)
{
  int m = r->modules, *load = calloc((size_t)m, sizeof *load), *best = malloc((size_t)nranks * sizeof *best);
  for (int k = 0; k < nranks; k++)
    load[map[k]]++;
  memcpy(best, map, (size_t)nranks * sizeof *best);
  struct smpo_mapping_cost cur = *cost, bc = *cost, c;
  unsigned long long x = seed;
  int iters = 20000;
  for (int it = 0; it < iters && nranks > 1; it++) {
    int a = (int)next_rand(&x, (unsigned)nranks), swap = (int)next_rand(&x, 2), b = -1, to = map[a], from = map[a];
    if (swap) {
      b = (int)next_rand(&x, (unsigned)nranks);
      if (b == a || map[b] == map[a])
        continue;
      map[a] = map[b];
      map[b] = from;
    } else {
      to = (int)next_rand(&x, (unsigned)m);
      if (to == from || load[to] >= per_module)
        continue;
      map[a] = to;
    }
    smpo_mapping_cost(p, r, map, &c);
    if (smpo_mapping_cost_cmp(&c, &cur) <= 0) { /* no worse: taken (walks plateaus) */
      cur = c;
      if (!swap) {
        load[from]--;
        load[to]++;
      }
      if (smpo_mapping_cost_cmp(&cur, &bc) < 0) {
        bc = cur;
        memcpy(best, map, (size_t)nranks * sizeof *best);
      }
    } else if (swap) {
      map[b] = map[a];
      map[a] = from;
    } else {
      map[a] = from;
    }
  }
  memcpy(map, best, (size_t)nranks * sizeof *best);
  *cost = bc;
  free(load);
  free(best);
}

int smpo_mapping_candidates(const struct smpo_pattern *p, const struct smpo_routes *r, int nranks, int per_module,
                            unsigned seed, struct smpo_candidate *out, char *err, size_t errlen)
{
  int m = r->modules;
  if (nranks < p->nranks) {
    snprintf(err, errlen, "the pattern names rank %d but only %d ranks are placed; raise -n", p->nranks - 1, nranks);
    return -1;
  }
  if (per_module < 1 || nranks > m * per_module) {
    snprintf(err, errlen, "%d ranks do not fit %d modules of %d processors", nranks, m, per_module);
    return -1;
  }
  /* a path through the modules, each step to the nearest unvisited one (fewest transit modules,
   * then the lowest number): on a torus or ring it walks neighbours */
  int *path = malloc((size_t)m * sizeof *path), *seen = calloc((size_t)m, sizeof *seen);
  path[0] = 0;
  seen[0] = 1;
  for (int k = 1; k < m; k++) {
    int nb = -1;
    for (int c = 0; c < m; c++)
      if (!seen[c] && (nb < 0 || smpo_transit_hops(r, path[k - 1], c) < smpo_transit_hops(r, path[k - 1], nb)))
        nb = c;
    path[k] = nb;
    seen[nb] = 1;
  }
  free(seen);
  static const char *names[4] = {"packed", "cyclic", "path-packed", "path-cyclic"};
  int n = 0;
  for (int k = 0; k < 5; k++) {
    int *map = malloc((size_t)nranks * sizeof *map);
    for (int q = 0; q < nranks; q++) {
      int slot = k == 0 || k == 2 ? q / per_module : q % m;
      map[q] = k < 2 ? slot : path[slot];
    }
    struct smpo_mapping_cost c;
    smpo_mapping_cost(p, r, map, &c);
    const char *name = k < 4 ? names[k] : "search";
    if (k == 4) { /* from the best structured candidate */
      int b = 0;
      for (int i = 1; i < n; i++)
        if (smpo_mapping_cost_cmp(&out[i].cost, &out[b].cost) < 0)
          b = i;
      memcpy(map, out[b].module_of, (size_t)nranks * sizeof *map);
      c = out[b].cost;
      search(p, r, nranks, per_module, seed, map, &c);
    }
    int dup = 0;
    for (int i = 0; i < n && !dup; i++)
      if (!memcmp(out[i].module_of, map, (size_t)nranks * sizeof *map)) {
        dup = 1;
        if (k == 4) /* the search found nothing better: say so on the one it started from */
          strncat(out[i].name, "=search", sizeof out[i].name - strlen(out[i].name) - 1);
      }
    if (dup) {
      free(map);
      continue;
    }
    out[n] = (struct smpo_candidate){.module_of = map, .cost = c};
    snprintf(out[n].name, sizeof out[n].name, "%s", name);
    n++;
  }
  free(path);
  return n;
}

void smpo_candidates_free(struct smpo_candidate *c, int n)
{
  for (int i = 0; i < n; i++)
    free(c[i].module_of);
}
